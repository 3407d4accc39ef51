"""Model outputs for the tool-parser goldens: one set of calls, rendered in
each format the way the model writes it (and the way the matching chat
template renders it back)."""
import json

TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "get_time", "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "search", "parameters": {"type": "object", "properties": {
        "query": {"type": "string"}, "filters": {"type": "object"}, "ratio": {"type": "number"},
        "big": {"type": "integer"}, "neg": {"type": "integer"}, "pi": {"type": "number"},
        "exact": {"type": "boolean"}, "note": {"type": ["string", "null"]}, "tags": {"type": "array"}}}}},
    {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object", "properties": {
        "path": {"type": "string"}, "content": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
]

# (id, content before, [(name, arguments JSON text)], content after)
CALLS = [
    ("one", "", [("get_weather", '{"city": "Paris"}')], ""),
    ("parallel", "", [("get_weather", '{"city": "Paris"}'), ("get_time", '{"tz": "UTC"}')], ""),
    ("content_before", "Let me check the weather.", [("get_weather", '{"city": "Paris"}')], ""),
    ("content_after", "", [("get_weather", '{"city": "Paris"}')], "I will report back."),
    ("nested", "", [("search", '{"query": "q", "filters": {"lang": "ts", "paths": ["src", "test"], "depth": 2}, "tags": ["a", "b"]}')], ""),
    ("unicode", "", [("search", '{"query": "café 😀 日本語 \\"q\\""}')], ""),
    ("numbers", "", [("search", '{"ratio": 1.0, "big": 12345678901234567890, "neg": -3, "pi": 3.14}')], ""),
    ("escapes", "", [("write_file", json.dumps({"path": "C:\\new\\temp.txt", "content": 'print("hi")\n\tx = \'y\' \\ z\n'}))], ""),
    ("indented_code", "", [("write_file", json.dumps({"path": "a.py", "content": "    return 1\n  # two\n\n"}))], ""),
    ("empty_args", "", [("now", "{}")], ""),
    ("bool_null", "", [("search", '{"query": "q", "exact": true, "note": null}')], ""),
]


def args_of(text):
    return json.loads(text)


def pyrepr(v):
    """Python repr of a JSON value (what a template's |string prints)."""
    return repr(v)


def pyarg(v):
    """A keyword-argument value in Python call syntax."""
    return repr(v)


def xml_value(v):
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def fg_value(v):
    if isinstance(v, str):
        return f"<escape>{v}<escape>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, dict):
        return "{" + ",".join(f"{k}:{fg_value(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ",".join(fg_value(x) for x in v) + "]"
    return json.dumps(v)


def j(name, a, key="arguments"):
    return json.dumps({"name": name, key: args_of(a)}, ensure_ascii=False)


