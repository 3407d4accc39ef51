/** A small argv parser (--flag, --key value, --key=value, positionals, aliases) and the CLI's input helpers. */
import * as fs from 'node:fs';
import { NodeVllmError } from '../errors';
import { parsePyJson } from '../protocol/pyjson';
import { decodeUtf8Strict, Utf8DecodeError } from '../protocol/utf8';

export interface ParsedArgs {
  flags: Map<string, string | true>;
  positionals: string[];
  /** `--help` or `-h` was given. */
  help: boolean;
}

/** A command line that does not make sense (unknown option, missing value): exit status 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** An input file named on the command line is missing, unreadable or not what the option expects: exit status 1. */
export class InputFileError extends NodeVllmError {
  override name = 'InputFileError';
  override readonly code: string = 'ERR_INPUT_FILE';
  override readonly status: number = 400;
}

/**
 * `valued` and `boolean` list the canonical option names; `aliases` maps an
 * alternative spelling to its canonical name (values are stored under it).
 */
export function parseArgs(
  argv: string[],
  valued: ReadonlySet<string>,
  boolean: ReadonlySet<string>,
  aliases: Readonly<Record<string, string>> = {},
): ParsedArgs {
  const flags = new Map<string, string | true>();
  const positionals: string[] = [];
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a === '--help' || a === '-h') {
      help = true;
      continue;
    }
    if (!a.startsWith('--')) {
      positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const given = eq >= 0 ? a.slice(2, eq) : a.slice(2);
    const key = aliases[given] ?? given;
    if (valued.has(key)) {
      const v = eq >= 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new UsageError(`--${given} needs a value`);
      flags.set(key, v);
    } else if (boolean.has(key) && eq < 0) {
      flags.set(key, true);
    } else {
      throw new UsageError(`unknown option --${given}`);
    }
  }
  return { flags, positionals, help };
}

export function str(args: ParsedArgs, key: string): string | undefined {
  const v = args.flags.get(key);
  return typeof v === 'string' ? v : undefined;
}

/** The bytes of a file named by an option (`what`), or an InputFileError saying why not. */
export function readBytes(file: string, what: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'is a directory' : err.message;
    throw new InputFileError(`${what}: cannot read ${file}: ${why}`, { cause: e });
  }
}

/**
 * Reads a file named by an option; `-` reads standard input. The bytes are
 * decoded as Python's `open(file, encoding='utf-8').read()` does: invalid
 * UTF-8 is an error with Python's UnicodeDecodeError text, never U+FFFD.
 */
export function readInput(file: string, what: string, readStdin: () => string | Uint8Array): string {
  const bytes = file === '-' ? readStdin() : readBytes(file, what);
  if (typeof bytes === 'string') return bytes;
  try {
    return decodeUtf8Strict(bytes);
  } catch (e) {
    if (e instanceof Utf8DecodeError) {
      throw new InputFileError(`${what}: ${file === '-' ? 'standard input' : file} is not UTF-8: ${e.message}`, { cause: e });
    }
    throw e;
  }
}

/** Decodes JSON text losslessly (Python json.loads semantics), naming the option in the error. */
export function decodeJson(text: string, what: string): unknown {
  try {
    return parsePyJson(text);
  } catch (e) {
    throw new InputFileError(`${what}: not valid JSON: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/**
 * A tools file: a JSON list of tools, or an object with a "tools" list (a
 * request body). `lossless` keeps Python number types (for rendering).
 */
export function readToolsFile(file: string, readStdin: () => string | Uint8Array, lossless = true): unknown[] {
  const text = readInput(file, '--tools', readStdin);
  let data: unknown;
  if (lossless) data = decodeJson(text, `--tools ${file}`);
  else {
    try {
      data = JSON.parse(text);
    } catch (e) {
      throw new InputFileError(`--tools ${file}: not valid JSON: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
  }
  const list = Array.isArray(data) ? data : typeof data === 'object' && data !== null ? (data as { tools?: unknown }).tools : undefined;
  if (!Array.isArray(list)) throw new InputFileError(`--tools ${file}: expected a list of tools or an object with a "tools" list`);
  return list;
}
