#!/usr/bin/env python3
"""Write test/protocol/vectors.json: expected values for the pyjson codec and
the conversation layer, computed by Python (never by our own code).

    scripts/golden/.venv/bin/python scripts/conversation-vectors.py

Part 1 (any python3): json.loads results/errors for a list of inputs.
Part 2 (needs the venv with vLLM 0.25.0): the template variables the real
vLLM + transformers pipeline binds, captured by rendering a template that
dumps them with `tojson` (scripts/golden/generate_real.py drives vLLM).
"""

from __future__ import annotations

import json
import os
import random
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
OUT = os.path.join(REPO, "test", "protocol", "vectors.json")


def tag(v):
    """Tagged tree: keeps int/float, key order and duplicates-resolved dicts."""
    if v is None:
        return ["none"]
    if isinstance(v, bool):
        return ["bool", v]
    if isinstance(v, int):
        return ["int", str(v)]
    if isinstance(v, float):
        return ["float", repr(v)]
    if isinstance(v, str):
        return ["str", v]
    if isinstance(v, list):
        return ["list", [tag(x) for x in v]]
    if isinstance(v, dict):
        return ["dict", [[k, tag(x)] for k, x in v.items()]]
    raise TypeError(type(v))


DECODE_INPUTS = [
    '{"b":1,"10":2,"2":3}', '{"a": 1, "b": 2, "a": 3}', '{"__proto__": {"x": 1}, "constructor": 2}',
    '[1, 1.0, -0, -0.0, 1e3, 1E-7, 0.1, 1.5e300, 1e400, -1e400, 2.5e-324]',
    '12345678901234567890123', '-9007199254740993', '9007199254740991', '[NaN, Infinity, -Infinity]',
    '"\\ud800"', '"\\udc00x"', '"\\ud83d\\ude00"', '"\\ud800\\u0041"', '"\\ud800\\ud800"', '"caf\\u00e9 \\/ \\b\\f\\n\\r\\t"',
    '"\u00e9\U0001F600\u4e2d"', '  \n\t {"a" : [ ] , "b" : { } }  \r\n', 'true', 'false', 'null', '"\x7f"',
    '{"nested": {"list": [1, [2, [3, {"k": "v"}]]], "empty": ""}}', '0', '-0', '1.0', '100000000000000000000.0',
    '{"2": "a", "1": "b", "01": "c", "-1": "d", "4294967295": "e", "4294967294": "f"}',
    '1.7976931348623157e308', '5e-324', '0.30000000000000004', '123456789012345680000.5',
    # strings longer than a short key, with escapes, surrogates and non-ASCII past the first characters
    '"' + 'abcdefghij' * 3 + '"', '"' + 'abcdefghij' * 2 + '\\n\\"\\\\ tail \\u00e9"',
    '"' + 'x' * 17 + '\\ud83d\\ude00' + 'y' * 20 + '"', '"' + 'x' * 40 + '\\ud800"', '"' + 'x' * 18 + '\ud800z"',
    '"' + 'é' * 20 + '😀' + 'q' * 16 + '"', '{"' + 'k' * 30 + '": "' + 'v' * 30 + '"}',
    # digit-first keys after ordinary ones, with duplicates on both sides
    '{"b": 1, "a": 2, "1": 3, "b": 4, "0": 5, "1": 6}', '{"x": 1, "__proto__": 2, "7": 3}',
] + ['1' * 4300]

ERROR_INPUTS = [
    '', ' ', '{', '[', '{"a"', '{"a":', '{"a":1', '{"a":1,', '{"a":1,}', '[1,]', '[1 2]', '{"a" 1}', "{'a':1}",
    '"abc', '"a\x01"', '"\\x"', '"\\u12"', '"\\ud800\\u"', '"\\ud800\\uzzzz"', '"\\u', '"\\u123', '"\\u1234',
    'tru', 'nul', '-', '-a', '01', '1.', '1.e5', '1e', '1e+', '.5', '1 2', '-NaN', 'infinity', '\ufeff1', '"\\',
    '"\\"', '[1,2', '\U0001F600\U0001F600 x', '\n\n  [1,\n x]', '"\U0001F600\\q"', '{"a":1}}', '[-]', 'None',
    "{'city': 'Paris'}", '{"city": "Paris",}', '{"a": 1} x', '  ', '{"city": "Par', '[1, 2', '{"a":\n\n  tru}',
    '"\t"', '{"a": NaN, "b": nan}', '"' + 'a' * 20 + '\x01"', '"' + 'a' * 30, '"' + 'a' * 20 + '\\x"',
    '"' + 'a' * 20 + '\\u12"', '["' + 'a' * 20 + '\ud800', '"' + 'a' * 20 + '\n' + 'b' * 20 + '"', '\u00e9\u00e9\n\U0001F600 [', '-' + '1' * 4301, '1' * 4301,
]


