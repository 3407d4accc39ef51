/**
 * A raw-text request that continues a recent conversation reuses the
 * messages built for it (conversation/history). Whatever the sequence of
 * requests, every result and every error must be those of a build from
 * scratch (renderChat with the reuse switched off; that path is the one the
 * golden suite checks against pinned vLLM), and nothing a caller gets back
 * may be shared with later requests.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compileTemplate, renderChat, type RenderChatOptions } from '../../src';
import { buildContextKeeping, decodeRequest, NotReusable, RecentConversations } from '../../src/conversation';
import { memberArraySpan } from '../../src/protocol/json-spans';
import { serializePyJson } from '../../src/protocol/pyjson';
import { plannedRequests, recentConversations } from '../../src/render';
import { renderOutcome as outcome } from '../support/render-outcome';
import { rng } from '../support/random';

// Every message as the template sees it (keys, order, Python types via tojson), and the tools.
const SEES =
  "{%- for m in messages %}<{{ m.role }}>{{ m | tojson }}{% if m.content is none %}(none){% endif %}{% if m.tool_calls %}{% for c in m.tool_calls %}[{{ c.function.arguments is mapping }}]{% endfor %}{% endif %}\n{%- endfor %}" +
  '{%- if tools %}TOOLS {{ tools | tojson }}{% endif %}{% if add_generation_prompt %}<gen>{% endif %}[{{ bos_token }}|{{ x }}|{{ documents }}]';
const TEMPLATES = [compileTemplate(SEES), compileTemplate(`{#- handles "developer" itself -#}${SEES}`)];

type Msg = Record<string, unknown>;

/** One random message; some of them take the paths the reuse must refuse or carry over. */
function message(rand: () => number, i: number): Msg {
  const pick = Math.floor(rand() * 28);
  const text = ['plain', 'caf\u00e9 \u2603', 'quote " and \\ backslash', 'emoji \ud83d\ude00', 'line\nbreak', '{"messages": []}'][Math.floor(rand() * 6)]!;
  switch (pick) {
    case 0:
      return { role: 'system', content: `sys ${i} ${text}` };
    case 1:
      return { role: 'developer', content: `dev ${i}` };
    case 2:
      return { role: 'user', content: [{ type: 'text', text: `part ${i}` }, { type: 'text', text }] };
    case 3:
      return { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: `{"x": 1.0, "n": ${i}, "big": 123456789012345678901}` } }] };
    case 4:
      return { role: 'assistant', content: 'thinking', reasoning_content: `why ${i}` };
    case 5:
      return { role: 'tool', tool_call_id: `c${i}`, content: `result ${i} ${text}` };
    case 6:
      // only vLLM's offline path takes this shape
      return { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, function: { arguments: { x: i }, name: 'g' } }] };
    case 7:
      // invalid arguments: an error under the strict policy, a warning under the lenient one
      return { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: '{"x": ' } }] };
    case 8:
      return { role: 'user', content: `lone surrogate \ud800 ${i}` };
    case 9:
      return { role: 'user', content: `with none ${i}`, name: null };
    case 10:
      return { role: 'assistant', content: `ok ${i}`, tool_calls: [] };
    case 11:
      return { role: 'user', content: 42 };
    case 12:
      return { role: 'custom_role', content: `custom ${i}` };
    case 13:
      return { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: `{"2": "b", "1": "a", "f": -0.0, "e": 1e400}` } }] };
    case 14:
      return { role: 'tool', tool_call_id: `c${i}`, name: 'f', content: '' };
    case 15:
      // arguments that decode to a list (the strict policy takes it as it is) or to null
      return { role: 'assistant', content: null, tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: rand() < 0.5 ? '[1, 2]' : 'null' } }] };
    case 16:
      // strings that look like the planned path's slot markers, in text and in arguments
      return { role: 'assistant', content: '{"\\u0000abc":0}', tool_calls: [{ id: '{"\\u0000":1}', type: 'function', function: { name: 'f', arguments: '{"\\u0000abc": 0}' } }] };
    case 17:
      return { role: 'assistant', content: '', tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'f', arguments: '' } }], reasoning: `r ${i}` };
    case 18:
      // arguments with a lone surrogate escape, and a key order of their own
      return { role: 'assistant', content: null, tool_calls: [{ function: { arguments: `{"s": "\\ud800 ${i}"}`, name: 'f' }, type: 'function', id: `c${i}` }] };
    case 19:
      return { content: `content first ${i}`, role: 'user', extra: { n: 1.5, i: 10, name: `n ${i}` } };
    default:
      return { role: rand() < 0.5 ? 'user' : 'assistant', content: `${text} ${i}` };
  }
}

