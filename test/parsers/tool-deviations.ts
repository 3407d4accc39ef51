/**
 * Named deviations from vLLM 0.25.0's tool-call parsers: where vLLM loses,
 * mangles or invents data (or raises), our expected value, written by hand
 * from the vector's own calls. Keyed by golden file (`mode`) and vector id;
 * each entry says why. Listed in docs/parsers.md.
 */
export interface Expected {
  content: string | null;
  calls: [string, string][];
}
type Table = Record<string, Record<string, [string, Expected]>>;

const WEATHER: [string, string] = ['get_weather', '{"city": "Paris"}'];
const TIME: [string, string] = ['get_time', '{"tz": "UTC"}'];
const NUMBERS: [string, string] = ['search', '{"ratio": 1.0, "big": 12345678901234567890, "neg": -3, "pi": 3.14}'];
const NESTED: [string, string] = ['search', '{"query": "q", "filters": {"lang": "ts", "paths": ["src", "test"], "depth": 2}, "tags": ["a", "b"]}'];
const ESCAPES: [string, string] = ['write_file', '{"path": "C:\\\\new\\\\temp.txt", "content": "print(\\"hi\\")\\n\\tx = \'y\' \\\\ z\\n"}'];
const INDENTED: [string, string] = ['write_file', '{"path": "a.py", "content": "    return 1\\n  # two\\n\\n"}'];
const BOOL_NULL: [string, string] = ['search', '{"query": "q", "exact": true, "note": null}'];

const calls = (...c: [string, string][]): Expected => ({ content: null, calls: c });
const content = (text: string): Expected => ({ content: text, calls: [] });

const AFTER: [string, Expected] = ['vLLM drops the text after the calls (or makes the whole output content); it is kept as content', { content: 'I will report back.', calls: [WEATHER] }];
const BEFORE: [string, Expected] = ['vLLM drops the text before the call (or makes the whole output content); it is kept as content', { content: 'Let me check the weather.', calls: [WEATHER] }];
const CUT: [string, Expected] = ['a call cut off by the end of the output keeps its name and no arguments (vLLM: "{}" or the partial, invalid JSON)', calls(['get_weather', ''])];
const FLOAT: [string, Expected] = ['vLLM turns 1.0 into 1 (schema coercion) or drops the call; the float is kept', calls(NUMBERS)];
const STRIP: [string, string] = ['vLLM strips string values, so file contents lose indentation and trailing newlines; kept as written', ''];

const table: Table = {};
const add = (modes: string[], id: string, dev: [string, Expected]) => {
  for (const m of modes) (table[m] ??= {})[id] = dev;
};

add(['functiongemma', 'glm45', 'glm47', 'hunyuan_a13b', 'internlm', 'jamba', 'kimi_k2', 'llama3_json', 'llama4_json', 'minimax_m2', 'mistral', 'mistral_pre_v11', 'phi4_mini_json', 'seed_oss', 'pythonic', 'llama4_pythonic', 'xlam', 'granite'], 'content_after', AFTER);
add(['ernie45', 'longcat', 'deepseek_v3', 'deepseek_v31', 'deepseek_v32', 'gemma4', 'hermes', 'qwen3_coder', 'qwen3_xml'], 'content_after', AFTER);
add(['llama3_json', 'llama4_json', 'phi4_mini_json', 'granite'], 'content_before', BEFORE);
add(['glm45', 'glm47', 'minimax_m2', 'seed_oss', 'functiongemma', 'kimi_k2', 'mistral', 'deepseek_v32', 'qwen3_coder', 'qwen3_xml'], 'cut_off', CUT);
add(['gemma4'], 'cut_off', ['vLLM reports the cut-off value as if complete ("Pa"); the call keeps its name and no arguments', calls(['get_weather', ''])]);
add(['deepseek_v3'], 'cut_off', ['vLLM returns neither calls nor content for a cut-off call; the text is content', content('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Pa')]);
add(['deepseek_v31'], 'cut_off', ['vLLM returns neither calls nor content for a cut-off call; the text is content', content('<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": "Pa')]);
add(['gemma4'], 'nested', ['vLLM types bare values inside nested objects as strings ("depth": "2"); read as literals', calls(NESTED)]);
add(['glm45', 'glm47', 'kimi_k2', 'minimax_m2', 'seed_oss', 'qwen3_coder', 'qwen3_xml', 'pythonic', 'llama4_pythonic', 'lfm2', 'functiongemma'], 'numbers', FLOAT);
add(['ernie45'], 'cut_off', ['vLLM returns neither calls nor content for a cut-off call; the text is content', content('<tool_call>\n{"name": "get_weather", "arguments": {"city": "Pa')]);
add(['seed_oss', 'qwen3_coder', 'qwen3_xml', 'minimax_m2'], 'escapes', [STRIP[0], calls(ESCAPES)]);
add(['seed_oss', 'qwen3_coder', 'qwen3_xml', 'minimax_m2'], 'indented_code', [STRIP[0], calls(INDENTED)]);
add(['llama3_json', 'llama4_json'], 'back_to_back', ['vLLM makes back-to-back calls `{..}{..}` (as the Llama 4 JSON template renders them) plain content; both are calls', calls(WEATHER, TIME)]);
add(['llama3_json', 'llama4_json'], 'brace_then_call', ['vLLM makes the whole output content when any `{` is not a call, hiding the call', { content: 'Use {x}.', calls: [WEATHER] }]);
add(['glm45', 'glm47'], 'unknown_tool', ['vLLM silently drops a call whose name is not among the tools (and its text)', calls(['get_news', '{"topic": "ai"}'])]);
add(['kimi_k2', 'mistral'], 'invalid_json', ['vLLM passes malformed arguments on as an invalid JSON string; the call has no arguments', calls(['get_weather', ''])]);

Object.assign(table.functiongemma!, {
  nested: ['vLLM flattens nested objects and drops arrays', calls(NESTED)],
  bool_null: ['vLLM drops booleans and null', calls(BOOL_NULL)],
  string_number: ['vLLM turns the string "42" into the number 42 although the schema says string', calls(['search', '{"query": "42"}'])],
});
Object.assign(table.internlm!, {
  parallel: ['vLLM raises on a second call', calls(WEATHER, TIME)],
  python_repr: ["vLLM raises on the Python-repr arguments its own template prints ({'k': True})", calls(BOOL_NULL)],
  cut_off: ['vLLM raises on a cut-off call; it is content', content('<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Pa')],
});
Object.assign(table.mistral_pre_v11!, {
  invalid_json: ['vLLM drops the [TOOL_CALLS] marker from the content it gives back; the text is kept as written', content('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": }}]')],
  cut_off: ['vLLM drops the [TOOL_CALLS] marker from the content it gives back; the text is kept as written', content('[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Pa')],
  string_arguments: ['vLLM double-encodes arguments written as a JSON string', calls(WEATHER)],
});
Object.assign(table.phi4_mini_json!, {
  nested: ['vLLM cuts the list at the first `]`, losing calls whose arguments contain a list', calls(NESTED)],
  bracket_in_args: ['vLLM cuts the list at the first `]`, even inside a string', calls(['search', '{"query": "a]b", "tags": ["x", "y"]}'])],
  invalid_json: ['vLLM returns neither calls nor content for an unparsable list; the text is content', content('functools[{"name": "get_weather", "arguments": {"city": }}]')],
});

export const TOOL_DEVIATIONS: Table = table;
