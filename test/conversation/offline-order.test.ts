/**
 * Tool-call key order on vLLM's two paths. Expected prompts from pinned vLLM
 * 0.25.0 (test/conversation/offline-order.gen.py): a request whose tool calls
 * only the offline LLM.chat path accepts (object / null / missing arguments,
 * no type) reaches the template in the caller's key order and without the
 * reasoning_content -> reasoning rename; a plain HTTP request is rebuilt by
 * pydantic into the declared order and renamed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePyJson, serializePyJson } from '../../src/protocol/pyjson';
import { usesOfflineToolCalls } from '../../src/conversation';
import { renderChat } from '../../src/render';

interface Vector {
  id: string;
  api: 'offline' | 'http';
  template: string;
  request: { messages: unknown[] };
  prompt: string;
}

const doc = parsePyJson(readFileSync(join(__dirname, 'offline-order.json'), 'utf8')) as unknown as {
  versions: { vllm: string };
  vectors: Vector[];
};

describe('tool-call key order and reasoning match vLLM 0.25.0 on its offline and HTTP paths', () => {
  it('vectors come from the pinned vLLM', () => {
    expect(doc.versions.vllm).toBe('0.25.0');
    expect(doc.vectors.length).toBeGreaterThanOrEqual(65);
  });
  for (const v of doc.vectors) {
    it(`${v.api} ${v.id}`, () => {
      expect(usesOfflineToolCalls(v.request.messages)).toBe(v.api === 'offline');
      const opts = { template: v.template, bosToken: '<s>', eosToken: '</s>' };
      expect(renderChat(v.request, opts).prompt).toBe(v.prompt);
      // the raw request text takes the same path
      expect(renderChat(serializePyJson(v.request), opts).prompt).toBe(v.prompt);
    });
  }

  it('does not reorder or mutate the caller\'s tool-call objects', () => {
    const fn = { name: 'f', arguments: null };
    const call = { id: 'c1', type: 'function', function: fn };
    const req = { messages: [{ role: 'user', content: 'x' }, { role: 'assistant', content: null, tool_calls: [call] }] };
    const r = renderChat(req, { template: '{{ messages[1].tool_calls[0].function|tojson }}' });
    expect(r.prompt).toBe('{"name": "f", "arguments": {}}');
    expect(fn.arguments).toBeNull();
    expect(Object.keys(call)).toEqual(['id', 'type', 'function']);
  });
});
