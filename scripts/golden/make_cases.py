#!/usr/bin/env python3
"""Write the golden case corpus (test/golden/cases/*.json).

The corpus is committed; this script documents how each file was made and
regenerates them byte for byte (it is deterministic). Run it only when a shape
is added or changed:

    python3 scripts/golden/make_cases.py

Every case is a JSON text. Numbers inside tool schemas are written by Python's
json module, so a float written as 0.0 stays 0.0 in the file (the int/float
distinction is part of what the goldens test).
"""

from __future__ import annotations

import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(REPO, "test", "golden", "cases")

NOW = "2026-01-15T10:30:00"
BOS = "<bos>"
EOS = "<eos>"

WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name, e.g. Paris"},
                "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                "days": {"type": "integer", "minimum": 0.0, "maximum": 14},
            },
            "required": ["city"],
        },
    },
}

SEARCH = {
    "type": "function",
    "function": {
        "name": "search_web",
        "description": "Search the web and return the top results.",
        "parameters": {
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "max_results": {"type": "integer", "default": 5},
                "threshold": {"type": "number", "minimum": 0.0, "maximum": 1.0},
            },
            "required": ["query"],
        },
    },
}

TERMINAL = {
    "type": "function",
    "function": {
        "name": "terminal",
        "description": "Run a shell command and return its output.",
        "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string", "description": "The command to run"}},
            "required": ["command"],
        },
    },
}

WRITE_FILE = {
    "type": "function",
    "function": {
        "name": "write_file",
        "description": "Write text to a file.",
        "parameters": {
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "content": {"type": "string"},
            },
            "required": ["path", "content"],
        },
    },
}

ECHO = {
    "type": "function",
    "function": {
        "name": "echo",
        "description": "Echo the given value back.",
        "parameters": {"type": "object", "properties": {}},
    },
}


def call(cid: str, name: str, arguments, **extra):
    fn = {"name": name}
    if arguments is not _MISSING:
        fn["arguments"] = arguments
    entry = {"id": cid, "type": "function", "function": fn}
    entry.update(extra)
    return entry


_MISSING = object()

CASES: list[dict] = []


def case(cid, description, messages, tools=None, policy=None, api=None, bos=BOS, eos=EOS, **req):
    request = {"messages": messages}
    if tools is not None:
        request["tools"] = tools
    request.update(req)
    c = {
        "id": cid,
        "description": description,
        "request": request,
        "bos_token": bos,
        "eos_token": eos,
        "now": NOW,
    }
    if policy:
        c["policy"] = policy
    if api:
        c["api"] = api
    CASES.append(c)


def args_case(cid, description, arguments, policy=None, tools=None, api=None, drop_type=False):
    """user -> assistant tool call with `arguments` -> tool result -> generation."""
    entry = call("call_1", "echo", arguments)
    if drop_type:
        del entry["type"]
    case(
        cid,
        description,
        [
            {"role": "user", "content": "Call echo with the value."},
            {"role": "assistant", "content": None, "tool_calls": [entry]},
            {"role": "tool", "tool_call_id": "call_1", "content": "ok"},
        ],
        tools=tools if tools is not None else [ECHO],
        policy=policy,
        api=api,
    )


# --- basic conversation shapes ------------------------------------------------

case("plain_chat", "A single user message.", [{"role": "user", "content": "Hello! How are you?"}])

case(
    "system_prompt",
    "System prompt followed by a user message.",
    [
        {"role": "system", "content": "You are a concise assistant. Answer in one sentence."},
        {"role": "user", "content": "What is the capital of France?"},
    ],
)

case(
    "developer_role",
    "Developer message instead of system (vLLM converts it to system when the template "
    "never mentions 'developer').",
    [
        {"role": "developer", "content": "Always answer in French."},
        {"role": "user", "content": "What is the capital of France?"},
    ],
)

case(
    "developer_after_system",
    "A system message and a later developer message (consolidation of system messages).",
    [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!"},
        {"role": "developer", "content": "From now on answer in French."},
        {"role": "user", "content": "How are you?"},
    ],
)

case(
    "multi_turn",
    "System, then three user/assistant exchanges ending with a user message.",
    [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Hi there."},
        {"role": "assistant", "content": "Hello! How can I help you today?"},
        {"role": "user", "content": "Tell me a joke."},
        {"role": "assistant", "content": "Why did the chicken cross the road? To get to the other side."},
        {"role": "user", "content": "Another one, please."},
    ],
)