def render(fmt, calls):
    if fmt == "llama3_json":
        return "; ".join(j(n, a, "parameters") for n, a in calls)
    if fmt == "pythonic":
        return "[" + ", ".join(f"{n}(" + ", ".join(f"{k}={pyarg(v)}" for k, v in args_of(a).items()) + ")" for n, a in calls) + "]"
    if fmt == "mistral":
        # tokenizers >= v11 (vLLM's mode with a Hugging Face tokenizer): one [TOOL_CALLS] per call
        return "".join(f"[TOOL_CALLS]{n}{a}" for n, a in calls)
    if fmt == "mistral_pre_v11":
        return "[TOOL_CALLS] [" + ", ".join(j(n, a) for n, a in calls) + "]"
    if fmt == "granite":
        return "<|tool_call|>[" + ", ".join(j(n, a) for n, a in calls) + "]"
    if fmt == "internlm":
        return "".join(f"<|action_start|><|plugin|>\n{j(n, a, 'parameters')}<|action_end|>" for n, a in calls)
    if fmt == "kimi_k2":
        body = "".join(f"<|tool_call_begin|>functions.{n}:{i}<|tool_call_argument_begin|>{a}<|tool_call_end|>" for i, (n, a) in enumerate(calls))
        return f"<|tool_calls_section_begin|>{body}<|tool_calls_section_end|>"
    if fmt == "glm45":
        return "".join(f"<tool_call>{n}\n" + "".join(f"<arg_key>{k}</arg_key>\n<arg_value>{xml_value(v)}</arg_value>\n" for k, v in args_of(a).items()) + "</tool_call>" for n, a in calls)
    if fmt == "minimax_m2":
        inv = "".join(f'<invoke name="{n}">\n' + "".join(f'<parameter name="{k}">{xml_value(v)}</parameter>\n' for k, v in args_of(a).items()) + "</invoke>\n" for n, a in calls)
        return f"<minimax:tool_call>\n{inv}</minimax:tool_call>"
    if fmt == "phi4_mini_json":
        return "functools[" + ", ".join(j(n, a) for n, a in calls) + "]"
    if fmt in ("hunyuan_a13b", "jamba"):
        return "<tool_calls>[" + ", ".join(j(n, a) for n, a in calls) + "]</tool_calls>"
    if fmt == "xlam":
        return "[" + ", ".join(j(n, a) for n, a in calls) + "]"
    if fmt == "functiongemma":
        return "".join(f"<start_function_call>call:{n}{{" + ",".join(f"{k}:{fg_value(v)}" for k, v in args_of(a).items()) + "}<end_function_call>" for n, a in calls)
    if fmt == "qwen3_coder":
        return "\n".join(f"<tool_call>\n<function={n}>\n" + "".join(f"<parameter={k}>\n{xml_value(v)}\n</parameter>\n" for k, v in args_of(a).items()) + "</function>\n</tool_call>" for n, a in calls)
    if fmt == "gemma4":
        return "".join(f"<|tool_call>call:{n}{{" + ",".join(f"{k}:{fg_value(v)}" for k, v in args_of(a).items()) + "}<tool_call|>" for n, a in calls).replace("<escape>", '<|"|>')
    if fmt == "deepseek_v3":
        body = "\n".join(f"<｜tool▁call▁begin｜>function<｜tool▁sep｜>{n}\n```json\n{a}\n```<｜tool▁call▁end｜>" for n, a in calls)
        return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"
    if fmt == "deepseek_v31":
        body = "".join(f"<｜tool▁call▁begin｜>{n}<｜tool▁sep｜>{a}<｜tool▁call▁end｜>" for n, a in calls)
        return f"<｜tool▁calls▁begin｜>{body}<｜tool▁calls▁end｜>"
    if fmt == "dsml":
        D = "｜DSML｜"
        inv = "".join(f'<{D}invoke name="{n}">\n' + "".join(
            f'<{D}parameter name="{k}" string="{"true" if isinstance(v, str) else "false"}">{xml_value(v)}</{D}parameter>\n'
            for k, v in args_of(a).items()) + f"</{D}invoke>\n" for n, a in calls)
        return f"<{D}function_calls>\n{inv}</{D}function_calls>"
    if fmt == "hermes":
        return "\n".join(f"<tool_call>\n{j(n, a)}\n</tool_call>" for n, a in calls)
    if fmt == "longcat":
        return "\n".join(f"<longcat_tool_call>\n{j(n, a)}\n</longcat_tool_call>" for n, a in calls)
    if fmt == "lfm2":
        return "<|tool_call_start|>" + render("pythonic", calls) + "<|tool_call_end|>"
    if fmt == "seed_oss":
        return "".join(f"<seed:tool_call>\n<function={n}>\n" + "".join(f"<parameter={k}>\n{xml_value(v)}\n</parameter>\n" for k, v in args_of(a).items()) + "</function>\n</seed:tool_call>" for n, a in calls)
    raise KeyError(fmt)


def join(before, body, after):
    out = before + ("\n" if before else "") + body
    return out + ("\n" + after if after else "")


