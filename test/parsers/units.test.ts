import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describe, expect, it } from 'vitest';
import { runParse } from '../../src/cli/parse';
import { TOOL_PARSERS, ToolParseError, accumulateDeltas, createStreamingToolParser, parseToolCalls } from '../../src/parsers';
import { makePyFloat, parsePyJson, pyJsonDumps } from '../../src/protocol/pyjson';
import { literalEval } from '../../src/parsers/pyliteral';
import { chunkBy, counterIds, streamDeltas } from './harness';

const Q = '<|"|>';

describe('parser registry', () => {
  it('lists vLLM parser names', () => {
    for (const n of ['gemma4', 'deepseek_v32', 'deepseek_v4', 'deepseek_v3', 'deepseek_v31', 'hermes', 'qwen3_coder', 'qwen3_xml']) {
      expect(TOOL_PARSERS).toContain(n);
    }
  });

  it('rejects an unknown parser with a typed error naming the known ones', () => {
    let err: unknown;
    try {
      parseToolCalls('x', { parser: 'nope' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ToolParseError);
    expect((err as Error).name).toBe('ToolParseError');
    expect((err as Error).message).toContain('hermes');
    expect((err as Error).message).toContain('gemma4');
    expect(() => createStreamingToolParser({ parser: 'toString' })).toThrow(ToolParseError);
  });

  it('rejects push after end', () => {
    const p = createStreamingToolParser({ parser: 'hermes' });
    p.end();
    expect(() => p.push('x')).toThrow(ToolParseError);
  });
});

describe('default ids follow each parser’s vLLM style', () => {
  it('chatcmpl-tool- + 32 hex for gemma4 and hermes', () => {
    const g = parseToolCalls(`<|tool_call>call:f{}<tool_call|>`, { parser: 'gemma4' });
    expect(g.tool_calls[0]!.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
    const h = parseToolCalls('<tool_call>{"name":"f","arguments":{}}</tool_call>', { parser: 'hermes' });
    expect(h.tool_calls[0]!.id).toMatch(/^chatcmpl-tool-[0-9a-f]{32}$/);
  });

  it('call_ + 24 hex for DSML and Qwen3-Coder', () => {
    const d = parseToolCalls('<｜DSML｜function_calls><｜DSML｜invoke name="f"></｜DSML｜invoke></｜DSML｜function_calls>', { parser: 'deepseek_v32' });
    expect(d.tool_calls[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    const q = parseToolCalls('<tool_call>\n<function=f>\n</function>\n</tool_call>', { parser: 'qwen3_coder' });
    expect(q.tool_calls[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
  });
});

describe('streaming delta shapes', () => {
  it('S2 Gemma: header when { arrives, nothing while arguments stream, one delta at close', () => {
    const p = createStreamingToolParser({ parser: 'gemma4', idGenerator: counterIds() });
    expect(p.push('<|tool_call>call:get_weather')).toEqual([]);
    expect(p.push('{')).toEqual([{ tool_calls: [{ index: 0, id: 'call-0', type: 'function', function: { name: 'get_weather', arguments: '' } }] }]);
    expect(p.push(`location:${Q}Tok`)).toEqual([]);
    expect(p.push(`yo${Q}}`)).toEqual([]);
    expect(p.push('<tool_call|>')).toEqual([{ tool_calls: [{ index: 0, function: { arguments: '{"location": "Tokyo"}' } }] }]);
    expect(p.end()).toEqual([{ finish_reason: 'tool_calls' }]);
  });

  it('S4 Gemma cut-off: only the header is ever sent', () => {
    const text = `<|tool_call>call:write_file{path:${Q}a.txt${Q},content:${Q}hello wor`;
    const deltas = streamDeltas(chunkBy(text, 1), { parser: 'gemma4' });
    expect(deltas).toEqual([
      { tool_calls: [{ index: 0, id: 'call-0', type: 'function', function: { name: 'write_file', arguments: '' } }] },
      { finish_reason: 'tool_calls' },
    ]);
  });

  it('DSML streams one JSON fragment per finished parameter', () => {
    const DS = '｜DSML｜';
    const text =
      `<${DS}function_calls>\n<${DS}invoke name="f">\n` +
      `<${DS}parameter name="a" string="true">x</${DS}parameter>\n<${DS}parameter name="b" string="false">2</${DS}parameter>\n` +
      `</${DS}invoke>\n</${DS}function_calls>`;
    const args = streamDeltas(chunkBy(text, 4), { parser: 'deepseek_v32' })
      .flatMap((d) => d.tool_calls ?? [])
      .map((t) => t.function?.arguments);
    expect(args).toEqual(['', '{"a": "x"', ', "b": 2', '}']);
  });

  it('content never carries a partial start token', () => {
    const cases: [string, string, string][] = [
      ['hermes', 'Hi <tool_call>{"name":"f","arguments":{}}</tool_call>', '<tool_call>'],
      ['gemma4', 'Hi <|tool_call>call:f{}<tool_call|>', '<|tool_call>'],
      ['qwen3_coder', 'Hi <tool_call>\n<function=f>\n</function>\n</tool_call>', '<tool_call>'],
      ['deepseek_v32', 'Hi <｜DSML｜function_calls><｜DSML｜invoke name="f"></｜DSML｜invoke></｜DSML｜function_calls>', '<｜DSML｜function_calls>'],
      ['deepseek_v3', 'Hi <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>', '<｜tool▁calls▁begin｜>'],
    ];
    for (const [parser, text, token] of cases) {
      const deltas = streamDeltas(chunkBy(text, 1), { parser });
      const content = deltas.map((d) => d.content ?? '').join('');
      // Gemma strips content next to calls; the others keep it verbatim.
      expect(content, parser).toBe(parser === 'gemma4' ? 'Hi' : 'Hi ');
      for (const d of deltas) expect(d.content ?? '', `${parser} ${token}`).not.toContain('<');
    }
  });

  it('content without calls streams before the end and finishes with stop', () => {
    const p = createStreamingToolParser({ parser: 'hermes' });
    expect(p.push('Hello ')).toEqual([{ content: 'Hello ' }]);
    expect(p.push('world <')).toEqual([{ content: 'world ' }]);
    expect(p.end()).toEqual([{ content: '<' }, { finish_reason: 'stop' }]);
  });

  it('parallel calls: every delta of a call comes before the next header', () => {
    const text = '<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n<tool_call>\n<function=b>\n<parameter=y>\n2\n</parameter>\n</function>\n</tool_call>';
    const idx = streamDeltas(chunkBy(text, 3), { parser: 'qwen3_coder' }).flatMap((d) => d.tool_calls ?? []).map((t) => t.index);
    expect(idx).toEqual([...idx].sort());
  });
});

describe('accumulateDeltas (openai-node semantics)', () => {
  it('S1: header then argument fragments by index', () => {
    const r = accumulateDeltas([
      { tool_calls: [{ index: 0, id: 'chatcmpl-tool-X', type: 'function', function: { name: 'get_weather' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"city": "To' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'kyo"}' } }] },
      { finish_reason: 'tool_calls' },
    ]);
    expect(r).toEqual({
      content: null,
      tool_calls: [{ id: 'chatcmpl-tool-X', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Tokyo"}' } }],
    });
  });

  it('S3: a resent name renames the call (why emitters must not resend it)', () => {
    const r = accumulateDeltas([
      { tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }] },
      { tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'g', arguments: '{}' } }] },
      { tool_calls: [{ index: 0, function: { name: 'x' } }] },
    ]);
    expect(r.tool_calls.map((c) => c.function.name)).toEqual(['x', 'g']);
  });
});

describe('Python-compatible JSON', () => {
  it('float repr', () => {
    const cases: [number, string][] = [
      [1, '1.0'], [0.1, '0.1'], [1e16, '1e+16'], [1.5e-5, '1.5e-05'], [0.0001, '0.0001'], [123456789012345680, '1.2345678901234568e+17'],
      [-0, '-0.0'], [1e22, '1e+22'], [9999999999999998, '9999999999999998.0'], [Infinity, 'Infinity'], [NaN, 'NaN'],
    ];
    for (const [x, s] of cases) expect(pyJsonDumps(makePyFloat(x))).toBe(s);
  });

  it('loads/dumps round trip keeps Python spellings and key order', () => {
    expect(pyJsonDumps(parsePyJson('{"b":[1,2.0,{}],"a":null,"2":"x","1":[]}'))).toBe('{"b": [1, 2.0, {}], "a": null, "2": "x", "1": []}');
    expect(pyJsonDumps(parsePyJson('{"a":1,"a":2,"b":3}'))).toBe('{"a": 2, "b": 3}');
    expect(pyJsonDumps(parsePyJson('"\\ud83d\\ude00\\u0000"'))).toBe('"😀\\u0000"');
    expect(() => parsePyJson('{"a":1,}')).toThrow();
    expect(() => parsePyJson('"a\nb"')).toThrow();
  });

  it('literal_eval subset', () => {
    expect(pyJsonDumps(literalEval("{'a': (1, 2), 'b': [True, None], 'c': -1.5, 'd': 'x\\ny'}")!)).toBe('{"a": [1, 2], "b": [true, null], "c": -1.5, "d": "x\\ny"}');
    expect(literalEval('hello world')).toBeUndefined();
    expect(literalEval('{1, 2}')).toBeUndefined();
    expect(pyJsonDumps(literalEval('0x10')!)).toBe('16');
  });
});

describe('CLI parse', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'parse-cli-'));
  const toolsFile = path.join(tmp, 'tools.json');
  fs.writeFileSync(toolsFile, JSON.stringify({ tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { days: { type: 'integer' } } } }] }));
  const listFile = path.join(tmp, 'list.json');
  fs.writeFileSync(listFile, JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { days: { type: 'integer' } } } } }]));
  const input = 'Sure.\n<tool_call>\n<function=get_weather>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>';

  it('prints one message object and a newline; streaming gives the same message', () => {
    for (const file of [toolsFile, listFile]) {
      const whole = runParse(['--parser', 'qwen3_coder', '--tools', file], input);
      expect(whole.exitCode).toBe(0);
      expect(whole.stdout.endsWith('}\n')).toBe(true);
      const msg = JSON.parse(whole.stdout) as { content: string; tool_calls: { id: string; function: { name: string; arguments: string } }[] };
      expect(Object.keys(msg)).toEqual(['content', 'tool_calls']);
      expect(msg.content).toBe('Sure.\n');
      expect(msg.tool_calls[0]!.function).toEqual({ name: 'get_weather', arguments: '{"days": 3}' });
      for (const n of ['1', '7']) {
        const streamed = JSON.parse(runParse(['--parser', 'qwen3_coder', '--tools', file, '--stream', '--chunk-size', n], input).stdout) as typeof msg;
        expect(streamed.content).toBe(msg.content);
        expect(streamed.tool_calls.map((c) => c.function)).toEqual(msg.tool_calls.map((c) => c.function));
      }
    }
  });

  it('rejects bad usage', () => {
    expect(() => runParse([], input)).toThrow(/--tool-call-parser/);
    expect(() => runParse(['--parser', 'hermes', '--chunk-size', '2'], input)).toThrow(/--stream/);
    expect(() => runParse(['--parser', 'hermes', '--stream', '--chunk-size', '0'], input)).toThrow(/positive/);
    expect(() => runParse(['--parser', 'hermes', '--tools', path.join(tmp, 'missing.json')], input)).toThrow(/cannot read/);
    expect(() => runParse(['--parser', 'nope'], input)).toThrow(/unknown --tool-call-parser "nope"/);
    expect(() => runParse(['--tool-call-parser', 'hermes', '--reasoning-parser', 'nope'], input)).toThrow(/unknown --reasoning-parser "nope"/);
  });

  it('--reasoning-parser splits the reasoning off before the tool-call parser, streaming or not', () => {
    const out = '<think>Need the weather.</think>' + input;
    const expected = { reasoning: 'Need the weather.', content: 'Sure.\n', call: { name: 'get_weather', arguments: '{"days": 3}' } };
    for (const extra of [[], ['--stream'], ['--stream', '--chunk-size', '5']]) {
      const msg = JSON.parse(runParse(['--tool-call-parser', 'qwen3_coder', '--reasoning-parser', 'qwen3', '--tools', toolsFile, ...extra], out).stdout) as {
        reasoning: string; content: string; tool_calls: { function: unknown }[];
      };
      expect(Object.keys(msg)).toEqual(['reasoning', 'content', 'tool_calls']);
      expect({ reasoning: msg.reasoning, content: msg.content, call: msg.tool_calls[0]!.function }).toEqual(expected);
    }
  });
});

