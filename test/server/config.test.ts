/** `serve`'s command line: vLLM's flag names, validation as usage errors (exit status 2), environment defaults. */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/args';
import { cmdServe, serveConfig } from '../../src/cli/serve';

describe('serveConfig', () => {
  it('takes vLLM flag names and applies the defaults', () => {
    const c = serveConfig(
      [
        '--model', '/m', '--library', '/lib.so', '--served-model-name', 'tiny', '--chat-template', '/t.jinja',
        '--tool-call-parser', 'gemma4', '--reasoning-parser', 'qwen3', '--chat-template-content-format', 'openai',
        '--default-chat-template-kwargs', '{"enable_thinking": false}', '--max-concurrency', '4', '--enable-auto-tool-choice',
        '--max-model-len', '2048', '--num-gpu-blocks-override', '128',
      ],
      {},
    );
    expect(c).toMatchObject({
      model: '/m',
      library: '/lib.so',
      host: '127.0.0.1',
      port: 8000,
      servedModelName: ['tiny'],
      chatTemplate: '/t.jinja',
      toolCallParser: 'gemma4',
      reasoningParser: 'qwen3',
      chatTemplateContentFormat: 'openai',
      defaultChatTemplateKwargs: { enable_thinking: false },
      maxConcurrency: 4,
      maxQueue: 256,
      maxModelLen: 2048,
      numBlocks: 128,
      bodyLimit: 32 * 1024 * 1024,
      shutdownTimeoutMs: 30_000,
      logLevel: 'info',
    });
    expect(c.apiKey).toBeUndefined();
  });

  it('--served-model-name takes several names, as vLLM does', () => {
    expect(serveConfig(['--served-model-name', 'a', 'b', '--model', '/m'], {}).servedModelName).toEqual(['a', 'b']);
    expect(serveConfig(['--model', '/m', '--served-model-name=a'], {}).servedModelName).toEqual(['a']);
    expect(serveConfig(['--model', '/m'], {}).servedModelName).toBeUndefined();
    expect(() => serveConfig(['--model', '/m', '--served-model-name'], {})).toThrow(/needs one or more names/);
    expect(() => serveConfig(['--model', '/m', '--served-model-name', 'a', '--served-model-name', 'b'], {})).toThrow(/given twice/);
  });

  it('reads VLLM_API_KEY like vLLM; --api-key wins', () => {
    expect(serveConfig(['--model', '/m'], { VLLM_API_KEY: 'sk-env' }).apiKey).toBe('sk-env');
    expect(serveConfig(['--model', '/m', '--api-key', 'sk-flag'], { VLLM_API_KEY: 'sk-env' }).apiKey).toBe('sk-flag');
  });

  it('upstream mode needs a model directory or a chat template, and excludes --library', () => {
    expect(serveConfig(['--upstream', 'http://127.0.0.1:8080', '--chat-template', '/t.jinja'], {}).upstream).toBe('http://127.0.0.1:8080');
    expect(() => serveConfig(['--upstream', 'http://127.0.0.1:8080'], {})).toThrow(UsageError);
    expect(() => serveConfig(['--model', '/m', '--upstream', 'http://x', '--library', '/l.so'], {})).toThrow(/exclude each other/);
    expect(() => serveConfig(['--model', '/m', '--upstream', 'ftp://x'], {})).toThrow(/http\(s\) URL/);
  });

  it.each([
    [['--model', '/m', '--port', 'eighty'], /--port must be an integer/],
    [['--model', '/m', '--port', '70000'], /--port must be <= 65535/],
    [['--model', '/m', '--max-concurrency', '0'], /--max-concurrency must be an integer >= 1/],
    [['--model', '/m', '--chat-template-content-format', 'xml'], /auto, string or openai/],
    [['--model', '/m', '--default-chat-template-kwargs', '[1]'], /must be a JSON object/],
    [['--model', '/m', '--default-chat-template-kwargs', '{bad'], /not valid JSON/],
    [['--model', '/m', '--log-level', 'loud'], /--log-level must be one of/],
    [['--model', '/m', '--no-such-flag'], /unknown option --no-such-flag/],
    [['--model', '/m', 'extra'], /no positional arguments/],
    [[], /serve needs --model DIR/],
  ])('%j is a usage error', (argv, message) => {
    expect(() => serveConfig(argv as string[], {})).toThrow(message);
  });

  it('cmdServe: --help prints the usage (0); a usage error prints it to stderr (2)', () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s), readStdin: () => '' };
    expect(cmdServe(['--help'], io)).toBe(0);
    expect(out.join('')).toContain('usage: node-vllm-cpp serve --model DIR');
    expect(cmdServe(['--port', '1'], io)).toBe(2);
    expect(err.join('')).toMatch(/^UsageError: serve needs --model DIR[^]*usage: node-vllm-cpp serve/);
  });
});
