/** renderChatAsync renders off the event loop and agrees with the sync API under heavy concurrency. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderChat, renderChatAsync, ToolArgumentsError, type RenderChatOptions } from '../../src';

const root = path.join(__dirname, '..', '..');
const templatesDir = process.env.NODE_VLLM_CPP_TEMPLATES ?? path.join(root, '..', 'shared', 'templates');
const example = JSON.parse(fs.readFileSync(path.join(root, 'examples', 'tool-loop.json'), 'utf8'));

const templates: [string, string][] = [['example', path.join(root, 'examples', 'chat_template.jinja')]];
for (const f of ['gemma4__official_v4.jinja', 'qwen3__official.jinja']) {
  if (fs.existsSync(path.join(templatesDir, f))) templates.push([f, path.join(templatesDir, f)]);
}

// 1,000 distinct requests: vary the user text and the tool arguments.
function requestN(i: number): unknown {
  const r = structuredClone(example);
  r.messages[1].content = `Request #${i}: what is the date?`;
  r.messages[2].tool_calls[0].function.arguments = JSON.stringify({ command: `date +%s # ${i}`, n: i, f: i + 0.5 });
  return r;
}

describe('renderChatAsync', () => {
  for (const [name, templatePath] of templates) {
    it(`1000 concurrent renders equal the sync results (${name})`, async () => {
      const opts: RenderChatOptions = { templatePath, bosToken: '<bos>', eosToken: '<eos>', now: '2026-01-15T10:30:00' };
      const requests = Array.from({ length: 1000 }, (_, i) => requestN(i));
      const sync = requests.map((r) => renderChat(r, opts).prompt);
      const asyncResults = await Promise.all(requests.map((r) => renderChatAsync(r, opts)));
      expect(asyncResults.map((r) => r.prompt)).toEqual(sync);
      expect(new Set(sync).size).toBe(1000);
      expect(sync[7]).toContain('Request #7');
    });
  }

  it('rejects with the same typed error as the sync API', async () => {
    const r = structuredClone(example);
    r.messages[2].tool_calls[0].function.arguments = '{"command": "date"';
    const opts: RenderChatOptions = { templatePath: templates[0][1] };
    expect(() => renderChat(r, opts)).toThrow(ToolArgumentsError);
    await expect(renderChatAsync(r, opts)).rejects.toBeInstanceOf(ToolArgumentsError);
  });
});