def float_cases():
    rnd = random.Random(1234)
    vals = [0.1, 1e16, 1e15, 123456789.0, 1e-4, 1e-5, 1.5, 2.5e-7, 1e22, 1e21, 9007199254740993.0, 5e-324,
            1.7976931348623157e308, 0.30000000000000004, 100.0, 1234567890123456.7, 12345678901234567.0]
    for _ in range(300):
        bits = rnd.getrandbits(64)
        x = struct.unpack("<d", struct.pack("<Q", bits))[0]
        if x == x and x not in (float("inf"), float("-inf")):
            vals.append(x)
    for _ in range(100):
        vals.append(rnd.uniform(-1e6, 1e6))
    return [[struct.pack(">d", x).hex(), repr(x)] for x in vals]


def part1():
    dec = []
    for s in DECODE_INPUTS:
        dec.append({"input": s, "value": tag(json.loads(s))})
    errs = []
    for s in ERROR_INPUTS:
        try:
            json.loads(s)
        except Exception as e:  # noqa: BLE001
            errs.append({"input": s, "type": type(e).__name__, "message": str(e)})
        else:
            raise SystemExit(f"expected an error for {s!r}")
    return {"decode": dec, "errors": errs, "floatRepr": float_cases()}


# --------------------------------------------------------------------------
# part 2: conversation cases through the real pipeline

PROBES = ["bos_token", "eos_token", "enable_thinking", "reasoning_effort", "custom_flag", "continue_final_message",
          "tokenize", "return_dict", "padding"]
UNDEF = "\u0000UNDEF"


def dump_template(openai: bool, developer: bool, probes=PROBES) -> str:
    items = ", ".join(f'"{p}": ({p} if {p} is defined else "\\u0000UNDEF")' for p in probes)
    t = ('{{- {"messages": messages, "tools": tools, "documents": documents, '
         '"add_generation_prompt": add_generation_prompt, "v": {' + items + '}} | tojson -}}')
    if openai:
        t += "{%- for m in messages %}{%- for c in m.content %}{%- endfor %}{%- endfor %}"
    if developer:
        t += "{#- 'developer' -#}"
    return t


CONTINUE_TEMPLATE = ('{{- {"messages": messages} | tojson -}}\n---\n'
                     '{%- for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>\n{% endfor -%}')

U = {"role": "user", "content": "Hi"}


def call(cid, args, **extra):
    e = {"id": cid, "type": "function", "function": {"name": "f", "arguments": args}}
    e.update(extra)
    return e


