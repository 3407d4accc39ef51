/** Locating templates like transformers: .jinja files, tokenizer_config.json, model directories. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTemplateFromPath, renderChat, TemplateLoadError, TemplateSyntaxError } from '../../src';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nvc-tpl-'));
const write = (p: string, text: string) => {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
};
const req = { messages: [{ role: 'user', content: 'hi' }] };
const withTools = { ...req, tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }] };

describe('template loading', () => {
  const listConfig = write(
    path.join(dir, 'list', 'tokenizer_config.json'),
    JSON.stringify({
      bos_token: { content: '<s>', lstrip: false },
      eos_token: '</s>',
      chat_template: [
        { name: 'default', template: 'D:{{ bos_token }}{{ messages[0].content }}{{ eos_token }}' },
        { name: 'tool_use', template: 'T:{{ tools|length }}' },
      ],
    }),
  );

  it('picks tool_use when tools are given, default otherwise, with the configured special tokens', () => {
    expect(renderChat(req, { templatePath: listConfig }).prompt).toBe('D:<s>hi</s>');
    expect(renderChat(withTools, { templatePath: listConfig }).prompt).toBe('T:1');
    expect(renderChat(req, { templatePath: path.dirname(listConfig), bosToken: '[B]' }).prompt).toBe('D:[B]hi</s>');
    // the same from raw request text; text that merely mentions "tools" is no tool list
    expect(renderChat(JSON.stringify(withTools), { templatePath: listConfig }).prompt).toBe('T:1');
    const mention = JSON.stringify({ messages: [{ role: 'user', content: '{"tools": [1]}' }] });
    expect(renderChat(mention, { templatePath: listConfig }).prompt).toBe('D:<s>{"tools": [1]}</s>');
  });

  it('a string chat_template is used as is; chat_template.jinja in a model directory wins', () => {
    const d = path.join(dir, 'model');
    write(path.join(d, 'tokenizer_config.json'), JSON.stringify({ chat_template: 'from-config', eos_token: '<eos>' }));
    expect(renderChat(req, { templatePath: path.join(d, 'tokenizer_config.json') }).prompt).toBe('from-config');
    write(path.join(d, 'chat_template.jinja'), 'from-jinja {{ eos_token }}\n');
    expect(renderChat(req, { templatePath: d }).prompt).toBe('from-jinja <eos>');
    expect(loadTemplateFromPath(d).origin).toBe(path.join(d, 'chat_template.jinja'));
  });

  it('clear errors for missing files, missing templates and bad syntax', () => {
    expect(() => renderChat(req, { templatePath: path.join(dir, 'nope.jinja') })).toThrow(TemplateLoadError);
    const noDefault = write(path.join(dir, 'nd', 'tokenizer_config.json'), JSON.stringify({ chat_template: [{ name: 'rag', template: 'x' }] }));
    expect(() => renderChat(req, { templatePath: noDefault })).toThrow(/none is "default"/);
    expect(() => renderChat(req, { templatePath: path.join(dir, 'empty') })).toThrow(TemplateLoadError);
    const bad = write(path.join(dir, 'bad.jinja'), 'line one\n{% for x in %}\n');
    let err: unknown;
    try {
      renderChat(req, { templatePath: bad });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemplateSyntaxError);
    expect((err as TemplateSyntaxError).line).toBe(2);
  });

  it('renderChat needs a template', () => {
    expect(() => renderChat(req, {})).toThrow(TemplateLoadError);
  });
});
