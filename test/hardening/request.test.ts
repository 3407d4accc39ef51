/**
 * Request-side bounds: every malformed or hostile request ends in a
 * RequestValidationError naming the full JSON path, never in a raw
 * RangeError, a silently substituted character or a rendered prompt vLLM
 * would not produce.
 */
import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/errors';
import { MAX_DEPTH, checkRequestBounds, loneSurrogateIndex } from '../../src/protocol/bounds';
import { renderChat } from '../../src/render';

const TPL = '{% for m in messages %}[{{ m.role }}|{{ m.content }}]{% endfor %}{% if tools %}{{ tools|tojson }}{% endif %}';

function rejected(request: unknown, template = TPL): RequestValidationError {
  let err: unknown;
  try {
    renderChat(request, { template });
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(RequestValidationError);
  return err as RequestValidationError;
}

function deepObject(n: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let o = root;
  for (let i = 1; i < n; i++) {
    const next: Record<string, unknown> = {};
    o['a'] = next;
    o = next;
  }
  return root;
}

function deepList(n: number): unknown[] {
  const root: unknown[] = [];
  let a = root;
  for (let i = 1; i < n; i++) {
    const next: unknown[] = [];
    a.push(next);
    a = next;
  }
  return root;
}

describe('validation errors carry the full JSON path', () => {
  it('a wrong-typed content names messages[i].content', () => {
    const e = rejected({ messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 5 }] });
    expect(e.path).toBe('messages[1].content');
    expect(e.message).toBe('messages[1].content: Expected string | null | array, received number');
  });

  it('for every role, and inside content parts and tool calls', () => {
    expect(rejected({ messages: [{ role: 'system', content: 'a' }, { role: 'assistant', content: true }] }).path).toBe('messages[1].content');
    expect(rejected({ messages: [{ role: 'tool', content: {} }] }).path).toBe('messages[0].content');
    expect(rejected({ messages: [{ role: 'critic', content: 1.5 }] }).path).toBe('messages[0].content');
    expect(rejected({ messages: [{ role: 'user', content: [{ type: 'text', text: 5 }] }] }).path).toBe('messages[0].content[0].text');
    expect(rejected({ messages: [{ role: 'user', content: [5] }] }).path).toBe('messages[0].content[0]');
    const tc = { id: 'c', type: 'function', function: { name: 7, arguments: '{}' } };
    expect(rejected({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [tc] }] }).path).toBe(
      'messages[1].tool_calls[0].function.name',
    );
    expect(rejected({ messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'f', parameters: 3 } }] }).path).toBe(
      'tools[0].function.parameters',
    );
  });
});

describe('an empty conversation', () => {
  it('is refused with the message transformers raises in pinned vLLM 0.25.0', () => {
    // vLLM 0.25.0 + transformers 5.24 (HTTP and LLM.chat paths alike):
    // ValueError: Cannot apply chat template to an empty conversation. Provide at least one message.
    const e = rejected({ messages: [] });
    expect(e.path).toBe('messages');
    expect(e.message).toBe('messages: Cannot apply chat template to an empty conversation. Provide at least one message.');
    expect(rejected('{"messages": []}').path).toBe('messages');
  });

  it('request-level errors come first, as in vLLM', () => {
    expect(rejected({ messages: [], chat_template: 'x' }).path).toBe('chat_template');
  });
});

describe('lone surrogates are refused, naming the path', () => {
  // Python keeps "\ud800" in the str; the prompt then has no UTF-8 form
  // ('\ud800'.encode('utf-8') raises UnicodeEncodeError) and vLLM fails when
  // it tokenizes it. Refused before rendering instead of substituted.
  it('from raw request text', () => {
    const e = rejected('{"messages": [{"role": "user", "content": "ok"}, {"role": "user", "content": "a\\ud800b"}]}');
    expect(e.path).toBe('messages[1].content');
    expect(e.message).toContain('lone surrogate \\ud800 at index 1');
    expect(rejected('{"messages": [{"role": "user", "content": "\\udc00"}]}').path).toBe('messages[0].content');
    // a high surrogate followed by a non-low one is still lone
    expect(rejected('{"messages": [{"role": "user", "content": "\\ud83d\\u0041"}]}').message).toContain('\\ud83d at index 0');
  });

  it('from raw request text, past the first characters of a string, escaped or raw, in values and keys', () => {
    const long = 'x'.repeat(40);
    expect(rejected(`{"messages": [{"role": "user", "content": "${long}\\ud800"}]}`).message).toContain(`\\ud800 at index 40`);
    expect(rejected(`{"messages": [{"role": "user", "content": "${long}\udc00${long}"}]}`).path).toBe('messages[0].content');
    const key = rejected(`{"messages": [{"role": "user", "content": "x"}], "chat_template_kwargs": {"${long}\\udfff": 1}}`);
    expect(key.message).toContain('the key holds a lone surrogate');
    const ok = renderChat(`{"messages": [{"role": "user", "content": "${long}\\ud83d\\ude00${long}\u{1f600}"}]}`, { template: TPL });
    expect(ok.prompt).toBe(`[user|${long}\u{1f600}${long}\u{1f600}]`);
  });

  it('from a JS object, in values and keys anywhere in the request', () => {
    expect(rejected({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x\udfff' }] }] }).path).toBe('messages[0].content[0].text');
    const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { ['k\ud800']: {} } } } }];
    const e = rejected({ messages: [{ role: 'user', content: 'x' }], tools });
    expect(e.path).toBe('tools[0].function.parameters.properties.k\ud800');
    expect(e.message).toContain('the key holds a lone surrogate');
    expect(rejected({ messages: [{ role: 'user', content: 'x' }], chat_template_kwargs: { x: ['\ud800'] } }).path).toBe('chat_template_kwargs.x[0]');
  });

  it('surrogate pairs are ordinary text', () => {
    const r = renderChat('{"messages": [{"role": "user", "content": "\\ud83d\\ude00 \\u00e9"}]}', { template: TPL });
    expect(r.prompt).toBe('[user|\u{1f600} \u00e9]');
    expect(renderChat({ messages: [{ role: 'user', content: '\u{1f600}' }] }, { template: TPL }).prompt).toBe('[user|\u{1f600}]');
  });

  it('loneSurrogateIndex', () => {
    expect(loneSurrogateIndex('abc')).toBe(-1);
    expect(loneSurrogateIndex('\ud83d\ude00')).toBe(-1);
    expect(loneSurrogateIndex('\ude00\ud83d')).toBe(0);
    expect(loneSurrogateIndex('ab\ud83d')).toBe(2);
    expect(loneSurrogateIndex('\ud83d\ude00\ud83d\ud83d\ude00')).toBe(2);
  });
});

