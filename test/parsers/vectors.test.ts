import { describe, expect, it } from 'vitest';
import { CHUNKINGS, accumulate, parseWhole } from './harness';
import { VECTORS } from './vectors';

describe.each(VECTORS)('$parser: $name', (v) => {
  const opts = { parser: v.parser, tools: v.tools };

  it('non-streaming result matches the expected value', () => {
    const r = parseWhole(v.text, opts);
    expect(r.content).toBe(v.content);
    expect(r.tool_calls.map((c) => [c.function.name, c.function.arguments])).toEqual(v.calls);
    r.tool_calls.forEach((c, i) => {
      expect(c.id).toBe(`call-${i}`);
      expect(c.type).toBe('function');
      // Whatever we emit must be valid JSON (or, for a cut-off call, empty).
      if (c.function.arguments !== '' && !/NaN|Infinity/.test(c.function.arguments)) {
        expect(() => JSON.parse(c.function.arguments)).not.toThrow();
      }
    });
  });

  it.each(CHUNKINGS)('streaming ($label) accumulates to the non-streaming result', ({ split }) => {
    expect(accumulate(split(v.text), opts)).toEqual(parseWhole(v.text, opts));
  });
});