/** The request text for `messages`, in one of the spellings clients and hand-written bodies use. */
function requestText(messages: Msg[], rand: () => number): string {
  const tools = [{ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { x: { type: 'number' } } } } }];
  const m = JSON.stringify(messages);
  const forms = [
    () => JSON.stringify({ model: 'm', messages, tools }),
    () => JSON.stringify({ messages, tools, temperature: 0.5 }),
    () => JSON.stringify({ tools, model: 'm', messages }),
    () => JSON.stringify({ model: 'm', messages }, null, 1),
    () => `{"model": "m", "messages": ${m}, "messages": ${m}}`,
    () => `{"model": "m", "m\\u0065ssages": ${m}}`,
    () => `{"model": "m", "messages": ${m}, "messages": [{"role": "user", "content": "other"}]}`,
    () => `{"model": "m", "messages": ${m}, "add_generation_prompt": false, "continue_final_message": true}`,
    () => `{"model": "m", "messages": ${m}, "chat_template_kwargs": {"x": 1.0}}`,
    () => `{"model": "m", "messages": ${m}, "tools": []}`,
    () => `{"model": "m", "messages": ${m}} trailing`,
    () => `{"model": "m", "messages": ${m}, "temperature": ${Math.floor(rand() * 3)}}`,
    () => `{"model": "m", "messages": ${m}, "documents": [{"title": "t", "text": "d"}]}`,
    () => `{"model": "m", "messages": ${m.slice(0, -1)}, 1.0, {"role": "user", "content": "1.0"}]}`,
  ];
  // mostly the plain spellings, so that conversations get continued
  const i = rand() < 0.7 ? Math.floor(rand() * 4) : Math.floor(rand() * forms.length);
  const text = forms[i]!();
  // now and then a lone surrogate as the caller's string holds it, unescaped (and U+FFFD, what it becomes as UTF-8)
  const r = rand();
  return r < 0.1 ? text.replaceAll('\\ud800', '\ud800') : r < 0.15 ? text.replaceAll('\\ud800', '\ufffd') : text;
}


function reference(text: string, options: RenderChatOptions): unknown {
  recentConversations.enabled = false;
  try {
    return outcome(text, options);
  } finally {
    recentConversations.enabled = true;
  }
}

afterEach(() => {
  recentConversations.enabled = true;
  recentConversations.clear();
  plannedRequests.enabled = true;
});

/**
 * Random conversations (`count`), each rendered turn by turn with random
 * options and spellings, every result compared with a build from scratch.
 * Returns how many renders were compared.
 */
function compareSequences(seed: number, count: number): number {
  const rand = rng(seed);
  let compared = 0;
  for (let conv = 0; conv < count; conv++) {
    const messages: Msg[] = [];
    const plainOnly = rand() < 0.5; // half the conversations stay in the plain case throughout
    const turns = 3 + Math.floor(rand() * 10);
    for (let t = 0; t < turns; t++) {
      const add = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < add; k++) messages.push(plainOnly ? { role: k % 2 ? 'assistant' : 'user', content: `m ${messages.length} \u00e9` } : message(rand, messages.length));
      // sometimes an earlier message is changed (the client edits its history) or the last turn is dropped
      if (rand() < 0.1 && messages.length > 2) messages[Math.floor(rand() * messages.length)] = message(rand, 99);
      if (rand() < 0.05 && messages.length > 3) messages.splice(-2);
      const options: RenderChatOptions = {
        template: rand() < 0.9 ? TEMPLATES[rand() < 0.8 ? 0 : 1]! : SEES,
        policy: rand() < 0.8 ? 'strict' : 'lenient',
        contentFormat: rand() < 0.8 ? 'auto' : rand() < 0.5 ? 'openai' : 'string',
        now: '2026-01-01T00:00:00',
      };
      if (rand() < 0.15) options.bosToken = rand() < 0.5 ? '<s>' : '';
      if (rand() < 0.15) options.chatTemplateKwargs = rand() < 0.5 ? { x: 1 } : { x: 'two', y: [1.5] };
      if (rand() < 0.1) options.addGenerationPrompt = rand() < 0.5;
      const text = requestText(messages, rand);
      const repeats = rand() < 0.2 ? 2 : 1;
      for (let r = 0; r < repeats; r++) {
        expect(outcome(text, options), `conversation ${conv}, turn ${t}: ${text.slice(0, 200)}`).toEqual(reference(text, options));
        compared++;
      }
    }
  }
  return compared;
}

