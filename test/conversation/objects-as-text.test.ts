/**
 * A request object that its JSON.stringify text gives back exactly is
 * prepared as that text (render.ts asRequestText, protocol/json-stringify-agrees):
 * planned messages and the reuse of continued conversations then apply to
 * objects too. Whatever the object holds, the result and the error must be
 * those of the object's own path (objectsAsText off).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { compileTemplate, type RenderChatOptions } from '../../src';
import { MAX_KEPT_TEXT, MAX_STRINGIFY_DEPTH, requestTextOf, requestTexts, stringifyIfExact } from '../../src/protocol/json-stringify-agrees';
import { PY_KEYS, PyFloat } from '../../src/protocol/pyjson';
import { objectsAsText, recentConversations } from '../../src/render';
import { renderOutcome as outcome } from '../support/render-outcome';
import { rng } from '../support/random';

const SEES =
  "{%- for m in messages %}<{{ m.role }}>{{ m | tojson }}{% if m.tool_calls %}{% for c in m.tool_calls %}[{{ c.function.arguments is mapping }}]{% endfor %}{% endif %}\n{%- endfor %}" +
  '{%- if tools %}TOOLS {{ tools | tojson }}{% endif %}{% if add_generation_prompt %}<gen>{% endif %}[{{ x }}|{{ documents | tojson }}]';
const TEMPLATE = compileTemplate(SEES);

type Obj = Record<string, unknown>;

class Box {
  constructor(readonly v: number) {}
}

/** A value JSON.stringify may write differently from what the object stands for, or may not. */
function oddValue(rand: () => number, i: number): unknown {
  switch (Math.floor(rand() * 26)) {
    case 0: return undefined;
    case 1: return -0;
    case 2: return NaN;
    case 3: return Infinity;
    case 4: return 2 ** 53;
    case 5: return 1e21;
    case 6: return 0.1;
    case 7: return 1.5e-10;
    case 8: return new PyFloat(1);
    case 9: return new Map([['a', 1]]);
    case 10: return new Date(0);
    case 11: return new Box(i);
    case 12: return { toJSON: () => 'x' };
    case 13: return Object.defineProperty({}, 'g', { enumerable: true, get: () => i });
    case 14: return BigInt(i);
    case 15: return [1, , 3]; // eslint-disable-line no-sparse-arrays
    case 16: return JSON.parse('{"__proto__": {"a": 1}, "b": 2}');
    case 17: return { 2: 'b', 1: 'a', z: 0 };
    case 18: return Object.assign(Object.create(null), { n: i });
    case 19: return `lone \ud800 ${i}`;
    case 20: return Object.defineProperty({ v: 1 }, 'hidden', { enumerable: false, value: new Map() });
    case 21: return { [Symbol('s')]: 1, v: 2 };
    case 22: return () => i;
    case 23: return Object.assign([1, 2], { extra: 3 });
    case 24: return Object.assign({ a: 1 }, { [PY_KEYS]: ['a'] });
    default: return `plain ${i} \u00e9 \ud83d\ude00 "q" \\ \n`;
  }
}

function deep(n: number): unknown {
  let v: unknown = 1;
  for (let k = 0; k < n; k++) v = { a: v };
  return v;
}

/** A request object; `spoil`: put an odd value somewhere in it. */
function request(rand: () => number, n: number, spoil: boolean): Obj {
  const messages: Obj[] = [{ role: 'system', content: `request ${n}` }];
  const count = 1 + Math.floor(rand() * 6);
  for (let i = 0; i < count; i++) {
    const r = rand();
    if (r < 0.3) messages.push({ role: 'user', content: `u ${i}` });
    else if (r < 0.45) messages.push({ role: 'user', content: [{ type: 'text', text: `part ${i}` }] });
    else if (r < 0.65) messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: `{"n": ${i}, "x": 1.0, "s": "v"}` } }] });
    else if (r < 0.8) messages.push({ role: 'tool', tool_call_id: `c${i}`, content: `r ${i}` });
    else if (r < 0.9) messages.push({ role: 'assistant', content: `a ${i}`, n: i, f: 0.5 });
    else messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: '{"x": ' } }] });
  }
  const req: Obj = { model: 'm', messages };
  if (rand() < 0.5) req.tools = [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object', properties: { n: { type: 'integer' } } } } }];
  if (rand() < 0.3) req.temperature = rand() < 0.5 ? 0.7 : 1;
  if (spoil) {
    const odd = oddValue(rand, n);
    const where = Math.floor(rand() * 6);
    const m = messages[1 + Math.floor(rand() * (messages.length - 1))]!;
    if (where === 0) m.extra = odd;
    else if (where === 1) m.content = odd;
    else if (where === 2) req.documents = [{ title: 't', v: odd }];
    else if (where === 3 && Array.isArray(req.tools)) ((req.tools[0] as Obj).function as Obj).parameters = { type: 'object', properties: { n: odd } };
    else if (where === 4) messages.push({ role: 'user', content: 'deep', extra: deep(MAX_STRINGIFY_DEPTH - 4 + Math.floor(rand() * 8)) });
    else req.metadata = { v: odd };
  }
  return req;
}


