/**
 * Test vectors. Expected `arguments` strings are written by hand in the
 * bytes Python's `json.dumps(..., ensure_ascii=False)` produces (or the
 * model's own bytes where vLLM passes arguments through verbatim).
 * Vectors named like the research note (G1, D3, H5, ...) come from it.
 */
import type { ToolShape } from '../../src/parsers';

export interface Vector {
  name: string;
  parser: string;
  text: string;
  tools?: ToolShape[];
  content: string | null;
  /** [name, arguments] per call, in order. */
  calls: [string, string][];
}

const fn = (name: string, properties: Record<string, unknown>): ToolShape => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties } },
});
/** The Responses API `FunctionTool` shape: name/parameters at the top level. */
const resp = (name: string, properties: Record<string, unknown>): ToolShape => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties },
});

const Q = '<|"|>';
const TC = (body: string) => `<|tool_call>${body}<tool_call|>`;
const DS = '｜DSML｜';
const dsml = (wrapper: string, invokes: string) => `<${DS}${wrapper}>\n${invokes}</${DS}${wrapper}>`;
const invoke = (name: string, params: string) => `<${DS}invoke name="${name}">\n${params}</${DS}invoke>\n`;
const param = (name: string, isString: boolean, value: string) =>
  `<${DS}parameter name="${name}" string="${isString}">${value}</${DS}parameter>\n`;

const alarmTools = [
  fn('set_alarm', {
    hour: { type: 'integer' },
    label: { type: 'string' },
    repeat: { type: 'boolean' },
    snooze: { type: ['integer', 'null'] },
  }),
];
const searchTools = [
  fn('search', {
    filters: { type: 'object', properties: { max: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } } },
    query: { type: 'string' },
  }),
];
const readProps = { filePath: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'string' } };
const wrapped = (isString: boolean, value: string, name = 'bash') =>
  dsml('function_calls', invoke(name, param('arguments', isString, value)));

