/** The copy-avoiding paths of conversation building behave like the general ones. */
import { describe, expect, it } from 'vitest';
import {
  buildTemplateContext, makePyDict, normalizeForTemplate, parsePyJson, pyKeys, reorderToolCall, serializePyJson,
} from '../../src/conversation';

const facts = { contentFormat: 'string' as const, undeclaredVariables: new Set(['messages', 'tools']) };

describe('conversation fast paths', () => {
  it('reorderToolCall: the plain shape and the general shape give the same order', () => {
    const plain = reorderToolCall({ type: 'function', function: { name: 'f', arguments: '{}' }, id: 'c' });
    expect(serializePyJson(plain)).toBe('{"id": "c", "function": {"arguments": "{}", "name": "f"}, "type": "function"}');
    const extras = reorderToolCall({ x: 1, type: 'function', function: { z: 0, name: 'f', arguments: '{}' }, id: 'c' });
    expect(serializePyJson(extras)).toBe('{"id": "c", "function": {"arguments": "{}", "name": "f", "z": 0}, "type": "function", "x": 1}');
    const digits = reorderToolCall(parsePyJson('{"type": "function", "9": 1, "function": {"name": "f", "1": 2, "arguments": "{}"}, "id": "c"}'));
    expect(serializePyJson(digits)).toBe('{"id": "c", "function": {"arguments": "{}", "name": "f", "1": 2}, "type": "function", "9": 1}');
    const missing = reorderToolCall({ function: { name: 'f' }, id: 'c', type: 'function' });
    expect(serializePyJson(missing)).toBe('{"id": "c", "function": {"name": "f"}, "type": "function"}');
  });

  it('normalizeForTemplate passes clean messages through and rebuilds the others', () => {
    const clean = { role: 'user', content: 'x' };
    const [a, b, c] = normalizeForTemplate([
      clean,
      { role: 'tool', content: 'y', tool_call_id: null },
      { role: 'assistant', content: 'z', reasoning: 'r' },
    ]);
    expect(a).toBe(clean);
    expect(serializePyJson(b)).toBe('{"role": "tool", "content": "y"}');
    expect(serializePyJson(c)).toBe('{"thinking": "r", "role": "assistant", "content": "z", "reasoning": "r", "reasoning_content": "r"}');
    const ordered = makePyDict([['role', 'user'], ['1', 'x']]);
    expect(pyKeys(normalizeForTemplate([ordered])[0]!)).toEqual(['role', '1']);
  });

  it('building never mutates the request', () => {
    const req = {
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, reasoning_content: 'why', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{"a": 1.0}' } }] },
        { role: 'tool', tool_call_id: 'c', content: [{ type: 'text', text: 'r' }] },
      ],
    };
    const before = JSON.stringify(req);
    const built = buildTemplateContext(req, facts);
    expect(JSON.stringify(req)).toBe(before);
    expect(built.contextJson).toContain('"tool_calls":[{"id":"c","function":{"arguments":{"a":1.0},"name":"f"},"type":"function"}]');
    expect(built.contextJson).toContain('"reasoning":"why","reasoning_content":"why"');
    // the same request renders the same context twice
    expect(buildTemplateContext(req, facts).contextJson).toBe(built.contextJson);
  });

  it('string and openai content formats of plain string content', () => {
    const req = { messages: [{ role: 'user', content: '' }, { role: 'user', content: 'x' }, { role: 'user', content: null }] };
    expect(buildTemplateContext(req, facts).contextJson).toContain(
      '"messages":[{"role":"user","content":""},{"role":"user","content":"x"},{"role":"user","content":""}]',
    );
    expect(buildTemplateContext(req, { ...facts, contentFormat: 'openai' }).contextJson).toContain(
      '"messages":[{"role":"user","content":[{"type":"text","text":""}]},{"role":"user","content":[{"type":"text","text":"x"}]},{"role":"user","content":[]}]',
    );
  });
});
