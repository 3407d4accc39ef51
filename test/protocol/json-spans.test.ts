/** withoutMember: a request decoded without its messages (the engine's chat path), against JSON.parse. */
import { describe, expect, it } from 'vitest';
import { withoutMember } from '../../src/protocol/json-spans';
import { rng } from '../support/random';

function randomValue(r: () => number, depth: number): unknown {
  const k = Math.floor(r() * (depth > 3 ? 4 : 7));
  switch (k) {
    case 0:
      return Math.floor(r() * 1000) - 500;
    case 1:
      return ['a "quoted" \\ text', 'messages', '\u00e9\u{1f600}', '', '}]', '\\"'][Math.floor(r() * 6)];
    case 2:
      return [true, false, null][Math.floor(r() * 3)];
    case 3:
      return r() * 10;
    case 4:
    case 5:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = Math.floor(r() * 4); i > 0; i--) o[r() < 0.3 ? 'messages' : `k${Math.floor(r() * 5)}`] = randomValue(r, depth + 1);
      return o;
    }
  }
}

/** A JSON text of `members` in order (duplicates kept), spaced and spelled in one of several ways. */
function objectText(r: () => number, members: Array<[string, unknown]>): string {
  const ws = () => [' ', '', '\n\t', '  '][Math.floor(r() * 4)]!;
  const key = (k: string) => (k === 'messages' && r() < 0.3 ? '"m\\u0065ssages"' : JSON.stringify(k));
  return `${ws()}{${ws()}${members.map(([k, v]) => `${key(k)}${ws()}:${ws()}${JSON.stringify(v, null, r() < 0.5 ? undefined : 1)}${ws()}`).join(`,${ws()}`)}}${ws()}`;
}

describe('withoutMember', () => {
  it('decodes to the object with every top-level messages value null, nested ones untouched', () => {
    const r = rng(99);
    for (let t = 0; t < 3000; t++) {
      const members: Array<[string, unknown]> = [];
      for (let i = Math.floor(r() * 6); i > 0; i--) members.push([r() < 0.35 ? 'messages' : `f${Math.floor(r() * 4)}`, randomValue(r, 0)]);
      const text = objectText(r, members);
      const expected = JSON.parse(text) as Record<string, unknown>;
      if ('messages' in expected) expected['messages'] = null;
      const got = withoutMember(text, 'messages');
      expect(got, text).toBeDefined();
      expect(JSON.parse(got!), text).toEqual(expected);
      expect(Object.keys(JSON.parse(got!)), text).toEqual(Object.keys(expected));
      if (!members.some(([k]) => k === 'messages')) expect(got).toBe(text);
    }
  });

  it('is undefined for a text that is not an object', () => {
    for (const text of ['[1]', '5', '"messages"', '', 'null', '{"messages" 1}', '{"a": 1 "b": 2}']) expect(withoutMember(text, 'messages'), text).toBeUndefined();
  });
});

/** The addon's scan, and a wrapper of it that counts its calls. */
async function countedScan() {
  const { loadEmbedded } = await import('../../src/native/loader');
  const scan = loadEmbedded().jsonValueEnd!;
  const counter = { calls: 0 };
  const counted = (text: string, at: number) => {
    counter.calls++;
    return scan(text, at);
  };
  return { scan, counted, counter };
}

describe('the addon\'s scan of long member values', () => {
  it('finds the ends its own scan finds, in any text, valid or not', async () => {
    const { takeMembers, useNativeValueEnd, NATIVE_SCAN_FROM } = await import('../../src/protocol/json-spans');
    const { scan, counted, counter } = await countedScan();
    const r = rng(7);
    // long strings with runs of backslashes before quotes, non-BMP characters, brackets in strings
    const pieces = ['"a \\" b"', '"\\\\"', '"\\\\\\""', '"}]{["', '"\u{1f600}\u00e9"', '[1, [2, {"x": "]"}]]', '{"k": {"k": []}}', '-1.5e3', 'true', 'null'];
    const long = (): string => {
      const items: string[] = [];
      for (let n = NATIVE_SCAN_FROM / 8 + Math.floor(r() * 200); n > 0; n--) items.push(pieces[Math.floor(r() * pieces.length)]!);
      return r() < 0.5 ? `[${items.join(',')}]` : `{${items.map((x, i) => `"k${i}":${x}`).join(',')}}`;
    };
    try {
      for (let t = 0; t < 300; t++) {
        const members: Array<[string, string]> = [];
        for (let i = 1 + Math.floor(r() * 4); i > 0; i--) members.push([['messages', 'tools', 'x'][Math.floor(r() * 3)]!, r() < 0.6 ? long() : JSON.stringify(randomValue(r, 0))]);
        let text = `{${members.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
        const cut = r();
        // cut short, or a quote left open: no end where the text ends
        if (cut < 0.15) text = text.slice(0, Math.floor(r() * text.length));
        else if (cut < 0.25) text = text.replace('"a \\" b"', '"a \\\\" b"');
        useNativeValueEnd(counted);
        const native = takeMembers(text, ['messages', 'tools']);
        useNativeValueEnd(undefined);
        const own = takeMembers(text, ['messages', 'tools']);
        expect(native, text.slice(0, 200)).toEqual(own);
      }
      expect(counter.calls).toBeGreaterThan(100);
    } finally {
      useNativeValueEnd(scan);
    }
  });

  it('with nativeFrom 0 (batch lines), short values too: the same ends as its own scan', async () => {
    const { takeMembers, useNativeValueEnd } = await import('../../src/protocol/json-spans');
    const { scan, counted, counter } = await countedScan();
    const r = rng(11);
    const pieces = ['"a \\" b"', '"\\\\"', '"}]{["', '"\u{1f600}"', '[1, {"x": "]"}]', '{"k": []}', '2', 'null'];
    try {
      for (let t = 0; t < 500; t++) {
        const members: Array<[string, string]> = [];
        for (let i = 1 + Math.floor(r() * 4); i > 0; i--) {
          const items = Array.from({ length: Math.floor(r() * 6) }, () => pieces[Math.floor(r() * pieces.length)]!);
          members.push([['messages', 'tools', 'id'][Math.floor(r() * 3)]!, r() < 0.7 ? `[${items.join(', ')}]` : JSON.stringify(randomValue(r, 0))]);
        }
        let text = `{${members.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ')}}`;
        if (r() < 0.2) text = text.slice(0, Math.floor(r() * text.length));
        useNativeValueEnd(counted);
        const native = takeMembers(text, ['messages', 'tools'], 0);
        useNativeValueEnd(undefined);
        const own = takeMembers(text, ['messages', 'tools'], 0);
        expect(native, text).toEqual(own);
      }
      expect(counter.calls).toBeGreaterThan(300);
    } finally {
      useNativeValueEnd(scan);
    }
  });
});