describe('large outputs', () => {
  it('stay fast when streamed one character at a time', () => {
    const big = 'lorem ipsum <b> dolor\n'.repeat(4000); // ~90k characters
    const DS = '｜DSML｜';
    const texts: [string, string][] = [
      ['hermes', `${big}<tool_call>{"name":"w","arguments":{"t":${JSON.stringify(big)}}}</tool_call>`],
      ['gemma4', `${big}<|tool_call>call:w{t:${Q}${big}${Q}}<tool_call|>`],
      ['deepseek_v32', `${big}<${DS}function_calls><${DS}invoke name="w"><${DS}parameter name="t" string="true">${big}</${DS}parameter></${DS}invoke></${DS}function_calls>`],
      ['qwen3_coder', `${big}<tool_call>\n<function=w>\n<parameter=t>\n${big}</parameter>\n</function>\n</tool_call>`],
    ];
    for (const [parser, text] of texts) {
      const started = Date.now();
      const p = createStreamingToolParser({ parser });
      const deltas = [];
      for (const ch of text) deltas.push(...p.push(ch));
      deltas.push(...p.end());
      const r = accumulateDeltas(deltas);
      expect(r.tool_calls, parser).toHaveLength(1);
      expect(r.content, parser).toBe(parser === 'gemma4' ? big.trimEnd() : big);
      expect(Date.now() - started, parser).toBeLessThan(5000);
    }
  });
});