MALFORMED = {
    "llama3_json": [("invalid_json", '{"name": "get_weather", "parameters": {"city": }}'), ("back_to_back", '{"name": "get_weather", "parameters": {"city": "Paris"}}{"name": "get_time", "parameters": {"tz": "UTC"}}'),
                    ("python_tag", '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}'), ("prose_braces", "Use {x} in the set."),
                    ("brace_then_call", 'Use {x}. {"name": "get_weather", "parameters": {"city": "Paris"}}')],
    "pythonic": [("not_a_list", "get_weather(city='Paris')"), ("positional", "[get_weather('Paris')]"), ("json_literals", "[search(exact=true, note=null)]")],
    "mistral": [("invalid_json", '[TOOL_CALLS]get_weather{"city": }'), ("args_marker", '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}')],
    "mistral_pre_v11": [("invalid_json", '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": }}]'), ("string_arguments", '[TOOL_CALLS] [{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}]')],
    "granite": [("invalid_json", '<|tool_call|>[{"name": "get_weather", "arguments": {"city": }}]'), ("bare_list", '[{"name": "get_weather", "arguments": {"city": "Paris"}}]')],
    "internlm": [("python_repr", "<|action_start|><|plugin|>\n{\"name\": \"search\", \"arguments\": {'query': 'q', 'exact': True, 'note': None}}<|action_end|>")],
    "kimi_k2": [("invalid_json", '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": <|tool_call_end|><|tool_calls_section_end|>'),
                ("no_section_end", '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>')],
    "glm45": [("no_end", "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n"),
              ("unknown_tool", "<tool_call>get_news\n<arg_key>topic</arg_key>\n<arg_value>ai</arg_value>\n</tool_call>")],
    "minimax_m2": [("single_quotes", "<minimax:tool_call>\n<invoke name='get_weather'>\n<parameter name='city'>Paris</parameter>\n</invoke>\n</minimax:tool_call>")],
    "phi4_mini_json": [("bracket_in_args", 'functools[{"name": "search", "arguments": {"query": "a]b", "tags": ["x", "y"]}}]'), ("invalid_json", 'functools[{"name": "get_weather", "arguments": {"city": }}]')],
    "hunyuan_a13b": [("deep_nesting", '<tool_calls>[{"name": "search", "arguments": {"filters": {"a": {"b": {"c": 1}}}}}]</tool_calls>'), ("invalid_json", '<tool_calls>[{"name": "x", "arguments": {]</tool_calls>')],
    "jamba": [("invalid_json", '<tool_calls>[{"name": "x", "arguments": {]</tool_calls>')],
    "xlam": [("fenced", '```json\n[{"name": "get_weather", "arguments": {"city": "Paris"}}]\n```'), ("tool_call_tag", '<tool_call>[{"name": "get_weather", "arguments": {"city": "Paris"}}]</tool_call>'), ("invalid_json", '[{"name": "x", "arguments": {]')],
    "functiongemma": [("string_number", "<start_function_call>call:search{query:<escape>42<escape>}<end_function_call>"), ("no_end", "<start_function_call>call:get_weather{city:<escape>Paris<escape>}")],
    "seed_oss": [("no_end", "<seed:tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>")],
}

# vLLM parser name -> format
PARSERS = {
    "llama3_json": "llama3_json", "llama4_json": "llama3_json",
    "pythonic": "pythonic", "llama4_pythonic": "pythonic",
    "mistral": "mistral", "mistral_pre_v11": "mistral_pre_v11", "granite": "granite", "internlm": "internlm", "kimi_k2": "kimi_k2",
    "glm45": "glm45", "glm47": "glm45", "minimax_m2": "minimax_m2", "phi4_mini_json": "phi4_mini_json",
    "hunyuan_a13b": "hunyuan_a13b", "jamba": "jamba", "xlam": "xlam", "functiongemma": "functiongemma",
    "seed_oss": "seed_oss",
    "hermes": "hermes", "qwen3_coder": "qwen3_coder", "qwen3_xml": "qwen3_coder", "gemma4": "gemma4",
    "deepseek_v3": "deepseek_v3", "deepseek_v31": "deepseek_v31", "deepseek_v32": "dsml",
    "granite4": "hermes", "ernie45": "hermes", "longcat": "longcat", "lfm2": "lfm2",
}


def vectors_for(parser):
    fmt = PARSERS[parser]
    out = [("plain", "Hello, no tools here.")]
    for vid, before, calls, after in CALLS:
        out.append((vid, join(before, render(fmt, calls), after)))
    out += MALFORMED.get(fmt, [])
    # cut off in the middle of the last call's arguments
    full = render(fmt, [("get_weather", '{"city": "Paris"}')])
    cut = full.find("Paris")
    out.append(("cut_off", full[: cut + 2]))
    return out