describe('nesting depth is bounded for objects and text', () => {
  it(`accepts ${MAX_DEPTH} levels (the request object included) and refuses one more`, () => {
    expect(MAX_DEPTH).toBe(1000);
    // request object + messages list + message dict + 997 levels = 1000
    const ok = { messages: [{ role: 'user', content: 'x', extra: deepObject(MAX_DEPTH - 3) }] };
    expect(() => checkRequestBounds(ok)).not.toThrow();
    expect(renderChat(ok, { template: TPL }).prompt).toBe('[user|x]');
    const e = rejected({ messages: [{ role: 'user', content: 'x', extra: deepObject(MAX_DEPTH - 2) }] });
    expect(e.path).toBe('messages[0].extra' + '.a'.repeat(MAX_DEPTH - 3));
  });

  for (const n of [5000, 100_000]) {
    it(`a JS object ${n} deep is a RequestValidationError wherever it sits`, () => {
      const places: Array<[string, unknown]> = [
        ['tools[0].function.parameters', { messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'function', function: { name: 'f', parameters: deepObject(n) } }] }],
        ['messages[1].tool_calls[0].function.arguments', { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: deepObject(n) } }] }] }],
        ['messages[0].content', { messages: [{ role: 'user', content: deepList(n) }] }],
        ['chat_template_kwargs.deep', { messages: [{ role: 'user', content: 'x' }], chat_template_kwargs: { deep: deepList(n) } }],
      ];
      for (const [prefix, req] of places) {
        const e = rejected(req);
        expect(e.path.startsWith(prefix)).toBe(true);
        expect(e.message).toContain(`nested deeper than ${MAX_DEPTH} levels`);
      }
    });
  }

  it('a reference cycle is refused like unbounded depth', () => {
    const args: Record<string, unknown> = { x: 1 };
    args['self'] = args;
    const e = rejected({ messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] }] });
    expect(e.path.startsWith('messages[1].tool_calls[0].function.arguments.self.self')).toBe(true);
    const list: unknown[] = [];
    list.push(list);
    expect(rejected({ messages: [{ role: 'user', content: 'x' }], chat_template_kwargs: { l: list } }).path.startsWith('chat_template_kwargs.l[0][0]')).toBe(true);
  });

  it('raw text nested too deep names the path where it went too deep', () => {
    const text = `{"messages": [{"role": "user", "content": "x"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": ${'{"a": '.repeat(5000)}1${'}'.repeat(5000)}}}]}`;
    const e = rejected(text);
    // the request object, tools, tools[0], function and parameters are 5 levels;
    // the container past the bound is the 1001st, 996 "a" levels below parameters
    expect(e.path).toBe('tools[0].function.parameters' + '.a'.repeat(MAX_DEPTH - 4));
    expect(e.message).toContain('Nesting too deep');
    const list = `{"messages": ${'['.repeat(3000)}${']'.repeat(3000)}}`;
    // messages is the 2nd level, so the 1001st is 999 lists below it
    expect(rejected(list).path).toBe('messages' + '[0]'.repeat(MAX_DEPTH - 1));
  });

  it('takes a role named like an Object.prototype member as a custom role, as text and as an object', () => {
    // (vLLM keeps any other role as it is; such a name once picked a prototype member instead of a schema)
    for (const role of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf']) {
      const request = { messages: [{ role, content: 'x' }, { role: 'user', content: 'y' }] };
      expect(renderChat(request, { template: TPL }).prompt, role).toBe(`[${role}|x][user|y]`);
      expect(renderChat(JSON.stringify(request), { template: TPL }).prompt, role).toBe(`[${role}|x][user|y]`);
      // (the full validation, which an invalid message elsewhere brings about, looks each role up too)
      const invalid = { messages: [{ role, content: 'x' }, { role: 'user', content: 5 }] };
      expect(rejected(invalid).path, role).toBe('messages[1].content');
      expect(rejected(JSON.stringify(invalid)).path, role).toBe('messages[1].content');
    }
  });
});

