#!/usr/bin/env python3
"""Expected template facts from Python: jinja2.meta.find_undeclared_variables
(transformers' environment) and vLLM's content-format detection (through the
pure-Jinja2 mirror of pinned vLLM, scripts/golden/mirror.py), for our own
snippets and for every shared template. Writes test/engine/meta.expected.json.

Usage: python3 scripts/engine-cases/meta.py [TEMPLATES_DIR]
"""
import hashlib
import json
import os
import sys

import jinja2
from jinja2 import meta

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(root, "scripts", "golden"))
sys.path.insert(0, os.path.join(root, "scripts", "engine-cases"))
import mirror  # noqa: E402
from generate import make_env  # noqa: E402

SNIPPETS = {
    "plain_string": "{% for m in messages %}{{ m.content }}{% endfor %}",
    "loop_over_content_attr": "{% for m in messages %}{% for p in m.content %}{{ p.text }}{% endfor %}{% endfor %}",
    "loop_over_content_item": "{% for m in messages %}{% for p in m['content'] %}{{ p }}{% endfor %}{% endfor %}",
    "loop_over_content_filtered": "{% for m in messages %}{% for p in m.content|list %}{{ p }}{% endfor %}{% endfor %}",
    "derived_messages": "{% set msgs = messages[1:] %}{% for m in msgs %}{% for p in m.content %}{{ p }}{% endfor %}{% endfor %}",
    "derived_twice": "{% set a = messages|reverse %}{% set b = a %}{% for m in b %}{% for p in m.content %}{% endfor %}{% endfor %}",
    "indexing_does_not_derive": "{% set first = messages[0] %}{% for p in first.content %}{{ p }}{% endfor %}",
    "assigned_content_not_followed": "{% for m in messages %}{% set c = m.content %}{% for p in c %}{{ p }}{% endfor %}{% endfor %}",
    "bare_content_macro": "{% macro r(content) %}{% for p in content %}{{ p.text }}{% endfor %}{% endmacro %}{% for m in messages %}{{ r(m.content) }}{% endfor %}",
    "tuple_target_is_shape_error": "{% for m in messages %}{% for a, b in m.content %}{% endfor %}{% endfor %}",
    "free_vars": "{% set x = 1 %}{{ x }}{{ y }}{% for i in items %}{{ loop.index }}{{ i }}{% endfor %}{% macro m(a, b=c) %}{{ a }}{{ d }}{% endmacro %}{{ raise_exception('e') if z }}",
}


def facts(env, text):
    return {
        "undeclared": sorted(meta.find_undeclared_variables(env.parse(text))),
        "content_format": mirror.detect_content_format(text),
    }


def main():
    env = make_env()
    tdir = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "NODE_VLLM_CPP_TEMPLATES", os.path.join(root, "..", "shared", "templates"))
    out = {"generated_by": {"jinja2": jinja2.__version__, "script": "scripts/engine-cases/meta.py"},
           "snippets": {k: {"template": v, **facts(env, v)} for k, v in SNIPPETS.items()}, "templates": {}}
    if os.path.isdir(tdir):
        for name in sorted(os.listdir(tdir)):
            if name.endswith(".jinja"):
                raw = open(os.path.join(tdir, name), "rb").read()
                out["templates"][name] = {"sha256": hashlib.sha256(raw).hexdigest(), **facts(env, raw.decode("utf-8"))}
    path = os.path.join(root, "test", "engine", "meta.expected.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(path, len(out["snippets"]), "snippets,", len(out["templates"]), "templates")


if __name__ == "__main__":
    main()