case(
    "tools_no_calls",
    "Tools offered, no call made yet.",
    [
        {"role": "system", "content": "You can call tools."},
        {"role": "user", "content": "What's the weather like in Paris?"},
    ],
    tools=[WEATHER, SEARCH],
)

case(
    "single_tool_call",
    "One tool call with JSON-string arguments, its result, then generation.",
    [
        {"role": "user", "content": "What's the weather like in Paris?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [call("call_w1", "get_weather", '{"city": "Paris", "unit": "celsius"}')],
        },
        {"role": "tool", "tool_call_id": "call_w1", "content": '{"temperature": 18, "condition": "sunny"}'},
    ],
    tools=[WEATHER],
)

case(
    "parallel_tool_calls",
    "Two tool calls in one assistant message, two results.",
    [
        {"role": "user", "content": "Compare the weather in Paris and Tokyo."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                call("call_p1", "get_weather", '{"city": "Paris"}'),
                call("call_p2", "get_weather", '{"city": "Tokyo", "unit": "celsius"}'),
            ],
        },
        {"role": "tool", "tool_call_id": "call_p1", "content": "18C, sunny"},
        {"role": "tool", "tool_call_id": "call_p2", "content": "22C, cloudy"},
    ],
    tools=[WEATHER],
)

case(
    "tool_loop_answer",
    "Two rounds of tool calls ending in a final assistant answer; no generation prompt.",
    [
        {"role": "system", "content": "You are a research assistant."},
        {"role": "user", "content": "Find the population of Lyon and then the weather there."},
        {"role": "assistant", "content": None,
         "tool_calls": [call("call_a", "search_web", '{"query": "population of Lyon", "max_results": 3}')]},
        {"role": "tool", "tool_call_id": "call_a", "content": "Lyon has about 520,000 inhabitants."},
        {"role": "assistant", "content": "Now the weather.",
         "tool_calls": [call("call_b", "get_weather", '{"city": "Lyon"}')]},
        {"role": "tool", "tool_call_id": "call_b", "content": "15C, light rain"},
        {"role": "assistant", "content": "Lyon has about 520,000 inhabitants and it is 15C with light rain."},
    ],
    tools=[SEARCH, WEATHER],
    add_generation_prompt=False,
)

# --- tool-call argument variants ---------------------------------------------

args_case("args_json_object", "Arguments: a JSON object string with mixed value types.",
          '{"text": "hi", "count": 3, "ratio": 0.5, "flag": true, "none": null, "tags": ["a", "b"]}')
args_case("args_empty_string", "Arguments: the empty string (vLLM maps it to {}).", "")
args_case("args_missing", "Arguments key missing from the function object (offline api: LLM.chat-style dicts; "
          "vLLM's _postprocess_messages maps it to {}; over HTTP pydantic rejects it).", _MISSING, api="offline")
args_case("args_null", "Arguments: JSON null, not a string (offline api: mapped to {} by _postprocess_messages; "
          "over HTTP pydantic rejects it).", None, api="offline")
args_case("args_object", "Arguments: an object, not a string (offline api: kept as given by _postprocess_messages; "
          "over HTTP pydantic rejects it).",
          {"text": "hi", "count": 3, "ratio": 1.0, "flag": True, "none": None, "nested": {"b": 1, "10": 2, "2": 3}},
          api="offline")
args_case("args_object_empty", "Arguments: the empty object {} (offline api: falsy, mapped to {}).", {}, api="offline")
args_case("args_missing_type", "Tool-call entry without \"type\", string arguments (offline api: "
          "_postprocess_messages defaults the type to function; the entry reaches the template without it).",
          '{"text": "hi"}', api="offline", drop_type=True)
args_case("args_string_null", 'Arguments: the string "null" (decodes to None, mapped to {}).', "null")
args_case("args_invalid_json", "Arguments: malformed JSON (strict policy: the request fails).",
          '{"text": "unterminated')
args_case("args_invalid_json_lenient", "Arguments: malformed JSON under the lenient policy ({} + warning).",
          '{"text": "unterminated', policy="lenient")
args_case("args_nested", "Arguments: nested objects and arrays.",
          '{"user": {"name": "Ada", "address": {"city": "London", "zip": "N1"}, "roles": ["admin", {"scope": "all"}]}, "empty_obj": {}, "empty_list": []}')
args_case("args_unicode", "Arguments: non-ASCII text, emoji, CJK, escaped and raw.",
          '{"greeting": "héllo wörld", "emoji": "😀🎉", "cjk": "你好，世界", "escaped": "\\u00e9\\ud83d\\ude00", "rtl": "שלום"}')
