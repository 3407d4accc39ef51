/**
 * Reasoning parsers vLLM cannot run here (gpt-oss Harmony: vLLM parses it
 * from token ids with openai-harmony), with expected values written from
 * the Harmony specification, and the options vLLM does not have.
 */
import { describe, expect, it } from 'vitest';
import { ToolParseError } from '../../src/errors';
import { accumulateReasoning, createStreamingReasoningParser, parseReasoning } from '../../src/parsers/reasoning';
import type { ReasoningOptions, ReasoningResult } from '../../src/parsers/reasoning';
import { CHUNKINGS } from './harness';

function check(text: string, o: ReasoningOptions, expected: ReasoningResult): void {
  expect(parseReasoning(text, o)).toEqual(expected);
  for (const c of CHUNKINGS) {
    const p = createStreamingReasoningParser(o);
    const deltas = c.split(text).map((s) => p.push(s));
    deltas.push(p.end());
    expect(accumulateReasoning(deltas), c.label).toEqual(expected);
  }
}

const A = '<|channel|>analysis<|message|>';
const F = '<|start|>assistant<|channel|>final<|message|>';

describe('openai (Harmony, from the specification)', () => {
  const o = { parser: 'openai_gptoss' };
  it('analysis is reasoning, final is content', () =>
    check(`${A}Think about it.<|end|>${F}It is 4.<|return|>`, o, { reasoning: 'Think about it.', content: 'It is 4.' }));
  it('several analysis messages are joined with a newline', () =>
    check(`${A}one<|end|><|start|>assistant<|channel|>analysis<|message|>two<|end|>${F}x<|return|>`, o, { reasoning: 'one\ntwo', content: 'x' }));
  it('commentary without a recipient is content', () =>
    check(`<|channel|>commentary<|message|>Let me check.<|end|>${F}Done.<|return|>`, o, { reasoning: null, content: 'Let me check.\nDone.' }));
  it('a function call is passed on as written for the tool-call parser', () => {
    const call = '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Paris"}<|call|>';
    check(`${A}Need weather.<|end|>${call}`, o, { reasoning: 'Need weather.', content: call });
  });
  it('a built-in tool call is dropped', () =>
    check(`${A}r<|end|><|start|>assistant<|channel|>commentary to=browser.search<|message|>{"q": 1}<|call|>`, o, { reasoning: 'r', content: null }));
  it('output without any header is content', () => check('Just text.', o, { reasoning: null, content: 'Just text.' }));
  it('an unfinished analysis message is reasoning', () => check(`${A}still going`, o, { reasoning: 'still going', content: null }));
  it('aliases openai and gpt-oss', () => {
    for (const parser of ['openai', 'gpt-oss']) check(`${A}r<|end|>${F}c<|return|>`, { parser }, { reasoning: 'r', content: 'c' });
  });
});

describe('promptEndsInReasoning', () => {
  it('false: deepseek_r1 output is content until <think>', () =>
    check('Hi <think>t</think>c', { parser: 'deepseek_r1', promptEndsInReasoning: false }, { reasoning: 't', content: 'Hi c' }));
  it('false: qwen3 output without tags is content', () =>
    check('plain answer', { parser: 'qwen3', promptEndsInReasoning: false }, { reasoning: null, content: 'plain answer' }));
  it('true: mistral output is reasoning until [/THINK]', () =>
    check('t[/THINK]c', { parser: 'mistral', promptEndsInReasoning: true }, { reasoning: 't', content: 'c' }));
  it('true: gemma4 output is reasoning until <channel|>, the channel name dropped', () =>
    check('thought\nplan<channel|>answer', { parser: 'gemma4', promptEndsInReasoning: true }, { reasoning: 'plan', content: 'answer' }));
  it('undefined: vLLM default (qwen3 starts in reasoning)', () =>
    check('plain answer', { parser: 'qwen3' }, { reasoning: 'plain answer', content: null }));
});

describe('streaming contract', () => {
  it('holds a possible tag prefix back', () => {
    const p = createStreamingReasoningParser({ parser: 'deepseek_r1' });
    expect(p.push('abc</th')).toEqual({ reasoning: 'abc' });
    expect(p.push('ink>x')).toEqual({ content: 'x' });
    expect(p.end()).toEqual({});
  });
  it('rejects push after end and unknown names', () => {
    const p = createStreamingReasoningParser({ parser: 'qwen3' });
    p.end();
    expect(() => p.push('x')).toThrow(ToolParseError);
    expect(() => parseReasoning('x', { parser: 'nope' })).toThrow(/Unknown reasoning parser "nope"/);
  });
});
