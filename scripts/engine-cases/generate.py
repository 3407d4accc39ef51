#!/usr/bin/env python3
"""Fill in expected outputs of the engine unit cases from Python Jinja2.

Each file test/engine/cases/*.json holds {"cases": [{"name", "template",
"context_json"?, ...}]}. This script renders every case in the environment
transformers' apply_chat_template builds (ImmutableSandboxedEnvironment,
trim_blocks, lstrip_blocks, loopcontrols, {% generation %}, json.dumps tojson,
raise_exception, strftime_now on a fixed clock) and writes back either
"expected" (the output) or "error" (the Python exception class name), plus the
Jinja2 version used. Our engine's tests compare against these values only.

Usage: python3 scripts/engine-cases/generate.py [--check] [FILES...]
"""
import argparse
import datetime
import glob
import json
import os
import sys

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

FIXED_NOW = datetime.datetime(2026, 1, 15, 10, 30, 5, 123456)


class GenerationExtension(Extension):
    """{% generation %}...{% endgeneration %} renders its body unchanged."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_render", []), [], [], body).set_lineno(lineno)

    def _render(self, caller):
        return caller()


class TemplateError(Exception):
    pass


def make_env():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    def strftime_now(fmt):
        return FIXED_NOW.strftime(fmt)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationExtension, loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def render_case(env, case):
    ctx = json.loads(case.get("context_json", "{}"))
    try:
        out = env.from_string(case["template"]).render(**ctx)
        return {"expected": out}
    except Exception as e:  # noqa: BLE001 - the class name is the expected value
        return {"error": type(e).__name__, "error_message": str(e)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true", help="fail if any file would change")
    ap.add_argument("files", nargs="*")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = a.files or sorted(glob.glob(os.path.join(root, "test", "engine", "cases", "*.json")))
    env = make_env()
    changed = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        for case in doc["cases"]:
            for k in ("expected", "error", "error_message"):
                case.pop(k, None)
            case.update(render_case(env, case))
        doc["generated_by"] = {"jinja2": jinja2.__version__, "python": sys.version.split()[0],
                               "now": FIXED_NOW.isoformat()}
        text = json.dumps(doc, ensure_ascii=False, indent=1) + "\n"
        with open(path, encoding="utf-8") as f:
            old = f.read()
        if old != text:
            changed.append(path)
            if not a.check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    if a.check and changed:
        print("engine cases out of date:", *changed, sep="\n  ")
        return 1
    print(f"{len(files)} case files, {len(changed)} {'stale' if a.check else 'updated'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