function reference(req: unknown, options: RenderChatOptions): unknown {
  objectsAsText.enabled = false;
  try {
    return outcome(req, options);
  } finally {
    objectsAsText.enabled = true;
  }
}

afterEach(() => {
  objectsAsText.enabled = true;
  recentConversations.clear();
});

describe('request objects prepared as their JSON text', () => {
  it('render what the object path renders, whatever the object holds', () => {
    const rand = rng(5);
    const prepared = objectsAsText.prepared;
    let plain = 0;
    for (let n = 0; n < 500; n++) {
      const spoil = rand() < 0.5;
      const req = request(rand, n, spoil);
      if (!spoil) plain++;
      const options: RenderChatOptions = {
        template: TEMPLATE,
        policy: rand() < 0.8 ? 'strict' : 'lenient',
        contentFormat: rand() < 0.7 ? 'auto' : 'openai',
        now: '2026-01-01T00:00:00',
      };
      if (rand() < 0.2) options.chatTemplateKwargs = { x: 'kw' };
      let got: unknown;
      let want: unknown;
      // (a request whose getter or cycle the object path itself cannot walk still gives the same error)
      expect(() => {
        got = outcome(req, options);
        want = reference(req, options);
      }).not.toThrow();
      expect(got, `request ${n}`).toEqual(want);
    }
    // the plain ones that render went the text way
    expect(objectsAsText.prepared - prepared).toBeGreaterThan(plain / 2);
  });

  it('take the reuse of a continued conversation for an agent loop given as objects', () => {
    const options: RenderChatOptions = { template: TEMPLATE, now: '2026-01-01T00:00:00' };
    const messages: Obj[] = [{ role: 'system', content: 'a system prompt long enough to be kept' }, { role: 'user', content: 'go' }];
    const reused = recentConversations.reusedRequests;
    for (let turn = 0; turn < 6; turn++) {
      const req = { model: 'm', messages: messages.map((m) => ({ ...m })) };
      expect(outcome(req, options)).toEqual(reference(req, options));
      messages.push({ role: 'assistant', content: null, tool_calls: [{ id: `t${turn}`, type: 'function', function: { name: 'f', arguments: `{"turn": ${turn}}` } }] });
      messages.push({ role: 'tool', tool_call_id: `t${turn}`, content: `done ${turn}` });
    }
    expect(recentConversations.reusedRequests - reused).toBeGreaterThan(2);
  });

  it('decline what JSON.stringify would write differently', () => {
    const decline: unknown[] = [
      { a: undefined }, { a: -0 }, { a: NaN }, { a: 2 ** 53 }, { a: new PyFloat(1) }, { a: new Map() }, { a: new Date(0) },
      { a: new Box(1) }, { a: { toJSON: () => 1 } }, { a: 1n }, { a: [1, , 2] }, { a: () => 1 }, { a: Symbol('s') }, // eslint-disable-line no-sparse-arrays
      Object.assign({ a: 1 }, { [PY_KEYS]: ['a'] }), { a: deep(MAX_STRINGIFY_DEPTH) }, [1], 'text', null,
      { a: Object.assign([1], { toJSON: () => 1 }) }, { a: Object.setPrototypeOf([1], null) },
      // an own toJSON of any kind: not enumerable, undefined, a getter
      { a: Object.defineProperty({ b: 1 }, 'toJSON', { value: () => 1 }) }, { a: { toJSON: undefined } },
      { a: Object.defineProperty([1], 'toJSON', { get: () => () => 2 }) }, Object.defineProperty({ a: 1 }, PY_KEYS, { value: ['a'] }),
    ];
    for (const v of decline) expect(stringifyIfExact(v), String(JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? 'big' : x)))).toBeUndefined();
    const cycle: Obj = { a: 1 };
    cycle.self = cycle;
    expect(stringifyIfExact(cycle)).toBeUndefined();
    expect(stringifyIfExact({ a: Object.defineProperty({}, 'g', { enumerable: true, get: () => { throw new Error('no'); } }) })).toBeUndefined();
    const take: Array<[unknown, string]> = [
      [{ a: 1, b: 0.5, c: 'x\ud800', d: [null, true], e: { 2: 0, 1: 0 } }, '{"a":1,"b":0.5,"c":"x\\ud800","d":[null,true],"e":{"1":0,"2":0}}'],
      [{ a: deep(MAX_STRINGIFY_DEPTH - 2) }, JSON.stringify({ a: deep(MAX_STRINGIFY_DEPTH - 2) })],
      [Object.assign(Object.create(null), { n: 1e-7 }), '{"n":1e-7}'],
    ];
    for (const [v, text] of take) expect(stringifyIfExact(v)).toBe(text);
    // an enumerable key on Object.prototype: nothing is taken
    (Object.prototype as Obj).polluted = 1;
    try {
      expect(stringifyIfExact({ a: 1 })).toBeUndefined();
    } finally {
      delete (Object.prototype as Obj).polluted;
    }
    expect(stringifyIfExact({ a: 1 })).toBe('{"a":1}');
    // a toJSON or a recorded key order every object or array inherits (not enumerable): nothing is taken
    const inherited: Array<[object, PropertyKey]> = [[Object.prototype, 'toJSON'], [Array.prototype, 'toJSON'], [Object.prototype, PY_KEYS]];
    for (const [proto, key] of inherited) {
      Object.defineProperty(proto, key, { value: key === PY_KEYS ? ['a'] : () => 'x', configurable: true, writable: true });
      try {
        expect(stringifyIfExact({ a: [1] }), String(key)).toBeUndefined();
      } finally {
        delete (proto as Record<PropertyKey, unknown>)[key];
      }
    }
    expect(stringifyIfExact({ a: [1] })).toBe('{"a":[1]}');
  });

  it("give JSON.stringify's text however a request changes from the last one", () => {
    // requestTextOf keeps the last request's text and takes from it what the next one shares;
    // whatever changed, in place or not, the text must be V8's own JSON.stringify text
    const rand = rng(11);
    const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
    const message = (i: number): Obj => {
      const r = rand();
      if (r < 0.3) return { role: 'user', content: `u ${i} "q" \n \u00e9` };
      if (r < 0.6) return { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: `{"n": ${i}}` } }] };
      if (r < 0.8) return { role: 'tool', tool_call_id: `c${i}`, content: `r ${i}` };
      return { role: 'assistant', content: [{ type: 'text', text: `a ${i}` }], n: i, f: 0.5 };
    };
    let req: Obj = { model: 'm', messages: [message(0), message(1)], tools: [{ type: 'function', function: { name: 'f' } }] };
    let taken = 0;
    const before = { ...requestTexts };
    for (let step = 0; step < 4000; step++) {
      if (!Array.isArray(req.messages)) req.messages = [message(step)];
      const messages = req.messages as Obj[];
      const r = Math.floor(rand() * 16);
      if (r <= 3) messages.push(message(step), message(step + 1)); // an agent's next turn, in place
      else if (r === 4) req = { ...req, messages: [...messages, message(step)] }; // new objects, same messages
      else if (r === 5) req = JSON.parse(JSON.stringify(req)) as Obj; // a server's body parser: equal strings, new objects
      else if (r === 6 && messages.length > 1) messages.splice(Math.floor(rand() * messages.length), 1);
      else if (r === 7 && messages.length > 0) pick(messages).content = pick([`changed ${step}`, null, 'u 0 "q" \n \u00e9', '']);
      else if (r === 8 && messages.length > 0) {
        const m = pick(messages);
        const content = m.content;
        delete m.content;
        m.content = content; // the same members in another order
      } else if (r === 9) req.model = pick(['m', 'n', 7]);
      else if (r === 10) req.temperature = pick([0.5, 1, 2 ** 53, -0, undefined]);
      else if (r === 11) {
        const { messages: list, ...rest } = req;
        req = rand() < 0.5 ? { messages: list, ...rest } : { ...rest, messages: list }; // messages first or last
      } else if (r === 12 && messages.length > 0) pick(messages).extra = pick([1, 'x', undefined, new Map(), { a: [1, 2] }, -0]);
      else if (r === 13 && messages.length > 0) messages.length = Math.floor(rand() * messages.length);
      else if (r === 14) req.tools = pick([[], [{ type: 'function', function: { name: 'g' } }], req.tools]);
      else if (r === 15) req.messages = pick([messages.slice(), 'not a list', messages, [...messages].reverse()]);
      const want = stringifyIfExact(req);
      const got = requestTextOf(req);
      expect(got, `step ${step}`).toBe(want);
      if (got !== undefined) {
        expect(got).toBe(JSON.stringify(req));
        taken++;
      }
      if ((req.messages as Obj[]).length > 40) req.messages = (req.messages as Obj[]).slice(-4);
    }
    expect(taken).toBeGreaterThan(1000);
    // each way of putting the text together was taken often
    expect(requestTexts.same - before.same).toBeGreaterThan(100);
    expect(requestTexts.continued - before.continued).toBeGreaterThan(300);
    expect(requestTexts.whole - before.whole).toBeGreaterThan(100);

  });

  it('keep no text longer than MAX_KEPT_TEXT', () => {
    const big = { messages: [{ role: 'user', content: 'x'.repeat(MAX_KEPT_TEXT) }] };
    const before = { ...requestTexts };
    expect(requestTextOf(big)).toBe(JSON.stringify(big));
    expect(requestTextOf(big)).toBe(JSON.stringify(big));
    // (stringified whole both times: nothing of the first was kept)
    expect(requestTexts.whole - before.whole).toBe(2);
    const small = { messages: [{ role: 'user', content: 'x' }] };
    expect(requestTextOf(small)).toBe(JSON.stringify(small));
    expect(requestTextOf(small)).toBe(JSON.stringify(small));
    expect(requestTexts.same - before.same).toBe(1);
  });
});

