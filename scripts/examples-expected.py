#!/usr/bin/env python3
"""Expected prompt of the bundled example (examples/tool-loop.json through
examples/chat_template.jinja), rendered by the pure-Jinja2 mirror of pinned
vLLM's pipeline (scripts/golden/mirror.py). Writes test/api/example.expected.json.
"""
import json
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(root, "scripts", "golden"))
import mirror  # noqa: E402

with open(os.path.join(root, "examples", "tool-loop.json"), encoding="utf-8") as f:
    request = json.load(f)
with open(os.path.join(root, "examples", "chat_template.jinja"), encoding="utf-8") as f:
    template = f.read()
case = {"request": request, "bos_token": "<bos>", "eos_token": "<eos>", "now": "2026-01-15T10:30:00"}
result = mirror.render_case(template, case)
out = os.path.join(root, "test", "api", "example.expected.json")
with open(out, "w", encoding="utf-8") as f:
    json.dump({"generated_by": "scripts/examples-expected.py (scripts/golden/mirror.py)", **result}, f, ensure_ascii=False, indent=1)
    f.write("\n")
print(out, "ok" if result.get("ok") else result)
