/** defineLazy: a member computed on first read that then behaves as a plain data property. */
import { describe, expect, it } from 'vitest';
import { compileTemplate, renderChat, renderChatAsync, type RenderChatResult } from '../../src';
import { defineLazy } from '../../src/lazy';

describe('defineLazy', () => {
  it('computes once, on first read, and leaves a plain enumerable data property', () => {
    let calls = 0;
    const o: { a: number[]; b?: string } = { a: [] };
    defineLazy(o, 'a', () => (calls++, [1, 2]));
    expect(Object.keys(o)).toEqual(['a']);
    expect(calls).toBe(0);
    expect(o.a).toEqual([1, 2]);
    expect(o.a).toBe(o.a);
    expect(calls).toBe(1);
    expect(Object.getOwnPropertyDescriptor(o, 'a')).toEqual({ value: [1, 2], enumerable: true, writable: true, configurable: true });
  });

  it('keeps each object its own value when many share the member name', () => {
    const objs = Array.from({ length: 5 }, (_, i) => {
      const o = { v: 0 };
      defineLazy(o, 'v', () => i * 10);
      return o;
    });
    expect(objs.map((o) => o.v).reverse()).toEqual([40, 30, 20, 10, 0]);
  });

  it('an assignment before the first read replaces the computation', () => {
    let calls = 0;
    const o = { m: 'x' };
    defineLazy(o, 'm', () => (calls++, 'computed'));
    o.m = 'set';
    expect(o.m).toBe('set');
    expect(calls).toBe(0);
    expect(Object.getOwnPropertyDescriptor(o, 'm')!.writable).toBe(true);
  });

  it('spread, JSON.stringify and reads through a derived object see the value; the holder gets it', () => {
    const o = { k: 0 };
    defineLazy(o, 'k', () => 7);
    const derived = Object.create(o) as { k: number };
    expect(derived.k).toBe(7);
    expect(Object.getOwnPropertyDescriptor(o, 'k')!.value).toBe(7);
    const p = { k: 0 };
    defineLazy(p, 'k', () => 8);
    expect({ ...p }).toEqual({ k: 8 });
    const q = { k: 0 };
    defineLazy(q, 'k', () => 9);
    expect(JSON.stringify(q)).toBe('{"k":9}');
  });

  it('a derived object with lazy members of its own settles an inherited one on the object that holds it', () => {
    const base = { a: 0 };
    defineLazy(base, 'a', () => 1);
    const derived = Object.create(base) as { a: number; b: number };
    Object.defineProperty(derived, 'b', { value: 0, writable: true, enumerable: true, configurable: true });
    defineLazy(derived, 'b', () => 2);
    expect(derived.a).toBe(1);
    expect(Object.getOwnPropertyDescriptor(base, 'a')!.value).toBe(1);
    expect(Object.prototype.hasOwnProperty.call(derived, 'a')).toBe(false);
    expect(derived.b).toBe(2);
    expect(Object.getOwnPropertyDescriptor(derived, 'b')!.value).toBe(2);
    // the compute functions are not among the object's keys, nor serialized
    expect(Object.keys(derived)).toEqual(['b']);
    expect(JSON.stringify(base)).toBe('{"a":1}');
  });

  it('a computation that throws leaves the member lazy, to be tried again', () => {
    let fail = true;
    const o = { t: 0 };
    defineLazy(o, 't', () => {
      if (fail) throw new Error('not yet');
      return 3;
    });
    expect(() => o.t).toThrow('not yet');
    fail = false;
    expect(o.t).toBe(3);
  });
});

describe('renderChat results', () => {
  const KEYS = ['prompt', 'messages', 'tools', 'contentFormat', 'warnings', 'templateHash', 'backend'];
  const template = compileTemplate(
    "{% for m in messages %}{{ m.role }}:{{ m.content }}{% if m.tool_calls %}{{ m.tool_calls[0].function.arguments | tojson }}{% endif %};{% endfor %}{{ tools | length if tools else 0 }}",
  );
  const request = {
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a": 1}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} } } }],
  };
  // (vLLM gives a null content as '' to a template that reads strings)
  const prompt = 'user:hi;assistant:{"a": 1};tool:ok;1';

  it('have their members in one order, lazily built ones included, whichever path rendered them', async () => {
    const variants: Array<[string, () => Promise<RenderChatResult> | RenderChatResult]> = [
      // the object path, its text (planned messages), the same text again, and the pool's
      ['object, template source', () => renderChat(request, { template: template.source })],
      ['object, compiled', () => renderChat(structuredClone(request), { template })],
      ['text', () => renderChat(JSON.stringify(request), { template })],
      ['text again', () => renderChat(JSON.stringify(request), { template })],
      ['async', () => renderChatAsync(JSON.stringify(request), { template })],
    ];
    // the reference: the object path (a template given as source is never taken the text way)
    const reference = JSON.stringify(await variants[0]![1]());
    for (const [name, run] of variants) {
      const r = await run();
      expect(Object.keys(r), name).toEqual(KEYS);
      expect(r.prompt, name).toBe(prompt);
      expect(JSON.stringify(r), name).toBe(reference);
      expect(r.messages[1]!.content, name).toBe('');
    }
  });
});