args_case("args_code", "Arguments: code with quotes, newlines, tabs and backslashes.",
          json.dumps({"code": "def f(x):\n\treturn \"a\\\\b\" + 'c'\n", "path": "C:\\Users\\me\\file.txt", "html": "<a href=\"x\">&amp;</a>"}))
args_case("args_floats", "Arguments: floats whose Python repr matters.",
          '{"a": 1.0, "b": 1e-07, "c": 1e+16, "d": 0.1, "e": 2.5E3, "f": -0.0, "g": 100, "h": 0.30000000000000004}')
args_case("args_big_ints", "Arguments: integers beyond 64 bits.",
          '{"big": 12345678901234567890123, "neg": -98765432109876543210, "small": 7}')
args_case("args_int_like_keys", "Arguments: integer-like keys must keep their order.",
          '{"b": 1, "10": 2, "2": 3}')
args_case("args_duplicate_keys", "Arguments: duplicate keys (first position, last value).",
          '{"a": 1, "b": 2, "a": 3}')
args_case("args_nan_infinity", "Arguments: NaN and Infinity literals (accepted by Python json).",
          '{"x": NaN, "y": Infinity, "z": -Infinity}')
args_case("args_json_list", "Arguments: a JSON list (kept as a list by pinned vLLM).", '[1, "two", {"three": 3}]')
args_case("args_json_list_lenient", "Arguments: a JSON list under the lenient policy ({} + warning).",
          '[1, "two", {"three": 3}]', policy="lenient")
args_case("args_scalar", 'Arguments: the scalar "42" (kept as int 42 by pinned vLLM).', "42")

# --- content and message fields -------------------------------------------------

case(
    "content_text_parts",
    "User and system content as lists of text parts, including an empty part.",
    [
        {"role": "system", "content": [{"type": "text", "text": "You are terse."}]},
        {"role": "user", "content": [
            {"type": "text", "text": "First part."},
            {"type": "text", "text": ""},
            {"type": "text", "text": "Second part."},
        ]},
    ],
)

case(
    "assistant_null_content_tool_calls",
    "Assistant message with content null and tool calls, then the final answer.",
    [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "content": None, "tool_calls": [call("call_o", "get_weather", '{"city": "Oslo"}')]},
        {"role": "tool", "tool_call_id": "call_o", "content": "-3C, snow"},
        {"role": "assistant", "content": "It is -3C and snowing in Oslo."},
        {"role": "user", "content": "Thanks!"},
    ],
    tools=[WEATHER],
)

case(
    "reasoning_content",
    "Assistant turns carrying reasoning_content (renamed to reasoning by vLLM).",
    [
        {"role": "user", "content": "What is 2 + 2?"},
        {"role": "assistant", "content": "4", "reasoning_content": "Simple arithmetic: 2 + 2 = 4."},
        {"role": "user", "content": "And times 3?"},
    ],
)

case(
    "reasoning_field",
    "Assistant turns carrying reasoning, in a tool loop.",
    [
        {"role": "user", "content": "What's the weather in Rome?"},
        {"role": "assistant", "content": None, "reasoning": "I should call get_weather for Rome.",
         "tool_calls": [call("call_r", "get_weather", '{"city": "Rome"}')]},
        {"role": "tool", "tool_call_id": "call_r", "content": "25C, clear"},
        {"role": "assistant", "content": "It is 25C and clear in Rome.", "reasoning": "The tool says 25C."},
        {"role": "user", "content": "And tomorrow?"},
    ],
    tools=[WEATHER],
)

case(
    "tool_message_name",
    "Tool message carrying a name field.",
    [
        {"role": "user", "content": "Weather in Berlin?"},
        {"role": "assistant", "content": None, "tool_calls": [call("call_n", "get_weather", '{"city": "Berlin"}')]},
        {"role": "tool", "tool_call_id": "call_n", "name": "get_weather", "content": "12C, windy"},
    ],
    tools=[WEATHER],
)

case(
    "continue_final_message",
    "Prefill: continue the final assistant message (add_generation_prompt false).",
    [
        {"role": "user", "content": "Write a haiku about the sea."},
        {"role": "assistant", "content": "Waves fold into foam"},
    ],
    add_generation_prompt=False,
    continue_final_message=True,
)

case(
    "continue_final_message_conflict",
    "continue_final_message with add_generation_prompt true is rejected.",
    [
        {"role": "user", "content": "Write a haiku about the sea."},
        {"role": "assistant", "content": "Waves fold into foam"},
    ],
    add_generation_prompt=True,
    continue_final_message=True,
)

