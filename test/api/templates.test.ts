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

  it('a bare chat_template.jinja takes its special tokens from tokenizer_config.json beside it', () => {
    const d = path.join(dir, 'bare');
    const tpl = write(path.join(d, 'chat_template.jinja'), '{{ bos_token }}{{ messages[0].content }}{{ eos_token }}');
    write(path.join(d, 'tokenizer_config.json'), JSON.stringify({ bos_token: { content: '<bos>', special: true }, eos_token: '<eos>' }));
    const r = renderChat(req, { templatePath: tpl });
    expect(r.prompt).toBe('<bos>hi<eos>');
    expect(r.warnings).toEqual([]);
    expect(renderChat(req, { templatePath: tpl, bosToken: '[B]' }).prompt).toBe('[B]hi<eos>');
  });

  it('special_tokens_map.json overrides tokenizer_config.json for legacy tokenizers (no added_tokens_decoder), as transformers 5.24 loads them', () => {
    const legacy = path.join(dir, 'legacy');
    const tpl = write(path.join(legacy, 'chat_template.jinja'), '{{ bos_token }}|{{ eos_token }}|{{ pad_token }}');
    write(path.join(legacy, 'tokenizer_config.json'), JSON.stringify({ bos_token: '<cfg-bos>', eos_token: '<cfg-eos>' }));
    write(path.join(legacy, 'special_tokens_map.json'), JSON.stringify({ bos_token: { content: '<map-bos>', lstrip: false }, pad_token: '<pad>' }));
    expect(renderChat(req, { templatePath: tpl }).prompt).toBe('<map-bos>|<cfg-eos>|<pad>');
    expect(renderChat(req, { templatePath: legacy }).prompt).toBe('<map-bos>|<cfg-eos>|<pad>');
    // with added_tokens_decoder the map file is not read
    const modern = path.join(dir, 'modern');
    write(path.join(modern, 'chat_template.jinja'), '{{ bos_token }}|{{ eos_token }}');
    write(path.join(modern, 'tokenizer_config.json'), JSON.stringify({ bos_token: '<cfg-bos>', eos_token: '<cfg-eos>', added_tokens_decoder: {} }));
    write(path.join(modern, 'special_tokens_map.json'), JSON.stringify({ bos_token: '<map-bos>' }));
    expect(renderChat(req, { templatePath: modern }).prompt).toBe('<cfg-bos>|<cfg-eos>');
    // a lone special_tokens_map.json beside a bare template is read too
    const mapOnly = path.join(dir, 'map-only');
    const t2 = write(path.join(mapOnly, 'template.jinja'), '{{ bos_token }}');
    write(path.join(mapOnly, 'special_tokens_map.json'), JSON.stringify({ bos_token: '<s>' }));
    expect(renderChat(req, { templatePath: t2 }).prompt).toBe('<s>');
  });

  it('a model directory holding only chat_template.json (a processor template) is accepted', () => {
    const d = path.join(dir, 'processor');
    const file = write(path.join(d, 'chat_template.json'), JSON.stringify({ chat_template: 'P:{{ messages[0].content }}{{ eos_token }}' }));
    expect(renderChat(req, { templatePath: d, eosToken: '</s>' }).prompt).toBe('P:hi</s>');
    expect(loadTemplateFromPath(d).origin).toBe(file);
    expect(renderChat(req, { templatePath: file, eosToken: '</s>' }).prompt).toBe('P:hi</s>');
    // a tokenizer_config.json without a chat_template does not hide it, and lends its tokens
    write(path.join(d, 'tokenizer_config.json'), JSON.stringify({ eos_token: '<eos>' }));
    expect(renderChat(req, { templatePath: d }).prompt).toBe('P:hi<eos>');
    // the tokenizer's own template comes first
    write(path.join(d, 'tokenizer_config.json'), JSON.stringify({ eos_token: '<eos>', chat_template: 'T:{{ eos_token }}' }));
    expect(renderChat(req, { templatePath: d }).prompt).toBe('T:<eos>');
  });

  it('warns when the template reads bos_token/eos_token and none was given (they render as empty strings)', () => {
    const r = renderChat(req, { template: '{{ bos_token }}{{ messages[0].content }}{{ eos_token }}' });
    expect(r.prompt).toBe('hi');
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toMatch(/^the template reads bos_token but none was given.*bosToken/);
    expect(r.warnings[1]).toMatch(/^the template reads eos_token but none was given.*eosToken/);
    expect(renderChat(req, { template: '{{ bos_token }}x', bosToken: '' }).warnings).toEqual([]);
    expect(renderChat(req, { template: '{{ messages[0].content }}' }).warnings).toEqual([]);
  });

  it('renderChat needs a template', () => {
    expect(() => renderChat(req, {})).toThrow(TemplateLoadError);
  });
});