describe('finish_reason when the engine cut the output off', () => {
  it("reports 'length' instead of 'tool_calls' for a truncated call, and the call has no arguments", () => {
    const p = createStreamingToolParser({ parser: 'gemma4', idGenerator: () => 'id0' });
    const deltas = [...p.push('<|tool_call>call:terminal{command:<|"|>da'), ...p.end({ finishReason: 'length' })];
    expect(deltas[deltas.length - 1]!.finish_reason).toBe('length');
    const r = accumulateDeltas(deltas);
    expect(r.tool_calls).toEqual([{ id: 'id0', type: 'function', function: { name: 'terminal', arguments: '' } }]);
  });

  it("keeps 'tool_calls' / 'stop' when the engine stopped normally", () => {
    const a = createStreamingToolParser({ parser: 'hermes', idGenerator: () => 'x' });
    const d1 = [...a.push('<tool_call>{"name": "f", "arguments": {}}</tool_call>'), ...a.end({ finishReason: 'stop' })];
    expect(d1[d1.length - 1]!.finish_reason).toBe('tool_calls');
    const b = createStreamingToolParser({ parser: 'hermes' });
    const d2 = [...b.push('plain answer'), ...b.end()];
    expect(d2[d2.length - 1]!.finish_reason).toBe('stop');
  });
});
