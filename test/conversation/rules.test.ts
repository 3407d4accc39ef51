import { describe, expect, it } from 'vitest';
import { buildTemplateContext, cutContinueFinal, mergeKwargs, parsePyJson } from '../../src/conversation';
import { RequestValidationError, ToolArgumentsError } from '../../src/errors';

const facts = { contentFormat: 'string' as const, undeclaredVariables: new Set(['messages', 'tools']) };
const call = (args: string) => ({ id: 'c', type: 'function', function: { name: 'f', arguments: args } });

describe('rules', () => {
  it('malformed arguments -> ToolArgumentsError with path and Python reason', () => {
    const req = { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call('{"a": ')] }] };
    try {
      buildTemplateContext(req, facts);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ToolArgumentsError);
      expect((e as ToolArgumentsError).path).toBe('messages[1].tool_calls[0].function.arguments');
      expect((e as ToolArgumentsError).reason).toBe('Expecting value: line 1 column 7 (char 6)');
    }
  });
  it('schema errors name the JSON path', () => {
    const req = { messages: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }, { role: 'user', content: [{ type: 'text', text: 5 }] }] };
    expect(() => buildTemplateContext(req, facts)).toThrow('messages[2].content[0].text: Expected string, received number');
  });
  it('media parts are rejected clearly', () => {
    const req = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }] };
    expect(() => buildTemplateContext(req, facts)).toThrow(RequestValidationError);
    expect(() => buildTemplateContext(req, facts)).toThrow(/messages\[0\]\.content\[0\].*media/);
  });
  it('options override the request and bind special tokens', () => {
    const built = buildTemplateContext({ messages: [{ role: 'user', content: 'x' }] }, facts, {
      addGenerationPrompt: false,
      specialTokens: { bos_token: '<s>', unk_token: '' },
    });
    const ctx = parsePyJson(built.contextJson) as Record<string, unknown>;
    expect(ctx['add_generation_prompt']).toBe(false);
    expect(ctx['bos_token']).toBe('<s>');
    expect('unk_token' in ctx).toBe(false);
    expect(built.templateVariables).toEqual(['messages', 'tools', 'documents', 'add_generation_prompt', 'bos_token']);
  });
  it('merge_kwargs drops None and "auto" overrides', () => {
    const m = mergeKwargs(new Map<string, unknown>([['a', 1], ['b', 2]]), new Map<string, unknown>([['a', null], ['b', 'auto'], ['c', 0]]));
    expect([...m]).toEqual([['a', 1], ['b', 2], ['c', 0]]);
  });
  it('continue-final cut: trimmed spacing falls back to rstrip', () => {
    const state = { tag: 'CONTINUE_FINAL_MESSAGE_TAG ', finalText: 'Hello ' };
    expect(cutContinueFinal('<a>Hello CONTINUE_FINAL_MESSAGE_TAG</a>', state)).toBe('<a>Hello');
    expect(cutContinueFinal('<a>Hello CONTINUE_FINAL_MESSAGE_TAG </a>', state)).toBe('<a>Hello ');
    expect(() => cutContinueFinal('<a></a>', state)).toThrow(/does not appear/);
  });
});