describe('reuse of the messages of a continued conversation', () => {
  // (these count the requests the reuse takes: without planned messages, which would take the first of each conversation)
  beforeEach(() => {
    plannedRequests.enabled = false;
  });

  it('renders what a build from scratch renders, for any sequence of requests', () => {
    recentConversations.clear();
    const before = recentConversations.reusedRequests;
    const nextBefore = recentConversations.nextTurns;
    const compared = compareSequences(2026, 60);
    expect(compared).toBeGreaterThan(300);
    // the sequences do exercise the reuse
    expect(recentConversations.reusedRequests - before).toBeGreaterThan(80);
    // and the next-turn path, which takes the rest of the context from the kept request too
    expect(recentConversations.nextTurns - nextBefore).toBeGreaterThan(40);
  });

  it('gives each caller its own messages and tools', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00' };
    const messages: Msg[] = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }];
    const first = renderChat(requestText(messages, () => 0), options);
    (first.messages[0] as Msg).content = 'changed';
    (first.messages as unknown[]).push({ role: 'user', content: 'pushed' });
    (first.tools![0] as Msg).type = 'changed';
    messages.push({ role: 'user', content: 'c' });
    const text = requestText(messages, () => 0);
    const before = recentConversations.reusedRequests;
    const second = renderChat(text, options);
    expect(recentConversations.reusedRequests).toBe(before + 1);
    expect(second.prompt).toBe((reference(text, options) as { prompt: string }).prompt);
    expect(second.messages).toEqual([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }]);
    expect(second.messages[0]).not.toBe(first.messages[0]);
    // the lazily made copies read and spread like plain members
    expect(Object.keys(second)).toEqual(['prompt', 'messages', 'tools', 'contentFormat', 'warnings', 'templateHash', 'backend']);
    expect(JSON.parse(JSON.stringify({ ...second })).messages).toHaveLength(3);
  });

  it('reports lenient-policy notes and continue_final_message on new messages as a fresh build does', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00', policy: 'lenient' };
    const messages: Msg[] = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }];
    renderChat(JSON.stringify({ messages }), options);
    messages.push(message(() => 7 / 28, 3), { role: 'assistant', content: 'partial' });
    for (const text of [JSON.stringify({ messages }), JSON.stringify({ messages, add_generation_prompt: false, continue_final_message: true })]) {
      const got = outcome(text, options) as { warnings: string[] };
      expect(got).toEqual(reference(text, options));
      expect(got.warnings.filter((w) => w.startsWith('messages'))).toEqual([expect.stringMatching(/^messages\[3\]\.tool_calls\[0\]\.function\.arguments: invalid JSON/)]);
    }
  });

  it('gives its own messages to a continue_final_message request built on kept ones', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00' };
    const messages: Msg[] = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }];
    renderChat(JSON.stringify({ messages }), options);
    messages.push({ role: 'assistant', content: 'partial' });
    const before = recentConversations.reusedRequests;
    const cont = renderChat(JSON.stringify({ messages, add_generation_prompt: false, continue_final_message: true }), options);
    expect(recentConversations.reusedRequests).toBe(before + 1);
    (cont.messages[0] as Msg).content = 'changed';
    messages.push({ role: 'user', content: 'd' });
    const text = JSON.stringify({ messages });
    expect(outcome(text, options)).toEqual(reference(text, options));
  });

  it('keeps and reuses nothing with reuseConversation: false', () => {
    const on: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00' };
    const off: RenderChatOptions = { ...on, reuseConversation: false };
    const messages: Msg[] = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }];
    const before = recentConversations.reusedRequests;
    renderChat(JSON.stringify({ messages }), off);
    messages.push({ role: 'user', content: 'c' });
    const text = JSON.stringify({ messages });
    expect(renderChat(text, off).prompt).toBe(renderChat(text, on).prompt);
    expect(recentConversations.reusedRequests).toBe(before);
    messages.push({ role: 'assistant', content: 'd' });
    renderChat(JSON.stringify({ messages }), on);
    expect(recentConversations.reusedRequests).toBe(before + 1);
  });

  it('is not taken by a build without transformers normalisation', () => {
    const history = new RecentConversations();
    const facts = { contentFormat: 'string' as const, undeclaredVariables: new Set(['messages']) };
    const messages: Msg[] = [{ role: 'tool', content: 'a', tool_call_id: null }];
    const first = JSON.stringify({ messages });
    const built = buildContextKeeping(decodeRequest(first, { history }), facts, {}, true);
    history.keep(first, built.messages!);
    messages.push({ role: 'assistant', content: 'b' });
    const decoded = decodeRequest(JSON.stringify({ messages }), { history });
    expect(decoded.reused?.count).toBe(1);
    expect(() => buildContextKeeping(decoded, facts, { transformersNormalization: false }, true)).toThrow(NotReusable);
    expect(buildContextKeeping(decoded, facts, {}, true).built.contextJson).toContain('"messages":[{"role":"tool","content":"a"},');
  });

  it('builds a next turn from its new messages alone only where a full build accepts them', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00', bosToken: '<s>' };
    const start: Msg[] = [{ role: 'system', content: 's' }, { role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }];
    const plainTools = [{ type: 'function', function: { name: 'f' } }];
    // (a surrogate pair anywhere in the tools keeps them from being shared between requests)
    const pairTools = [{ type: 'function', function: { name: 'emoji \ud83d\ude00' } }];
    const cases: Array<[string, Msg, unknown[]]> = [
      ['a plain new message', { role: 'user', content: 'c' }, plainTools],
      ['a lone surrogate', { role: 'user', content: 'lone \ud800' }, plainTools],
      ['a name that is not a string', { role: 'user', content: 'c', name: 5 }, plainTools],
      ['tools that are not shared between requests', { role: 'user', content: 'c' }, pairTools],
    ];
    let next = recentConversations.nextTurns;
    for (const [what, added, tools] of cases) {
      recentConversations.clear();
      const toolsText = JSON.stringify(tools);
      const first = `{"messages": ${JSON.stringify(start)}, "tools": ${toolsText}}`;
      renderChat(first, options);
      const second = `{"messages": ${JSON.stringify([...start, added])}, "tools": ${toolsText}}`;
      expect(outcome(second, options), what).toEqual(reference(second, options));
      if (what === 'a plain new message') expect(recentConversations.nextTurns, what).toBe(++next);
    }
  });

  it('never takes a stand-in a request spells for the reused messages', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00' };
    const messages: Msg[] = [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }];
    renderChat(JSON.stringify({ messages }), options);
    const forged = RecentConversations.standIn.replace(/[0-9a-f]{32}$/, '0'.repeat(32));
    const text = `{"messages": ${JSON.stringify(messages)}, "messages": [${JSON.stringify(forged)}, {"role": "user", "content": "x"}]}`;
    expect(outcome(text, options)).toEqual(reference(text, options));
  });

  it('bounds what it keeps', () => {
    const small = new RecentConversations(2, 1 << 20);
    const built = (n: number) => ({
      mode: { format: 'string' as const, policy: 'strict' as const, offline: false },
      objects: Array.from({ length: n }, () => ({})),
      json: Array.from({ length: n }, () => '{}').join(','),
      offlineAt: -1,
      developerAt: -1,
    });
    const text = (tag: string) => `{"messages": [{"t": "${tag}"}, {}]}`;
    for (const tag of ['a', 'b', 'c']) small.keep(text(tag), built(2));
    expect(small.find(text('a'))).toBeUndefined();
    expect(small.find(text('c'))?.count).toBe(2);
    // a text over a quarter of the budget is not kept
    small.keep(`{"messages": [{"t": "${'x'.repeat(300_000)}"}]}`, built(1));
    expect(small.find(`{"messages": [{"t": "${'x'.repeat(300_000)}"}]}`)).toBeUndefined();
  });
});