def conv_cases():
    C = []

    def add(cid, body, openai=False, developer=False, policy="strict", kwargs_probe=None, api="http"):
        C.append({"id": cid, "body": json.dumps(body) if not isinstance(body, str) else body, "openai": openai,
                  "developer": developer, "policy": policy, "api": api})

    add("plain", {"messages": [U]})
    add("plain_openai", {"messages": [U, {"role": "assistant", "content": None}, {"role": "user", "content": ""}]}, openai=True)
    add("parts_string", {"messages": [{"role": "user", "content": ["a", "", {"type": "text", "text": "b"},
        {"type": "input_text", "text": "c"}, {"type": "refusal", "refusal": "r"}, {"type": "thinking", "thinking": "t"},
        {"type": "text", "text": ""}]}]})
    add("parts_openai", {"messages": [{"role": "user", "content": ["a", "", {"type": "text", "text": "b"},
        {"type": "output_text", "text": "c"}, {"type": "text", "text": ""}]}]}, openai=True)
    add("tool_collapse_openai", {"messages": [U, {"role": "tool", "tool_call_id": "c1", "content": [
        {"type": "text", "text": "x"}, {"type": "text", "text": "y"}]}, {"role": "tool", "tool_call_id": None, "content": []},
        {"role": "tool", "content": "z", "name": "nm"}]}, openai=True)
    add("assistant_fields", {"messages": [U, {"role": "assistant", "content": "ok", "reasoning": "because",
        "name": "bot", "extra_field": 1, "task": "t1"}, {"role": "user", "content": "more", "reasoning": "ignored"}]})
    add("reasoning_content_rename", {"messages": [U, {"role": "assistant", "content": "a", "reasoning_content": "rc"},
        {"role": "assistant", "content": "b", "reasoning": None, "reasoning_content": "rc2"},
        {"role": "assistant", "content": "c", "reasoning": "r3", "reasoning_content": "rc3"}]})
    add("developer_converted", {"messages": [{"role": "system", "content": "S"}, U,
        {"role": "developer", "content": "D"}, {"role": "developer", "content": ["p", {"type": "text", "text": "q"}]}]})
    add("developer_kept", {"messages": [{"role": "developer", "content": "D", "tools": [{"type": "function"}]},
        {"role": "developer", "content": "E"}, U]}, developer=True)
    add("developer_first_only", {"messages": [{"role": "developer", "content": "D"}, U]})
    add("tool_calls_order", {"messages": [U, {"role": "assistant", "content": None, "tool_calls": [
        {"function": {"x_extra": True, "arguments": "{\"b\": 1, \"10\": 2, \"2\": 3}", "name": "f"}, "index": 0,
         "type": "function", "id": "c1"}]}, {"role": "tool", "tool_call_id": "c1", "content": "r"}]})
    add("args_variants", {"messages": [U, {"role": "assistant", "content": "", "tool_calls": [
        call("a", ""), call("b", "null"), call("c", "[1, 2]"), call("d", "42"), call("e", "true"), call("f", "\"x\""),
        call("g", "1.0"), call("h", "{\"a\": 1, \"a\": 2, \"big\": 123456789012345678901234567890, \"f\": 1e-07, \"z\": -0.0}"),
        call("i", " {\"n\": NaN, \"i\": -Infinity} "), call("k", "\"\\ud800\"")]}]})
    add("args_missing", {"messages": [U, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "m", "function": {"name": "f"}, "type": "function"}]}]}, api="offline")
    add("args_structured", {"messages": [U, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "s", "function": {"arguments": {"b": 1, "10": 2, "x": None}, "name": "f"}},
        {"id": "n", "function": {"arguments": None, "name": "g"}, "type": "function"}]}]}, api="offline")
    add("empty_tool_calls", {"messages": [U, {"role": "assistant", "content": "x", "tool_calls": []},
        {"role": "assistant", "content": "y", "tool_calls": None}]})
    add("args_malformed", {"messages": [U, {"role": "assistant", "content": None, "tool_calls": [
        call("a", "{\"city\": \"Paris\"}"), call("b", "{\"city\": \"Par")]}]})
    add("args_malformed_lenient", {"messages": [U, {"role": "assistant", "content": None, "tool_calls": [
        call("a", "{'city': 'Paris'}"), call("b", "[1]"), call("c", "7"), call("d", "null"), call("e", "{\"ok\": 1}")]}]},
        policy="lenient")
    add("bad_type", {"messages": [U, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "a", "type": "custom", "function": {"name": "f", "arguments": "{}"}}]}]})
    add("tools_shapes", {"messages": [U], "tools": [
        {"type": "function", "function": {"name": "no_params"}},
        {"function": {"name": "s", "strict": True, "description": "d", "parameters": {"type": "object", "x": 1.0, "2": 0, "1": 1}}},
        {"type": "function", "function": {"name": "e", "parameters": {}, "x_vendor": {"a": 1}, "strict": None}, "zz": 2},
        {"type": "function", "defer_loading": True, "function": {"name": "dl"}}]})
    add("kwargs_precedence", {"messages": [U], "add_generation_prompt": False, "reasoning_effort": "low",
        "chat_template_kwargs": {"custom_flag": "auto", "add_generation_prompt": True, "bos_token": "<B>",
                                 "unreferenced": 1, "padding": True}})
    add("kwargs_enable_thinking_user", {"messages": [U], "reasoning_effort": "none",
        "chat_template_kwargs": {"enable_thinking": True, "custom_flag": [1, 2.0]}})
    add("kwargs_reasoning_none", {"messages": [U], "reasoning_effort": "none"})
    add("documents", {"messages": [U], "documents": [{"title": "t", "text": "x"}], "chat_template_kwargs": {"custom_flag": None}})
    add("conflict_explicit", {"messages": [U], "add_generation_prompt": True, "continue_final_message": True})
    add("conflict_default", {"messages": [U], "continue_final_message": True})
    add("int_like_keys_body", '{"messages": [{"role": "user", "content": "Hi", "2": 1}], "tools": [{"type": "function", '
        '"function": {"name": "f", "parameters": {"properties": {"b": {}, "10": {}, "2": {}}, "minimum": 1.0, "big": 99999999999999999999}}}]}')
    return C