case(
    "no_generation_prompt",
    "add_generation_prompt false after a user message.",
    [
        {"role": "system", "content": "You are helpful."},
        {"role": "user", "content": "Hello"},
    ],
    add_generation_prompt=False,
)

case(
    "kwargs_enable_thinking_false",
    "chat_template_kwargs enable_thinking false.",
    [{"role": "user", "content": "Quick: what is 7 * 8?"}],
    chat_template_kwargs={"enable_thinking": False},
)

case(
    "kwargs_unknown_dropped",
    "chat_template_kwargs with a key no template reads (silently dropped).",
    [{"role": "user", "content": "Hi"}],
    chat_template_kwargs={"totally_unknown_flag": "SHOULD_NOT_APPEAR", "enable_thinking": True},
)

case(
    "reasoning_effort",
    "reasoning_effort low (vLLM adds enable_thinking true and passes reasoning_effort).",
    [{"role": "user", "content": "Explain recursion briefly."}],
    reasoning_effort="low",
)

case(
    "tools_missing_fields",
    "Tools without description / parameters, with strict and an unknown extra key.",
    [{"role": "user", "content": "Do something."}],
    tools=[
        {"type": "function", "function": {"name": "no_params"}},
        {"type": "function", "function": {"name": "strict_tool", "description": "Strict one.", "strict": True,
                                          "parameters": {"type": "object", "properties": {"x": {"type": "number", "minimum": 0.0}}}}},
        {"type": "function", "function": {"name": "extra_tool", "parameters": {"type": "object", "properties": {}},
                                          "x_vendor": {"a": 1}}},
    ],
)

case(
    "tool_choice_none",
    "tools with tool_choice none (tools still reach the template by default).",
    [{"role": "user", "content": "Just say hi."}],
    tools=[WEATHER],
    tool_choice="none",
)

case(
    "empty_tool_calls",
    "Assistant message with an empty tool_calls list (vLLM drops the key).",
    [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello!", "tool_calls": []},
        {"role": "user", "content": "Bye"},
    ],
    tools=[WEATHER],
)

case(
    "tool_call_extra_keys",
    "Tool-call entries in unusual key order, with extra keys.",
    [
        {"role": "user", "content": "Weather in Nice?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"type": "function", "function": {"arguments": '{"city": "Nice"}', "name": "get_weather"}, "id": "call_x",
             "index": 0},
        ]},
        {"role": "tool", "tool_call_id": "call_x", "content": "20C"},
    ],
    tools=[WEATHER],
)

case(
    "unicode_messages",
    "Non-ASCII text in message contents (CJK, emoji, combining marks, RTL).",
    [
        {"role": "system", "content": "Réponds en français. 日本語も可。"},
        {"role": "user", "content": "Café ☕ — naïve résumé 😀👍🏽 你好 مرحبا e\u0301"},
    ],
)

case(
    "gemma4_terminal",
    "user -> assistant tool_call terminal {\"command\":\"date\"} -> tool result -> generation.",
    [
        {"role": "user", "content": "What time is it on the server?"},
        {"role": "assistant", "content": None,
         "tool_calls": [call("call_t1", "terminal", '{"command":"date"}')]},
        {"role": "tool", "tool_call_id": "call_t1", "content": "Thu Jan 15 10:30:00 UTC 2026"},
    ],
    tools=[TERMINAL],
)


case(
    "tool_content_parts",
    "Tool result given as a list of text parts (collapsed to a string by vLLM).",
    [
        {"role": "user", "content": "Weather in Kyiv?"},
        {"role": "assistant", "content": None, "tool_calls": [call("call_k", "get_weather", '{"city": "Kyiv"}')]},
        {"role": "tool", "tool_call_id": "call_k", "content": [{"type": "text", "text": "5C"}, {"type": "text", "text": "cloudy"}]},
    ],
    tools=[WEATHER],
)

case(
    "continue_final_message_parts",
    "Prefill where the final assistant content is a list of text parts.",
    [
        {"role": "user", "content": "Count to five."},
        {"role": "assistant", "content": [{"type": "text", "text": "One, two,"}, {"type": "text", "text": "three"}]},
    ],
    add_generation_prompt=False,
    continue_final_message=True,
)

case(
    "kwargs_override_and_unset",
    "chat_template_kwargs overriding bos_token, plus null/\"auto\" values (dropped) and an "
    "add_generation_prompt that the request-level value overrides.",
    [{"role": "user", "content": "Hi"}],
    chat_template_kwargs={"bos_token": "<BOS_OVERRIDE>", "enable_thinking": "auto", "add_generation_prompt": False,
                          "preserve_thinking": None},
)

