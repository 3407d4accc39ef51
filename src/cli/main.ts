/**
 * The node-vllm-cpp command line.
 *
 *   render --template PATH --request REQUEST.json [options]   print the prompt
 *   batch CASES.jsonl [--backend B]                            one JSON result line per case
 *   example [--template PATH] [--json]                         render the bundled tool-loop conversation
 *   parse --parser NAME [--tools tools.json] [--stream --chunk-size N] < output.txt
 *   golden report [--backend B]                                golden matches per template and shape
 *   golden roundtrip                                           render -> parse round trip per template/parser pair
 *
 * The batch and parse output contracts are used by tooling outside the
 * package: keep them stable.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parsePyJson } from '../protocol/pyjson';
import { renderChat, type Backend, type RenderChatOptions } from '../render';
import { packageRoot } from '../native/loader';
import { runParse } from './parse';
import { parseArgs, str, UsageError } from './args';
import { goldenReport } from '../golden/report';
import { goldenDirs } from '../golden/suite';
import { roundTripPairs, roundTripReport } from '../golden/roundtrip';

const USAGE = `usage:
  node-vllm-cpp render --template PATH --request REQUEST.json [--bos-token T] [--eos-token T]
                       [--now ISO8601] [--no-generation-prompt] [--policy strict|lenient]
                       [--backend embedded|vllm.cpp] [--json]
  node-vllm-cpp batch CASES.jsonl [--backend embedded|vllm.cpp]
  node-vllm-cpp example [--template PATH] [--json]
  node-vllm-cpp parse --parser NAME [--tools tools.json] [--stream --chunk-size N] < output.txt
  node-vllm-cpp golden report [--backend embedded|vllm.cpp] [--templates DIR]
  node-vllm-cpp golden roundtrip [--templates DIR]

PATH is a chat_template.jinja file, a tokenizer_config.json or a model directory.`;

export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  readStdin: () => string;
}

function errorLine(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  return `Error: ${String(e)}`;
}

function backendOf(v: string | undefined): Backend | undefined {
  if (v === undefined) return undefined;
  if (v !== 'embedded' && v !== 'vllm.cpp') throw new UsageError(`--backend must be embedded or vllm.cpp, got ${v}`);
  return v;
}

function policyOf(v: string | undefined): 'strict' | 'lenient' | undefined {
  if (v === undefined) return undefined;
  if (v !== 'strict' && v !== 'lenient') throw new UsageError(`--policy must be strict or lenient, got ${v}`);
  return v;
}

function cmdRender(argv: string[], io: CliIO): number {
  const a = parseArgs(
    argv,
    new Set(['template', 'request', 'bos-token', 'eos-token', 'now', 'policy', 'backend']),
    new Set(['no-generation-prompt', 'json']),
  );
  const template = str(a, 'template');
  const requestPath = str(a, 'request');
  if (!template || !requestPath) throw new UsageError('render needs --template PATH and --request REQUEST.json');
  const requestText = fs.readFileSync(requestPath, 'utf8');
  const options: RenderChatOptions = {
    templatePath: template,
    bosToken: str(a, 'bos-token'),
    eosToken: str(a, 'eos-token'),
    now: str(a, 'now'),
    policy: policyOf(str(a, 'policy')),
    backend: backendOf(str(a, 'backend')),
  };
  if (a.flags.has('no-generation-prompt')) options.addGenerationPrompt = false;
  const result = renderChat(requestText, options);
  if (a.flags.has('json')) {
    io.stdout(JSON.stringify({ prompt: result.prompt, warnings: result.warnings, content_format: result.contentFormat, template_sha256: result.templateHash }) + '\n');
  } else {
    io.stdout(result.prompt);
  }
  return 0;
}

type Lossless = Record<string, unknown>;

function field(obj: Lossless, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(obj, key) ? obj[key] : undefined;
}

function optString(obj: Lossless, key: string): string | undefined {
  const v = field(obj, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new TypeError(`"${key}" must be a string`);
  return v;
}

function cmdBatch(argv: string[], io: CliIO): number {
  const a = parseArgs(argv, new Set(['backend']), new Set());
  const file = a.positionals[0];
  if (!file) throw new UsageError('batch needs a CASES.jsonl file');
  const backend = backendOf(str(a, 'backend'));
  const baseDir = path.dirname(path.resolve(file));
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  for (const [n, raw] of lines.entries()) {
    if (!raw.trim()) continue;
    let id: unknown = null;
    try {
      const c = parsePyJson(raw) as Lossless;
      if (c === null || typeof c !== 'object' || Array.isArray(c)) throw new TypeError(`line ${n + 1}: a case must be a JSON object`);
      id = field(c, 'id') ?? null;
      const template = optString(c, 'template');
      if (!template) throw new TypeError('"template" (a path) is required');
      const request: Lossless = { messages: field(c, 'messages') };
      if (field(c, 'tools') !== undefined) request.tools = field(c, 'tools');
      const agp = field(c, 'add_generation_prompt');
      const kwargs = field(c, 'kwargs');
      const result = renderChat(request, {
        templatePath: path.resolve(baseDir, template),
        bosToken: optString(c, 'bos_token'),
        eosToken: optString(c, 'eos_token'),
        now: optString(c, 'now'),
        addGenerationPrompt: agp === undefined ? true : Boolean(agp),
        chatTemplateKwargs: kwargs === undefined || kwargs === null ? undefined : (kwargs as Record<string, unknown>),
        backend,
      });
      io.stdout(JSON.stringify({ id, ok: true, prompt: result.prompt }) + '\n');
    } catch (e) {
      io.stdout(JSON.stringify({ id, ok: false, error: errorLine(e) }) + '\n');
    }
  }
  return 0;
}

function cmdExample(argv: string[], io: CliIO): number {
  const a = parseArgs(argv, new Set(['template', 'now']), new Set(['json']));
  const root = packageRoot();
  const requestText = fs.readFileSync(path.join(root, 'examples', 'tool-loop.json'), 'utf8');
  const templatePath = str(a, 'template') ?? path.join(root, 'examples', 'chat_template.jinja');
  const result = renderChat(requestText, {
    templatePath,
    bosToken: '<bos>',
    eosToken: '<eos>',
    now: str(a, 'now') ?? '2026-01-15T10:30:00',
  });
  if (a.flags.has('json')) {
    io.stdout(JSON.stringify({ template: templatePath, prompt: result.prompt, messages: result.messages }, null, 2) + '\n');
  } else {
    io.stderr(`# ${path.relative(process.cwd(), templatePath) || templatePath} + examples/tool-loop.json\n`);
    io.stdout(result.prompt.endsWith('\n') ? result.prompt : result.prompt + '\n');
  }
  return 0;
}

function cmdGolden(argv: string[], io: CliIO): number {
  const [sub, ...rest] = argv;
  if (sub === 'roundtrip') {
    const a = parseArgs(rest, new Set(['templates']), new Set());
    const pairs = roundTripPairs(str(a, 'templates') ?? goldenDirs().templates).filter((p) => fs.existsSync(p.template));
    const report = roundTripReport(pairs);
    io.stdout(report.text);
    return report.unexpected ? 1 : 0;
  }
  if (sub !== 'report') throw new UsageError('golden: subcommands are `report` and `roundtrip`');
  const a = parseArgs(rest, new Set(['backend', 'templates']), new Set(['json']));
  const report = goldenReport({ backend: backendOf(str(a, 'backend')), templatesDir: str(a, 'templates') });
  io.stdout(a.flags.has('json') ? JSON.stringify(report, null, 1) + '\n' : report.text);
  return 0;
}

export function main(argv: string[], io: CliIO): number {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'render':
        return cmdRender(rest, io);
      case 'batch':
        return cmdBatch(rest, io);
      case 'example':
        return cmdExample(rest, io);
      case 'parse': {
        const r = runParse(rest, io.readStdin());
        io.stdout(r.stdout);
        return r.exitCode;
      }
      case 'golden':
        return cmdGolden(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout(USAGE + '\n');
        return cmd === undefined ? 2 : 0;
      case '--version': {
        const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
        io.stdout(pkg.version + '\n');
        return 0;
      }
      default:
        throw new UsageError(`unknown command ${JSON.stringify(cmd)}`);
    }
  } catch (e) {
    io.stderr(errorLine(e) + '\n');
    if (e instanceof UsageError) io.stderr(USAGE + '\n');
    return e instanceof UsageError ? 2 : 1;
  }
}
