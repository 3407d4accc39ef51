/**
 * Raw-text requests whose `tools` text was seen in a recent request reuse the
 * decoded, shaped and serialized tools: the results must be those of a fresh
 * build, and nothing a caller gets back may be shared with later requests.
 */
import { describe, expect, it } from 'vitest';
import { buildTemplateContext, decodeRequest, buildContext } from '../../src/conversation';
import { parsePyJson, PyFloat, serializePyJson } from '../../src/protocol/pyjson';
import { compileTemplate, renderChat } from '../../src';
import { rng } from '../support/random';

const TEMPLATE =
  "{%- for m in messages %}<{{ m.role }}>{{ m.content }}\n{%- endfor %}{%- if tools %}TOOLS {{ tools | tojson }} {% for t in tools %}[{{ t.function.name }}|{{ t.function.parameters }}]{% endfor %}{%- endif %}";
const facts = { contentFormat: 'string' as const, undeclaredVariables: new Set(['messages', 'tools']) };

function tool(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'function', function: { name, description: `the ${name} tool`, parameters: { type: 'object', properties: { x: { type: 'number', default: 1.5 } } }, ...extra } };
}

const TOOL_TEXTS = [
  JSON.stringify([tool('a'), tool('b')]),
  JSON.stringify([tool('a'), tool('b')], null, 1),
  '[{"type": "function", "function": {"name": "f", "parameters": {"2": 1, "1": 2.0, "big": 123456789012345678901234}}}]',
  '[{"type": "function", "function": {"name": "f", "name": "g", "strict": true}, "defer_loading": false}]',
  '[{"function": {"name": "f", "parameters": {"__proto__": {"x": 1}, "n": -0.0, "e": 1e400}}, "extra": [1, 2]}]',
  '[{"type": "function", "function": {"name": "\\u00e9t\\u00e9", "description": "caf\u00e9 \\n\\"q\\""}}]',
  '[{"type": "function", "function": {"name": "lone \\ud800"}}]',
  '[]',
  'null',
  '[{"type": "function", "function": {"name": "f"}}, {"type": "function"}]',
];

function requestText(toolsText: string, rand: () => number): string {
  const messages = JSON.stringify([{ role: 'user', content: `hi ${Math.floor(rand() * 100)}` }]);
  const forms = [
    `{"messages": ${messages}, "tools": ${toolsText}}`,
    `{"tools": ${toolsText}, "messages": ${messages}}`,
    `{"messages":${messages},"tools":${toolsText},"temperature":0.5}`,
    `{"tools": ${toolsText}, "messages": ${messages}, "tools": ${toolsText}}`,
    `{"tools": [{"type": "function", "function": {"name": "first"}}], "messages": ${messages}, "tools": ${toolsText}}`,
    `{"tools": ${toolsText}, "messages": ${messages}, "tools": null}`,
    `{"messages": ${messages}, "tools": ${toolsText}, "chat_template_kwargs": {"tools": [{"name": "kw"}]}}`,
    `{"messages": ${messages}, "x": {"tools": ${toolsText}}, "tools": ${toolsText}}`,
  ];
  return forms[Math.floor(rand() * forms.length)]!;
}

/** The outcome of a build, comparable across builds: context text, tools seen, or the error. */
function outcome(fn: () => { contextJson: string; tools: unknown }): unknown {
  try {
    const b = fn();
    return { contextJson: b.contextJson, tools: serializePyJson(b.tools) };
  } catch (e) {
    return { error: String(e) };
  }
}

