#!/usr/bin/env python3
"""Expected prompts for tool-call key order, from pinned vLLM 0.25.0.

    scripts/golden/.venv/bin/python test/conversation/offline-order.gen.py > test/conversation/offline-order.json

Each vector is rendered by the real vLLM pipeline that scripts/golden/
generate_real.py drives (its `render_case`): api "offline" is the LLM.chat
path (raw message dicts into `parse_chat_messages` + `_postprocess_messages`,
no pydantic rebuild), api "http" the /v1/chat/completions path. The templates
print the tool-call dicts (repr, tojson, keys), so the key order the template
saw is part of the prompt; one template prints each message's keys and its
reasoning (the HTTP request model renames reasoning_content to reasoning,
the offline path does not).
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts", "golden"))
import generate_real as g  # noqa: E402

TEMPLATES = {
    "repr": "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% for tc in m.tool_calls or [] %}{{ tc }}\n{% endfor %}{% endfor %}",
    "tojson": "{% for m in messages %}{% if m.tool_calls %}{{ m.tool_calls|tojson }}\n{% endif %}{% endfor %}",
    "xlam": "{% for m in messages %}{% if m.tool_calls %}<tool_call>[{% for tc in m.tool_calls %}{{ tc.function|tojson }}{% if not loop.last %}, {% endif %}{% endfor %}]</tool_call>\n{% endif %}{% endfor %}",
    "keys": "{% for m in messages %}{% for tc in m.tool_calls or [] %}{{ tc|list }} {{ tc.function|list }} {% for k, v in tc.function.items() %}{{ k }}={{ v }};{% endfor %}\n{% endfor %}{% endfor %}",
    "message-keys": "{% for m in messages %}{{ m|list }} {{ m.reasoning }}|{{ m.reasoning_content }}\n{% endfor %}",
}

USER = {"role": "user", "content": "What is the weather?"}


def assistant(*calls):
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


REQUESTS = [
    ("object-args-name-first", "offline", [USER, assistant(
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}}})]),
    ("object-args-arguments-first", "offline", [USER, assistant(
        {"id": "c1", "type": "function", "function": {"arguments": {"city": "Paris"}, "name": "get_weather"}})]),
    ("null-args", "offline", [USER, assistant(
        {"id": "c1", "type": "function", "function": {"name": "now", "arguments": None}})]),
    ("missing-args", "offline", [USER, assistant(
        {"id": "c1", "type": "function", "function": {"name": "now"}})]),
    ("missing-type-entry-order", "offline", [USER, assistant(
        {"function": {"name": "now", "arguments": {}}, "id": "c1"})]),
    ("type-first-extras", "offline", [USER, assistant(
        {"type": "function", "id": "c1", "function": {"name": "f", "arguments": {"b": 1, "a": [1.5, None]}, "strict": True},
         "index": 0})]),
    ("mixed-string-and-object", "offline", [USER, assistant(
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1}"}},
        {"type": "function", "id": "c2", "function": {"name": "g", "arguments": {"y": 2}}})]),
    ("two-messages", "offline", [USER, assistant(
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}),
        {"role": "tool", "tool_call_id": "c1", "content": "ok"}, assistant(
        {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{}"}})]),
    ("reasoning-content", "offline", [USER, dict(assistant(
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}), reasoning_content="think")]),
    ("reasoning-and-reasoning-content", "offline", [USER, dict(assistant(
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": None}}), reasoning="r", reasoning_content="rc")]),
    ("http-reasoning-content", "http", [USER, dict(assistant(
        {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}), reasoning_content="think")]),
    ("http-string-args", "http", [USER, assistant(
        {"type": "function", "id": "c1", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}})]),
    ("http-string-args-extras", "http", [USER, assistant(
        {"type": "function", "id": "c1", "function": {"name": "f", "arguments": "{\"b\": 1, \"a\": 2}"}, "index": 3})]),
]


def main() -> int:
    g.setup()
    out = []
    for rid, api, messages in REQUESTS:
        for tname, tsrc in TEMPLATES.items():
            case = {"id": f"{rid}/{tname}", "request": {"messages": messages}, "bos_token": "<s>", "eos_token": "</s>", "api": api}
            r = g.render_case(tsrc, case)
            if not r.get("ok"):
                raise SystemExit(f"{case['id']}: {r}")
            out.append({"id": case["id"], "api": api, "template": tsrc, "request": case["request"], "prompt": r["prompt"]})
    import vllm, transformers, jinja2  # noqa: E401
    doc = {"generated_by": "test/conversation/offline-order.gen.py",
           "versions": {"vllm": vllm.__version__, "transformers": transformers.__version__, "jinja2": jinja2.__version__},
           "vectors": out}
    json.dump(doc, sys.stdout, indent=1, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