export const VECTORS: Vector[] = [
  // ---------------------------------------------------------------- Gemma 4
  {
    name: 'G1 simple string',
    parser: 'gemma4',
    text: TC(`call:get_weather{location:${Q}Tokyo${Q}}`),
    content: null,
    calls: [['get_weather', '{"location": "Tokyo"}']],
  },
  {
    name: 'G2 scalars with schema',
    parser: 'gemma4',
    tools: alarmTools,
    text: TC(`call:set_alarm{hour:7,label:${Q}Wake up${Q},repeat:true,snooze:null}`),
    content: null,
    calls: [['set_alarm', '{"hour": 7, "label": "Wake up", "repeat": true, "snooze": null}']],
  },
  {
    name: 'G2 without schema: literal typing of bare values',
    parser: 'gemma4',
    text: TC(`call:set_alarm{hour:7,label:${Q}Wake up${Q},repeat:true,snooze:null}`),
    content: null,
    calls: [['set_alarm', '{"hour": 7, "label": "Wake up", "repeat": true, "snooze": null}']],
  },
  {
    name: 'G3 nested containers, special characters in a string',
    parser: 'gemma4',
    tools: searchTools,
    text: TC(`call:search{filters:{max:3,tags:[${Q}a${Q},${Q}b${Q}]},query:${Q}café "best", {x}${Q}}`),
    content: null,
    calls: [['search', '{"filters": {"max": 3, "tags": ["a", "b"]}, "query": "café \\"best\\", {x}"}']],
  },
  {
    name: 'G4 preamble and two calls',
    parser: 'gemma4',
    text: `I'll check both.${TC('call:get_time{}')}${TC(`call:get_weather{location:${Q}Paris${Q}}`)}`,
    content: "I'll check both.",
    calls: [
      ['get_time', '{}'],
      ['get_weather', '{"location": "Paris"}'],
    ],
  },
  {
    name: 'G6 call cut off mid-arguments keeps no arguments',
    parser: 'gemma4',
    text: `<|tool_call>call:write_file{path:${Q}a.txt${Q},content:${Q}hello wor`,
    content: null,
    calls: [['write_file', '']],
  },
  {
    name: 'E1 every quote escaped',
    parser: 'gemma4',
    text: TC(String.raw`call:terminal{command:<|"|>echo \"hello\"<|"|>}`),
    content: null,
    calls: [['terminal', String.raw`{"command": "echo \"hello\""}`]],
  },
  {
    name: 'E2 one bare quote: verbatim',
    parser: 'gemma4',
    text: TC(String.raw`call:terminal{command:<|"|>grep "a" \"b\"<|"|>}`),
    content: null,
    calls: [['terminal', String.raw`{"command": "grep \"a\" \\\"b\\\""}`]],
  },
  {
    name: 'E3 JSON-encoded multi-line text',
    parser: 'gemma4',
    text: TC(String.raw`call:write_file{content:<|"|>line one\nline two\n<|"|>,path:<|"|>notes.txt<|"|>}`),
    content: null,
    calls: [['write_file', String.raw`{"content": "line one\nline two\n", "path": "notes.txt"}`]],
  },
  {
    name: 'E4 Windows path with an invalid escape: verbatim',
    parser: 'gemma4',
    text: TC(String.raw`call:read_file{path:<|"|>C:\new\temp\x.txt<|"|>}`),
    content: null,
    calls: [['read_file', String.raw`{"path": "C:\\new\\temp\\x.txt"}`]],
  },
  {
    name: 'E5 Python code written with \\n escapes',
    parser: 'gemma4',
    text: TC(String.raw`call:execute_python{code:<|"|>import os\nprint(os.getcwd())<|"|>}`),
    content: null,
    calls: [['execute_python', String.raw`{"code": "import os\nprint(os.getcwd())"}`]],
  },
  {
    name: 'E6 real newlines and quotes: verbatim',
    parser: 'gemma4',
    text: TC(`call:execute_python{code:${Q}x = "a"\ny = 1${Q}}`),
    content: null,
    calls: [['execute_python', String.raw`{"code": "x = \"a\"\ny = 1"}`]],
  },
  {
    name: 'Windows path whose escapes all decode (C:\\new\\temp) survives',
    parser: 'gemma4',
    text: TC(String.raw`call:list_dir{path:<|"|>C:\new\temp<|"|>}`),
    content: null,
    calls: [['list_dir', String.raw`{"path": "C:\\new\\temp"}`]],
  },
  {
    name: 'write_file content with escaped quotes and newlines gets real ones',
    parser: 'gemma4',
    tools: [fn('write_file', { path: { type: 'string' }, content: { type: 'string' } })],
    text: TC(String.raw`call:write_file{content:<|"|>def f():\n    return \"x\"\n<|"|>,path:<|"|>a.py<|"|>}`),
    content: null,
    calls: [['write_file', String.raw`{"content": "def f():\n    return \"x\"\n", "path": "a.py"}`]],
  },
  {
    name: 'write_file text with bare quotes and \\n escapes gets real newlines',
    parser: 'gemma4',
    text: TC(String.raw`call:write_file{path:<|"|>n.md<|"|>,content:<|"|>He said "hi"\nThen left.<|"|>}`),
    content: null,
    calls: [['write_file', String.raw`{"path": "n.md", "content": "He said \"hi\"\nThen left."}`]],
  },
  {
    name: 'code whose \\n sits inside a string literal is left alone',
    parser: 'gemma4',
    text: TC(String.raw`call:execute_python{code:<|"|>print("hello\nworld", end="")<|"|>}`),
    content: null,
    calls: [['execute_python', String.raw`{"code": "print(\"hello\\nworld\", end=\"\")"}`]],
  },
  {
    name: 'number fidelity without schema (1.0 stays 1.0, big ints exact)',
    parser: 'gemma4',
    text: TC('call:calc{ratio:1.0,count:3,big:12345678901234567890,neg:-0.50,word:abc}'),
    content: null,
    calls: [['calc', '{"ratio": 1.0, "count": 3, "big": 12345678901234567890, "neg": -0.5, "word": "abc"}']],
  },
  {
    name: 'schema typing: ints, floats, bools, objects; quoted digits coerced too',
    parser: 'gemma4',
    tools: [
      fn('cfg', {
        n: { type: 'integer' },
        x: { type: 'number' },
        on: { type: 'boolean' },
        meta: { type: 'object' },
        name: { type: 'string' },
      }),
    ],
    text: TC(`call:cfg{n:${Q}12${Q},x:2.5,on:false,meta:${Q}{"k": [1, 2.0]}${Q},name:42}`),
    content: null,
    calls: [['cfg', '{"n": 12, "x": 2.5, "on": false, "meta": {"k": [1, 2.0]}, "name": "42"}']],
  },
  {
    name: 'Responses-shape tool schema is used for typing',
    parser: 'gemma4',
    tools: [resp('set_alarm', { hour: { type: 'integer' }, label: { type: 'string' } })],
    text: TC(`call:set_alarm{hour:7,label:123}`),
    content: null,
    calls: [['set_alarm', '{"hour": 7, "label": "123"}']],
  },
  {
    name: 'content before and after calls (stripped around calls)',
    parser: 'gemma4',
    text: `Sure.\n${TC('call:a{}')}\n${TC('call:b{x:1}')}\nDone. \n`,
    content: 'Sure.\n\n\nDone.',
    calls: [
      ['a', '{}'],
      ['b', '{"x": 1}'],
    ],
  },
  {
    name: 'no calls: output is content verbatim',
    parser: 'gemma4',
    text: '  Just text, with a < sign and <|tool_ partial at the end ',
    content: '  Just text, with a < sign and <|tool_ partial at the end ',
    calls: [],
  },
  {
    name: 'trailing <|tool_response> stop token is not content',
    parser: 'gemma4',
    text: `${TC(`call:ping{host:${Q}h${Q}}`)}<|tool_response>`,
    content: null,
    calls: [['ping', '{"host": "h"}']],
  },
  {
    name: 'malformed header is content',
    parser: 'gemma4',
    text: 'a<|tool_call>not a call<tool_call|>b',
    content: 'a<|tool_call>not a call<tool_call|>b',
    calls: [],
  },
  {
    name: 'keys wrapped in delimiters, whitespace after separators',
    parser: 'gemma4',
    text: TC(`call:f{${Q}a${Q}: ${Q}x${Q},\n b:[1, 2.5, ${Q}s${Q}]}`),
    content: null,
    calls: [['f', '{"a": "x", "b": [1, 2.5, "s"]}']],
  },

  // ------------------------------------------------------------ DeepSeek DSML
  {
    name: 'D1 V3.2 two invokes, string parameters',
    parser: 'deepseek_v32',
    text: dsml(
      'function_calls',
      invoke('get_weather', param('location', true, '杭州') + param('date', true, '2024-01-16')) +
        invoke('get_weather', param('location', true, '北京') + param('date', true, '2024-01-16')),
    ),
    content: null,
    calls: [
      ['get_weather', '{"location": "杭州", "date": "2024-01-16"}'],
      ['get_weather', '{"location": "北京", "date": "2024-01-16"}'],
    ],
  },
  {
    name: 'D2 typed values',
    parser: 'deepseek_v32',
    tools: [fn('read', { path: { type: 'string' }, offset: { type: 'integer' } })],
    text: dsml('function_calls', invoke('read', param('path', true, '/etc/hosts') + param('offset', false, '10'))),
    content: null,
    calls: [['read', '{"path": "/etc/hosts", "offset": 10}']],
  },
  {
    name: 'D2 string="true" stays a string despite an integer schema',
    parser: 'deepseek_v32',
    tools: [fn('read', { path: { type: 'string' }, offset: { type: 'integer' } })],
    text: dsml('function_calls', invoke('read', param('path', true, '/etc/hosts') + param('offset', true, '42'))),
    content: null,
    calls: [['read', '{"path": "/etc/hosts", "offset": "42"}']],
  },
  {
    name: 'D3 legacy wrapper unwrapped (string="false")',
    parser: 'deepseek_v32',
    tools: [fn('bash', { command: { type: 'string' } })],
    text: wrapped(false, '{"command": "pwd"}'),
    content: null,
    calls: [['bash', '{"command": "pwd"}']],
  },
  {
    name: 'D3 legacy wrapper unwrapped (string="true")',
    parser: 'deepseek_v32',
    tools: [fn('bash', { command: { type: 'string' } })],
    text: wrapped(true, '{"command": "pwd"}'),
    content: null,
    calls: [['bash', '{"command": "pwd"}']],
  },
  {
    name: 'D4 declared arguments property: no unwrap',
    parser: 'deepseek_v32',
    tools: [fn('run', { arguments: { type: 'object' } })],
    text: wrapped(false, '{"command": "pwd"}', 'run'),
    content: null,
    calls: [['run', '{"arguments": {"command": "pwd"}}']],
  },
  {
    name: 'D4 with a Responses-shape tool: no unwrap',
    parser: 'deepseek_v4',
    tools: [resp('run', { arguments: { type: 'object' } })],
    text: wrapped(false, '{"command": "pwd"}', 'run'),
    content: null,
    calls: [['run', '{"arguments": {"command": "pwd"}}']],
  },
  {
    name: 'D5 inner coercion after unwrap',
    parser: 'deepseek_v32',
    tools: [fn('read', readProps)],
    text: wrapped(false, '{"filePath":"/x","offset":"300","limit":350}', 'read'),
    content: null,
    calls: [['read', '{"filePath": "/x", "offset": 300, "limit": "350"}']],
  },
  {
    name: 'D5 with a Responses-shape tool',
    parser: 'deepseek_v4',
    tools: [resp('read', readProps)],
    text: wrapped(true, '{"filePath":"/x","offset":"300","limit":350}', 'read'),
    content: null,
    calls: [['read', '{"filePath": "/x", "offset": 300, "limit": "350"}']],
  },
  {
    name: 'wrapper unwrapped when no tools are given',
    parser: 'deepseek_v32',
    text: wrapped(false, '{"command": "ls", "n": 1.0}'),
    content: null,
    calls: [['bash', '{"command": "ls", "n": 1.0}']],
  },
  {
    name: 'empty-object wrapper is not unwrapped',
    parser: 'deepseek_v32',
    tools: [fn('bash', { command: { type: 'string' } })],
    text: wrapped(false, '{}'),
    content: null,
    calls: [['bash', '{"arguments": {}}']],
  },
  {
    name: 'non-object wrapper is not unwrapped',
    parser: 'deepseek_v32',
    tools: [fn('bash', { command: { type: 'string' } })],
    text: wrapped(true, 'pwd'),
    content: null,
    calls: [['bash', '{"arguments": "pwd"}']],
  },
  {
    name: 'arguments next to other parameters is an ordinary field',
    parser: 'deepseek_v32',
    tools: [fn('bash', { command: { type: 'string' } })],
    text: dsml('function_calls', invoke('bash', param('arguments', false, '{"a": 1}') + param('command', true, 'ls'))),
    content: null,
    calls: [['bash', '{"arguments": {"a": 1}, "command": "ls"}']],
  },
  {
    name: 'V4 wrapper, schema typing of ints/floats/bools/objects, untyped JSON',
    parser: 'deepseek_v4',
    tools: [fn('cfg', { count: { type: 'integer' }, ratio: { type: 'number' }, flag: { type: 'boolean' }, opts: { type: 'object' } })],
    text: dsml(
      'tool_calls',
      invoke(
        'cfg',
        param('count', false, '5') +
          param('ratio', false, '0.25') +
          param('flag', false, 'true') +
          param('opts', false, '{"a": [1, 2.0]}') +
          param('extra', false, '[1,2]') +
          param('word', false, 'hello'),
      ),
    ),
    content: null,
    calls: [['cfg', '{"count": 5, "ratio": 0.25, "flag": true, "opts": {"a": [1, 2.0]}, "extra": [1, 2], "word": "hello"}']],
  },
  {
    name: 'DSML content before and after, invoke without parameters',
    parser: 'deepseek_v32',
    text: `Let me check.\n\n${dsml('function_calls', invoke('now', ''))}\nDone.`,
    content: 'Let me check.\n\n\nDone.',
    calls: [['now', '{}']],
  },
  {
    name: 'DSML string value kept verbatim (newlines, quotes, markup-like text)',
    parser: 'deepseek_v32',
    text: dsml('function_calls', invoke('write', param('text', true, '\n  a "b" </x> \\n\n'))),
    content: null,
    calls: [['write', '{"text": "\\n  a \\"b\\" </x> \\\\n\\n"}']],
  },
  {
    name: 'DSML call cut off mid-parameter closes the finished ones',
    parser: 'deepseek_v32',
    text: `<${DS}function_calls>\n<${DS}invoke name="w">\n${param('a', true, 'x')}<${DS}parameter name="b" string="true">hel`,
    content: null,
    calls: [['w', '{"a": "x"}']],
  },
  {
    name: 'DSML call cut off before any parameter has no arguments',
    parser: 'deepseek_v4',
    text: `<${DS}tool_calls>\n<${DS}invoke name="w">\n<${DS}parameter name="b" string="true">hel`,
    content: null,
    calls: [['w', '']],
  },

  // ---------------------------------------------------------- DeepSeek V3/V3.1
  {
    name: 'D6 V3 fenced JSON, verbatim',
    parser: 'deepseek_v3',
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"location": "Tokyo"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    content: null,
    calls: [['get_weather', '{"location": "Tokyo"}']],
  },
  {
    name: 'D6 negative: pretty-printed JSON gives no calls, raw output is content',
    parser: 'deepseek_v3',
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\n  "location": "Tokyo"\n}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    content:
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\n  "location": "Tokyo"\n}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    calls: [],
  },
  {
    name: 'D7 V3.1',
    parser: 'deepseek_v31',
    text: '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location": "Tokyo"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    content: null,
    calls: [['get_weather', '{"location": "Tokyo"}']],
  },
  {
    name: 'V3.1 parallel calls with content before',
    parser: 'deepseek_v31',
    text: 'Two lookups.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>a<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜>\n<｜tool▁call▁begin｜>b<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    content: 'Two lookups.',
    calls: [
      ['a', '{"x":1}'],
      ['b', '{}'],
    ],
  },

  // ------------------------------------------------------------------ Hermes
  {
    name: 'H1',
    parser: 'hermes',
    text: '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>',
    content: null,
    calls: [['get_weather', '{"city": "Tokyo"}']],
  },
  {
    name: 'H2 content and two calls',
    parser: 'hermes',
    text: 'Checking.\n<tool_call>\n{"name":"a","arguments":{}}\n</tool_call>\n<tool_call>\n{"name":"b","arguments":{"n":2}}\n</tool_call>',
    content: 'Checking.\n',
    calls: [
      ['a', '{}'],
      ['b', '{"n": 2}'],
    ],
  },
  {
    name: 'H3 no closing tag at end of output',
    parser: 'hermes',
    text: '<tool_call>\n{"name": "f", "arguments": {"x": true}}',
    content: null,
    calls: [['f', '{"x": true}']],
  },
  {
    name: 'H4 string arguments holding an object',
    parser: 'hermes',
    text: '<tool_call>\n{"name": "f", "arguments": "{\\"x\\": 1}"}\n</tool_call>',
    content: null,
    calls: [['f', '{"x": 1}']],
  },
  {
    name: 'H5 invalid JSON is content',
    parser: 'hermes',
    text: '<tool_call>{"name": "f", "arguments": {x: 1}}</tool_call>',
    content: '<tool_call>{"name": "f", "arguments": {x: 1}}</tool_call>',
    calls: [],
  },
  {
    name: 'Hermes number fidelity and Python float spelling',
    parser: 'hermes',
    text: '<tool_call>{"name":"n","arguments":{"x":1.0,"y":1e5,"z":10000000000000000000001,"w":-0.0,"u":2.50,"t":1e16,"s":0.00001}}</tool_call>',
    content: null,
    calls: [['n', '{"x": 1.0, "y": 100000.0, "z": 10000000000000000000001, "w": -0.0, "u": 2.5, "t": 1e+16, "s": 1e-05}']],
  },
  {
    name: 'Hermes string escapes re-serialized like json.dumps(ensure_ascii=False)',
    parser: 'hermes',
    text: '<tool_call>{"name":"s","arguments":{"s":"é\\u00e9\\n\\t\\"","ctl":"\\u0001","k":"\u007f\u2028","1":0,"0":1}}</tool_call>',
    content: null,
    calls: [['s', '{"s": "éé\\n\\t\\"", "ctl": "\\u0001", "k": "\u007f\u2028", "1": 0, "0": 1}']],
  },
  {
    name: 'Hermes content after the call',
    parser: 'hermes',
    text: 'a <b> c\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>\nDone.',
    content: 'a <b> c\n\nDone.',
    calls: [['f', '{}']],
  },
  {
    name: 'Hermes text that only looks like a tag prefix',
    parser: 'hermes',
    text: 'x <tool_ y <tool_cal',
    content: 'x <tool_ y <tool_cal',
    calls: [],
  },

  // ------------------------------------------------------------- Qwen3-Coder
  {
    name: 'X1 with schema',
    parser: 'qwen3_coder',
    tools: [fn('get_weather', { city: { type: 'string' }, days: { type: 'integer' } })],
    text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>',
    content: null,
    calls: [['get_weather', '{"city": "Tokyo", "days": 3}']],
  },
  {
    name: 'X1 without schema',
    parser: 'qwen3_coder',
    text: '<tool_call>\n<function=get_weather>\n<parameter=city>\nTokyo\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>',
    content: null,
    calls: [['get_weather', '{"city": "Tokyo", "days": "3"}']],
  },
  {
    name: 'X2 array, Python-style boolean and None',
    parser: 'qwen3_coder',
    tools: [fn('ls', { flags: { type: 'array' }, dry_run: { type: 'boolean' }, note: { anyOf: [{ type: 'string' }, { type: 'null' }] } })],
    text: '<tool_call>\n<function=ls>\n<parameter=flags>\n["-a","-l"]\n</parameter>\n<parameter=dry_run>\nTrue\n</parameter>\n<parameter=note>\nNone\n</parameter>\n</function>\n</tool_call>',
    content: null,
    calls: [['ls', '{"flags": ["-a", "-l"], "dry_run": true, "note": null}']],
  },
  {
    name: 'X3 multi-line value keeps inner newlines',
    parser: 'qwen3_coder',
    text: '<tool_call>\n<function=write>\n<parameter=content>\nline1\nline2\n</parameter>\n</function>\n</tool_call>',
    content: null,
    calls: [['write', '{"content": "line1\\nline2"}']],
  },
  {
    // "whole": 2.0 stays a float (vLLM makes it 2: a named deviation, docs/parsers.md).
    name: 'Qwen schema typing: ints, floats, bools, Python-repr objects',
    parser: 'qwen3_xml',
    tools: [
      fn('cfg', {
        count: { type: 'integer' },
        ratio: { type: 'number' },
        whole: { type: 'number' },
        enabled: { type: 'boolean' },
        opts: { type: 'object' },
        label: { type: 'string' },
      }),
    ],
    text:
      '<tool_call>\n<function=cfg>\n<parameter=count>\n5\n</parameter>\n<parameter=ratio>\n0.5\n</parameter>\n' +
      "<parameter=whole>\n2.0\n</parameter>\n<parameter=enabled>\nyes\n</parameter>\n<parameter=opts>\n{'a': (1, 2), 'b': None}\n</parameter>\n" +
      '<parameter=label>\nnull\n</parameter>\n</function>\n</tool_call>',
    content: null,
    calls: [['cfg', '{"count": 5, "ratio": 0.5, "whole": 2.0, "enabled": false, "opts": {"a": [1, 2], "b": null}, "label": "null"}']],
  },
  {
    name: 'Qwen literal </parameter> inside a value is content',
    parser: 'qwen3_coder',
    text: '<tool_call>\n<function=write>\n<parameter=code>\nx = "</parameter>"\n</parameter>\n</function>\n</tool_call>',
    content: null,
    calls: [['write', '{"code": "x = \\"</parameter>\\""}']],
  },
  {
    name: 'Qwen parallel calls with content before and after',
    parser: 'qwen3_coder',
    text:
      'On it.\n<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>\n' +
      '<tool_call>\n<function=b>\n</function>\n</tool_call>\nAll done.',
    content: 'On it.\n\nAll done.',
    calls: [
      ['a', '{"x": "1"}'],
      ['b', '{}'],
    ],
  },
  {
    name: 'Qwen missing </parameter>: next parameter line ends the value',
    parser: 'qwen3_coder',
    text: '<tool_call>\n<function=f>\n<parameter=a>\none\n<parameter=b>\ntwo\n</parameter>\n</function>\n</tool_call>',
    content: null,
    calls: [['f', '{"a": "one", "b": "two"}']],
  },
  {
    name: 'Qwen call cut off mid-value has no arguments',
    parser: 'qwen3_coder',
    text: '<tool_call>\n<function=get_weather>\n<parameter=city>Tokyo',
    content: null,
    calls: [['get_weather', '']],
  },
  {
    name: 'Qwen invalid function name is content',
    parser: 'qwen3_coder',
    text: '<tool_call>\n<function={{ name }}>\n</function>\n</tool_call>',
    content: '<tool_call>\n<function={{ name }}>\n</function>\n</tool_call>',
    calls: [],
  },
];
