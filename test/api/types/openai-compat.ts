// Type-checked by test/api/types.test.ts (tsc --strict): the official openai
// package's request types are accepted by renderChat as they are.
import type OpenAI from 'openai';
import { parseToolCalls, createStreamingToolParser, renderChat, renderChatAsync, type ChatRequest, type ChatTool } from 'node-vllm-cpp';

const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'terminal', description: 'Run a shell command', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
  },
  { type: 'custom', custom: { name: 'grammar_tool', description: 'free-form input' } },
];

const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
  { role: 'developer', content: 'Be brief.' },
  { role: 'system', content: [{ type: 'text', text: 'You are a helpful assistant.' }] },
  { role: 'user', content: [{ type: 'text', text: 'What is the date?' }, { type: 'image_url', image_url: { url: 'data:,' } }] },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'terminal', arguments: '{"command": "date"}' } },
      { id: 'call_2', type: 'custom', custom: { name: 'grammar_tool', input: 'x' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: 'Wed Jan 15' },
  { role: 'function', name: 'terminal', content: 'old-style result' },
];

const params: OpenAI.Chat.ChatCompletionCreateParams = { model: 'm', messages, tools, temperature: 0, stream: false };
const streaming: OpenAI.Chat.ChatCompletionCreateParamsStreaming = { model: 'm', messages, stream: true };

renderChat(params, { template: '' });
renderChat(streaming, { template: '' });
void renderChatAsync(params, { template: '' });
// inline, with fields the renderer ignores
renderChat({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools, max_tokens: 5 }, { template: '' });
// raw text
renderChat('{"messages": []}', { template: '' });

// our own types accept openai's values, and openai's request accepts ours
const ours: ChatRequest = { messages, tools };
const ourTools: ChatTool[] = tools;
renderChat(ours, { template: '' });
void ourTools;

// the same openai tools go to the parsers, and so do ours
parseToolCalls('', { parser: 'hermes', tools });
createStreamingToolParser({ parser: 'gemma4', tools: ourTools });
