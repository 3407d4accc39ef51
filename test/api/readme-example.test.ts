/** The README's Gemma 4 tool loop, run as written (render -> parse -> append -> render). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { parseToolCalls, renderChat, type ChatMessage, type ChatTool } from '../../src';
import { goldenDirs } from '../../src/golden/suite';

const templatePath = path.join(goldenDirs().templates, 'gemma4__official_v4.jinja');

it.skipIf(!fs.existsSync(templatePath))('README Gemma 4 tool loop', () => {
  // declared exactly as in the README (test/api/types.test.ts type-checks the README itself)
  const tools: ChatTool[] = [{ type: 'function', function: {
    name: 'terminal', description: 'Run a shell command',
    parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
  } }];
  const messages: ChatMessage[] = [{ role: 'user', content: 'What is the date on the server?' }];

  let { prompt } = renderChat({ messages, tools }, { templatePath });
  expect(prompt).toContain('<|tool>declaration:terminal');

  const output = '<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|>';
  const { content, tool_calls } = parseToolCalls(output, { parser: 'gemma4', tools });
  expect(tool_calls).toHaveLength(1);
  expect(tool_calls[0].function).toEqual({ name: 'terminal', arguments: '{"command": "date"}' });

  messages.push({ role: 'assistant', content, tool_calls });
  messages.push({ role: 'tool', tool_call_id: tool_calls[0].id, content: 'Wed Jan 15 10:30:00 UTC 2026' });
  ({ prompt } = renderChat({ messages, tools }, { templatePath }));
  expect(prompt).toContain('<|tool_call>call:terminal{command:<|"|>date<|"|>}<tool_call|>');
  expect(prompt).toContain('Wed Jan 15 10:30:00 UTC 2026');
});