describe('memberArraySpan', () => {
  it('finds where each item of the member lies, in any spelling', () => {
    const rand = rng(7);
    const values = [1, -2.5e10, 'a"b\\', '\\', '', null, true, false, { a: [1, { b: '}' }] }, [[], {}, ['x']], 'quote \\" done'];
    for (let n = 0; n < 500; n++) {
      const items = Array.from({ length: Math.floor(rand() * 6) }, () => values[Math.floor(rand() * values.length)]);
      const space = [undefined, 1, '\t', ' \n '][Math.floor(rand() * 4)];
      const before = rand() < 0.5 ? { model: 'x', tools: [{ messages: ['not this'] }] } : {};
      const text = JSON.stringify({ ...before, messages: items, after: { messages: 1 } }, null, space as never);
      const span = memberArraySpan(text, 'messages')!;
      expect(span.ends).toHaveLength(items.length);
      for (let i = 0; i < items.length; i++) expect(JSON.parse(`[${text.slice(span.open, span.ends[i])}]`)).toEqual(items.slice(0, i + 1));
      expect(text[span.close]).toBe(']');
    }
  });

  it('refuses duplicate or escaped spellings of the key and members that are not arrays', () => {
    expect(memberArraySpan('{"messages": [1], "messages": [2]}', 'messages')).toBeUndefined();
    expect(memberArraySpan('{"messages": [1], "m\\u0065ssages": [2]}', 'messages')).toBeUndefined();
    expect(memberArraySpan('{"messages": {"0": 1}}', 'messages')).toBeUndefined();
    expect(memberArraySpan('[{"messages": [1]}]', 'messages')).toBeUndefined();
    expect(memberArraySpan('{"m\\u0065ssages": [1]}', 'messages')?.ends).toEqual([20]);
  });
});