describe('tools shared between raw-text requests', () => {
  it('builds exactly what an unshared build gives, in any order of requests', () => {
    const rand = rng(11);
    for (let n = 0; n < 600; n++) {
      const text = requestText(TOOL_TEXTS[Math.floor(rand() * TOOL_TEXTS.length)]!, rand);
      const shared = outcome(() => buildContext(decodeRequest(text, { shareTools: true }), facts));
      const fresh = outcome(() => buildTemplateContext(text, facts));
      expect(shared, text).toEqual(fresh);
    }
  });

  it('hands out tools that share nothing with later requests', () => {
    const text = `{"messages": [{"role": "user", "content": "x"}], "tools": ${TOOL_TEXTS[2]}}`;
    const first = buildContext(decodeRequest(text, { shareTools: true }), facts);
    const second = buildContext(decodeRequest(text, { shareTools: true }), facts);
    expect(decodeRequest(text, { shareTools: true }).sharedTools).toBeDefined();
    expect(second.tools).not.toBe(first.tools);
    const fn = (t: unknown[] | null) => (t![0] as { function: { parameters: Record<string, unknown> } }).function;
    expect(fn(second.tools).parameters).not.toBe(fn(first.tools).parameters);
    expect(fn(second.tools).parameters['1']).not.toBe(fn(first.tools).parameters['1']);
    expect(fn(second.tools).parameters['1']).toBeInstanceOf(PyFloat);
    // a caller changing what it got changes nothing for the next request
    fn(first.tools).parameters['2'] = 'changed';
    (fn(first.tools).parameters['1'] as { value: number }).value = 7;
    fn(second.tools).parameters.extra = true;
    const third = buildContext(decodeRequest(text, { shareTools: true }), facts);
    expect(third.contextJson).toBe(buildTemplateContext(text, facts).contextJson);
    expect(serializePyJson(third.tools)).toBe(serializePyJson(buildTemplateContext(text, facts).tools));
  });

  it("a result's copy of shared tools, made on first read, behaves as a plain member", () => {
    const compiled = compileTemplate(TEMPLATE);
    const request = { messages: [{ role: 'user', content: 'hi' }], tools: [tool('a')] };
    const text = JSON.stringify(request);
    renderChat(text, { template: compiled });
    const a = renderChat(text, { template: compiled });
    const b = renderChat(text, { template: compiled });
    expect(Object.keys(a)).toEqual(Object.keys(renderChat(request, { template: compiled })));
    expect(JSON.parse(JSON.stringify(a)).tools).toEqual(request.tools);
    expect({ ...b }.tools).toEqual(request.tools);
    expect(structuredClone(a).tools).toEqual(request.tools);
    expect(a.tools).toBe(a.tools);
    expect(a.tools).not.toBe(b.tools);
    a.tools = null;
    expect(a.tools).toBeNull();
    expect(Object.getOwnPropertyDescriptor(a, 'tools')).toMatchObject({ value: null, writable: true, enumerable: true });
    expect(b.tools).toEqual(request.tools);
  });

  it('renderChat of the same tools text again renders the same prompt as the object request', () => {
    const compiled = compileTemplate(TEMPLATE);
    const request = { messages: [{ role: 'user', content: 'hi' }], tools: [tool('a'), tool('b')] };
    const text = JSON.stringify(request);
    const opts = { template: compiled };
    const expected = renderChat(request, opts);
    for (let i = 0; i < 3; i++) {
      const got = renderChat(text, opts);
      expect(got.prompt).toBe(expected.prompt);
      expect(got.tools).toEqual(expected.tools);
      (got.tools![0] as { function: { name: string } }).function.name = 'mutated';
    }
    // a different request text with the same tools slice
    const other = renderChat(`{"tools": ${JSON.stringify(request.tools)}, "messages": [{"role": "user", "content": "hi"}]}`, opts);
    expect(other.prompt).toBe(expected.prompt);
  });

  it('a tools slice with a surrogate, or one that is not an array, is never kept', () => {
    const lone = `{"messages": [{"role": "user", "content": "x"}], "tools": ${TOOL_TEXTS[6]}}`;
    expect(decodeRequest(lone, { shareTools: true }).sharedTools).toBeUndefined();
    expect(decodeRequest(lone, { shareTools: true }).bounded).toBe(false);
    const notArray = '{"messages": [{"role": "user", "content": "x"}], "tools": {"a": 1}}';
    expect(decodeRequest(notArray, { shareTools: true }).sharedTools).toBeUndefined();
    // without shareTools nothing is shared
    const plain = `{"messages": [], "tools": ${TOOL_TEXTS[0]}}`;
    decodeRequest(plain, { shareTools: true });
    expect(decodeRequest(plain).sharedTools).toBeUndefined();
    expect(decodeRequest(plain).value['tools']).toEqual(parsePyJson(TOOL_TEXTS[0]!));
  });
});