case(
    "reasoning_effort_none",
    "reasoning_effort none (vLLM adds enable_thinking false).",
    [{"role": "user", "content": "Hi"}],
    reasoning_effort="none",
)

case(
    "tool_call_custom_type",
    "A tool-call entry of type custom (rejected by vLLM's post-processing).",
    [
        {"role": "user", "content": "Run it."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_c", "type": "custom", "custom": {"name": "echo", "input": "hello"}}]},
        {"role": "tool", "tool_call_id": "call_c", "content": "hello"},
    ],
    tools=[ECHO],
)

case(
    "tools_empty_list",
    "tools: [] (rejected at request validation).",
    [{"role": "user", "content": "Hi"}],
    tools=[],
)

case(
    "user_name_and_system_only",
    "A system message only, with a name field on it.",
    [{"role": "system", "content": "You are a pirate.", "name": "captain"}],
)

case(
    "tool_choice_named",
    "Named tool_choice matching one of the tools.",
    [{"role": "user", "content": "Weather in Lisbon?"}],
    tools=[WEATHER, SEARCH],
    tool_choice={"type": "function", "function": {"name": "get_weather"}},
)


def long_history() -> list[dict]:
    rng = random.Random(20260115)
    cities = ["Paris", "Tokyo", "Lima", "Oslo", "Cairo", "Quito", "Hanoi", "Perth", "Dakar", "Riga"]
    cmds = ["ls -la", "pwd", "cat README.md", "git status", "echo \"done\"", "grep -rn TODO src",
            "python3 -c 'print(1+1)'", "wc -l *.py"]
    msgs: list[dict] = [
        {"role": "system", "content": "You are an autonomous coding agent. Use tools when helpful."},
        {"role": "user", "content": "Work through the tasks in the repository and report progress."},
    ]
    n = 0
    while len(msgs) < 104:
        n += 1
        kind = rng.randrange(4)
        cid = f"call_{n:03d}"
        if kind == 0:
            city = rng.choice(cities)
            args = json.dumps({"city": city, "days": rng.randrange(1, 5)})
            msgs.append({"role": "assistant", "content": None,
                         "tool_calls": [call(cid, "get_weather", args)]})
            msgs.append({"role": "tool", "tool_call_id": cid,
                         "content": f"{rng.randrange(-5, 35)}C in {city}"})
        elif kind == 1:
            cmd = rng.choice(cmds)
            msgs.append({"role": "assistant", "content": f"Step {n}: running a command.",
                         "tool_calls": [call(cid, "terminal", json.dumps({"command": cmd}))]})
            msgs.append({"role": "tool", "tool_call_id": cid,
                         "content": f"$ {cmd}\nexit code {rng.randrange(2)}\n"})
        elif kind == 2:
            a, b = f"{cid}a", f"{cid}b"
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                call(a, "search_web", json.dumps({"query": f"topic {n}", "threshold": rng.choice([0.5, 1.0, 0.25])})),
                call(b, "write_file", json.dumps({"path": f"notes/{n}.md", "content": f"# Note {n}\nline \"q\"\n"})),
            ]})
            msgs.append({"role": "tool", "tool_call_id": a, "content": f"result for topic {n}"})
            msgs.append({"role": "tool", "tool_call_id": b, "content": "written"})
        else:
            msgs.append({"role": "assistant", "content": f"Progress update {n}: all good so far."})
            msgs.append({"role": "user", "content": f"Continue with task {n + 1}."})
    msgs.append({"role": "assistant", "content": "All tasks are complete."})
    msgs.append({"role": "user", "content": "Summarise what you did."})
    return msgs


case(
    "long_agentic_history",
    "A deterministic agentic history of 100+ messages (tool loops, parallel calls, progress turns).",
    long_history(),
    tools=[WEATHER, TERMINAL, SEARCH, WRITE_FILE],
)


def main() -> int:
    os.makedirs(OUT, exist_ok=True)
    ids = [c["id"] for c in CASES]
    assert len(ids) == len(set(ids)), "duplicate case ids"
    for c in CASES:
        path = os.path.join(OUT, c["id"] + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(c, f, indent=1, ensure_ascii=False)
            f.write("\n")
    stale = sorted(set(os.listdir(OUT)) - {i + ".json" for i in ids})
    for s in stale:
        print(f"note: {s} is not produced by this script", file=sys.stderr)
    print(f"wrote {len(CASES)} cases to {os.path.relpath(OUT, REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