describe('planned messages (built natively from plans)', () => {
  it('renders what a build from scratch renders, for any single request', () => {
    const rand = rng(7);
    const rendered = plannedRequests.rendered;
    let compared = 0;
    for (let n = 0; n < 400; n++) {
      // a conversation of its own: its first message is new
      const messages: Msg[] = [{ role: 'user', content: `request ${n}` }];
      const count = Math.floor(rand() * 8);
      const plain = rand() < 0.4;
      for (let k = 0; k < count; k++) messages.push(plain ? { role: k % 2 ? 'user' : 'assistant', content: `m ${k}` } : message(rand, k + 1));
      const options: RenderChatOptions = {
        template: TEMPLATES[rand() < 0.7 ? 0 : 1]!,
        policy: rand() < 0.8 ? 'strict' : 'lenient',
        contentFormat: rand() < 0.7 ? 'auto' : rand() < 0.5 ? 'openai' : 'string',
        now: '2026-01-01T00:00:00',
      };
      if (rand() < 0.2) options.chatTemplateKwargs = { x: 'kw' };
      let text = requestText(messages, rand);
      // a lone surrogate as the caller's string holds it (not escaped), in a first message that is always new
      if (rand() < 0.05) text = text.replace(`"request ${n}"`, `"request ${n} \ud800"`);
      expect(outcome(text, options), `request ${n}: ${text.slice(0, 300)}`).toEqual(reference(text, options));
      compared++;
    }
    expect(compared).toBe(400);
    // most requests do take the planned path
    expect(plannedRequests.rendered - rendered).toBeGreaterThan(150);
  });

  it('renders what a build from scratch renders, for any sequence of requests, with the reuse of continued conversations', () => {
    const rendered = plannedRequests.rendered;
    const reused = recentConversations.reusedRequests;
    expect(compareSequences(99, 40)).toBeGreaterThan(150);
    expect(plannedRequests.rendered - rendered).toBeGreaterThan(20);
    // an agent's next turn still takes the kept messages
    expect(recentConversations.reusedRequests - reused).toBeGreaterThan(20);
  });

  it('gives each caller its own messages and tools', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00' };
    const text = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'own 1' }], tools: [{ type: 'function', function: { name: 'f' } }] });
    const rendered = plannedRequests.rendered;
    const first = renderChat(text, options);
    expect(plannedRequests.rendered).toBe(rendered + 1);
    (first.messages[0] as Msg).content = 'changed';
    (first.tools![0] as Msg).type = 'changed';
    const second = renderChat(text.replace('own 1', 'own 2'), options);
    expect(plannedRequests.rendered).toBe(rendered + 2);
    expect(second.messages).toEqual([{ role: 'user', content: 'own 2' }]);
    const again = text.replace('own 1', 'own 2');
    expect(serializePyJson(second.tools)).toBe((reference(again, options) as { tools: string }).tools);
    expect(second.tools).not.toBe(first.tools);
    expect(Object.keys(second)).toEqual(['prompt', 'messages', 'tools', 'contentFormat', 'warnings', 'templateHash', 'backend']);
  });

  it('renders requests with many distinct message shapes, and shapes met again later in them', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00' };
    const rendered = plannedRequests.rendered;
    for (const count of [15, 16, 17, 40]) {
      const messages: Msg[] = [{ role: 'user', content: `many ${count}` }];
      // a literal that is not opaque makes a shape of its own; every fifth message repeats an earlier one
      for (let i = 1; i < count; i++) messages.push({ role: i % 2 ? 'assistant' : 'user', content: `m ${i}`, n: i % 5 === 0 ? 1 : i });
      const text = JSON.stringify({ model: 'm', messages });
      expect(outcome(text, options), `${count} messages`).toEqual(reference(text, options));
    }
    expect(plannedRequests.rendered - rendered).toBe(4);
  });

  it('takes a known shape\'s plan only for a message with the same keys, order, kinds and values outside its strings', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00' };
    const call = (args: string) => ({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: args } }] });
    // each one differs from the ones before it in one thing only; all of them are valid messages
    const variants: Msg[] = [
      { role: 'user', content: 'x', n: 1 },
      { role: 'user', name: 'x', n: 1 },
      { role: 'user', content: 'x', m: 1 },
      { role: 'user', n: 1, content: 'x' },
      { role: 'user', content: 'x', n: 2 },
      { role: 'user', content: 'x', n: 1.5 },
      { role: 'user', content: 'x', n: true },
      { role: 'user', content: 'x', n: '1' },
      { role: 'user', content: 'x', n: null },
      { role: 'user', content: 'x', n: [1] },
      { role: 'user', content: 'x', n: { a: 1 } },
      { role: 'user', content: '', n: 1 },
      { role: 'user', content: null, n: 1 },
      { role: 'user', content: [{ type: 'text', text: 'x' }], n: 1 },
      { role: 'assistant', content: 'x', n: 1 },
      call('{"a": 1}'),
      call('{"b": 1}'),
      call('[1]'),
    ];
    const rendered = plannedRequests.rendered;
    // every variant after every other, so that each one's shape is known when the others come
    for (let round = 0; round < 2; round++) {
      variants.forEach((v, i) => {
        const text = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `shape ${round} ${i}` }, v, { ...v }] });
        expect(outcome(text, options), text).toEqual(reference(text, options));
      });
    }
    // (a float integral value: the text alone spells it)
    const floatText = `{"model":"m","messages":[{"role":"user","content":"float"},{"role":"user","content":"x","n":1.0}]}`;
    expect(outcome(floatText, options)).toEqual(reference(floatText, options));
    expect(plannedRequests.rendered - rendered).toBeGreaterThan(20);
  });

  it('declines arguments nested past what the engine builds, and gives the usual path\'s result', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00' };
    for (const depth of [60, 990, 998, 1100]) {
      const args = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const messages: Msg[] = [
        { role: 'user', content: `deep ${depth}` },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: args } }] },
      ];
      const text = JSON.stringify({ model: 'm', messages });
      expect(outcome(text, options), `depth ${depth}`).toEqual(reference(text, options));
    }
  });

  it('takes an agent next turn on the kept messages, not on plans', () => {
    const options: RenderChatOptions = { template: TEMPLATES[0]!, now: '2026-01-01T00:00:00' };
    const messages: Msg[] = [{ role: 'system', content: 'a long enough system prompt for the request head to match' }, { role: 'user', content: 'first' }];
    const turn = () => JSON.stringify({ model: 'm', messages });
    const rendered = plannedRequests.rendered;
    const nextTurns = recentConversations.nextTurns;
    renderChat(turn(), options);
    messages.push({ role: 'assistant', content: 'one' }, { role: 'user', content: 'two' });
    renderChat(turn(), options);
    messages.push({ role: 'assistant', content: 'three' }, { role: 'user', content: 'four' });
    const third = renderChat(turn(), options);
    expect(plannedRequests.rendered).toBe(rendered + 1);
    expect(recentConversations.nextTurns).toBe(nextTurns + 1);
    expect(third.prompt).toBe((reference(turn(), options) as { prompt: string }).prompt);
  });
});
