#!/usr/bin/env python3
"""Python's answers for the hostile-template payloads.

Reads test/engine/hostile/payloads.json ({"payloads": [{"id", "template",
"context_json"?, "bomb"?}]}) and writes test/engine/hostile/expected.json:
for each payload id, {"expected": output} or {"error": PythonExceptionClass}
as Jinja2 renders it in transformers' environment (the engine cases'
make_env: ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks,
loopcontrols, json.dumps tojson). Each payload renders in its own process
with a CPU-time limit and a 1 GiB address-space limit; a payload that
Python cannot finish within them, or that runs out of memory, is recorded
as {"limit": reason}: our engine must then stop it with a LimitError.
Payloads marked "bomb" (they would need terabytes or hours) are not run and
are recorded as {"limit": "bomb"}.

Usage: python3 scripts/hostile/expected.py [--check]
"""
import argparse
import json
import os
import resource
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAYLOADS = os.path.join(ROOT, "test", "engine", "hostile", "payloads.json")
EXPECTED = os.path.join(ROOT, "test", "engine", "hostile", "expected.json")
CPU_SECONDS = 10
MEMORY_BYTES = 1 << 30

CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from generate import make_env
case = json.loads(sys.stdin.read())
try:
    out = make_env().from_string(case["template"]).render(**json.loads(case.get("context_json", "{}")))
    result = {"expected": out}
except MemoryError:
    result = {"limit": "MemoryError"}
except Exception as e:
    result = {"error": type(e).__name__, "error_message": str(e)[:300]}
sys.stdout.write(json.dumps(result, ensure_ascii=False))
"""


def limit_child():
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))


def run_payload(case):
    if case.get("bomb"):
        return {"limit": "bomb"}
    p = subprocess.run([sys.executable, "-c", CHILD, os.path.join(ROOT, "scripts", "engine-cases")],
                       input=json.dumps(case), capture_output=True, text=True, preexec_fn=limit_child,
                       timeout=CPU_SECONDS * 3)
    if p.returncode != 0 or not p.stdout:
        # Killed by the CPU limit, or died allocating: Python cannot answer.
        return {"limit": f"python exited with {p.returncode}"}
    return json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="fail if the expected file would change")
    a = ap.parse_args()
    import jinja2

    with open(PAYLOADS, encoding="utf-8") as f:
        payloads = json.load(f)["payloads"]
    ids = [c["id"] for c in payloads]
    if len(set(ids)) != len(ids):
        sys.exit("duplicate payload ids")
    results = {c["id"]: run_payload(c) for c in payloads}
    doc = {"generated_by": {"jinja2": jinja2.__version__, "python": sys.version.split()[0]}, "results": results}
    text = json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
    old = open(EXPECTED, encoding="utf-8").read() if os.path.exists(EXPECTED) else ""
    if a.check:
        if old != text:
            print("hostile expectations out of date: run scripts/hostile/expected.py")
            return 1
        print(f"{len(payloads)} payloads, up to date")
        return 0
    with open(EXPECTED, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"{len(payloads)} payloads written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