def part2():
    sys.path.insert(0, os.path.join(HERE, "golden"))
    import generate_real as gr  # noqa: E402
    import vllm.renderers.hf as hf  # noqa: E402

    gr.setup()
    out = []
    for c in conv_cases():
        tpl = dump_template(c["openai"], c["developer"])
        case = {"request": json.loads(c["body"]), "bos_token": "<bos>", "eos_token": "<eos>", "policy": c["policy"],
                "api": c["api"]}
        res = gr.render_case(tpl, case)
        entry = {"id": c["id"], "body": c["body"], "policy": c["policy"],
                 "contentFormat": gr.content_format_of(tpl),
                 "undeclared": sorted(hf._cached_resolve_chat_template_kwargs(tpl)),
                 "supportsDeveloperRole": c["developer"]}
        if "prompt" in res:
            ctx = json.loads(res["prompt"])
            v = {k: x for k, x in ctx.pop("v").items() if x != UNDEF}
            ctx.update(v)
            entry["context"] = tag(ctx)
            entry["warnings"] = res.get("warnings", [])
        else:
            entry["error"] = {k: res[k] for k in res if k != "ok"}
        out.append(entry)
    # continue_final_message through a template that prints the messages
    for cid, msgs, openai in [
        ("continue_string", [U, {"role": "assistant", "content": "Waves fold into foam"}], False),
        ("continue_trailing_space", [U, {"role": "assistant", "content": "Hello  "}], False),
        ("continue_openai", [U, {"role": "assistant", "content": [{"type": "text", "text": "A"}, {"type": "text", "text": "B"}]}], True),
    ]:
        body = {"messages": msgs, "add_generation_prompt": False, "continue_final_message": True}
        tpl = CONTINUE_TEMPLATE + ("{%- for m in messages %}{%- for c in m.content %}{%- endfor %}{%- endfor %}" if openai else "")
        case = {"request": body, "bos_token": "<bos>", "eos_token": "<eos>"}
        res = gr.render_case(tpl, case)
        out.append({"id": cid, "body": json.dumps(body), "policy": "strict", "contentFormat": gr.content_format_of(tpl),
                    "undeclared": sorted(hf._cached_resolve_chat_template_kwargs(tpl)), "supportsDeveloperRole": False,
                    "templateSource": tpl, "continuePrompt": res.get("prompt"), "error": None if "prompt" in res else res})
    return out


def main():
    doc = {"_generated_by": "scripts/conversation-vectors.py", "python": sys.version.split()[0]}
    doc.update(part1())
    try:
        import vllm  # noqa: F401
    except ImportError:
        print("vLLM not importable: conversation vectors kept from the previous file", file=sys.stderr)
        if os.path.exists(OUT):
            with open(OUT, encoding="utf-8") as f:
                doc["conversation"] = json.load(f).get("conversation", [])
    else:
        doc["vllm"] = vllm.__version__
        doc["conversation"] = part2()
    with open(OUT, "w", encoding="utf-8", newline="\n") as f:
        json.dump(doc, f, ensure_ascii=True, indent=1)
        f.write("\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
