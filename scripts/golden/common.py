"""Shared plumbing for the golden generators (stdlib only).

Both generators (generate_real.py: pinned vLLM + transformers; mirror.py: our
pure-Jinja2 port) produce one result dict per (template, case) and write the
same file format through `write_expected`.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CASES_DIR = os.path.join(REPO, "test", "golden", "cases")
EXPECTED_DIR = os.path.join(REPO, "test", "golden", "expected")
VENV_PYTHON = os.path.join(HERE, ".venv", "bin", "python")

VLLM_VERSION = "0.25.0"


def templates_dir() -> str:
    return os.environ.get("NODE_VLLM_CPP_TEMPLATES") or os.path.join(os.path.dirname(REPO), "shared", "templates")


def list_templates(tdir: str) -> list[str]:
    return sorted(f for f in os.listdir(tdir) if f.endswith(".jinja"))


def read_template(tdir: str, name: str) -> tuple[str, str]:
    """Return (text, sha256). The text is decoded exactly as transformers does
    when it reads a template file (UTF-8, newlines untouched)."""
    with open(os.path.join(tdir, name), "rb") as f:
        raw = f.read()
    return raw.decode("utf-8"), hashlib.sha256(raw).hexdigest()


def load_cases(only: list[str] | None = None) -> list[tuple[str, dict, str]]:
    """Return [(id, case, case_sha256)] sorted by id. The case is parsed with
    json.load, as vLLM's server parses a request body."""
    out = []
    for fn in sorted(os.listdir(CASES_DIR)):
        if not fn.endswith(".json"):
            continue
        path = os.path.join(CASES_DIR, fn)
        with open(path, "rb") as f:
            raw = f.read()
        case = json.loads(raw.decode("utf-8"))
        cid = case["id"]
        if cid + ".json" != fn:
            raise SystemExit(f"{fn}: id {cid!r} does not match the file name")
        if only and cid not in only:
            continue
        out.append((cid, case, hashlib.sha256(raw).hexdigest()))
    return out


def result_ok(prompt: str, warnings: list[str] | None = None) -> dict:
    r = {"ok": True, "prompt": prompt}
    if warnings:
        r["warnings"] = list(warnings)
    return r


def result_err(exc: BaseException, message: str | None = None, type_name: str | None = None) -> dict:
    return {"ok": False, "error_type": type_name or type(exc).__name__,
            "error_message": str(exc) if message is None else message}


def base_provenance(engine: str, generated_by: str) -> dict:
    try:
        import jinja2  # noqa: PLC0415

        jv = jinja2.__version__
    except Exception:  # pragma: no cover
        jv = None
    return {"engine": engine, "python": platform.python_version(), "jinja2": jv,
            "transformers": None, "vllm": None, "generated_by": generated_by}


def build_document(template: str, sha: str, provenance: dict, results: dict[str, tuple[str, dict]]) -> dict:
    cases = {}
    for cid in sorted(results):
        case_sha, res = results[cid]
        cases[cid] = {"case_sha256": case_sha, **res}
    return {"template": template, "template_sha256": sha, "provenance": provenance, "cases": cases}


def dump_document(doc: dict) -> str:
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def write_document(out_dir: str, doc: dict) -> str:
    os.makedirs(out_dir, exist_ok=True)
    stem = doc["template"][: -len(".jinja")]
    path = os.path.join(out_dir, stem + ".json")
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(dump_document(doc))
    return path


def render_all(render_case, provenance: dict, out_dir: str, tdir: str, only_cases=None, only_templates=None,
               quiet: bool = False) -> list[str]:
    """Render every case with every template through `render_case(text, case)`
    and write one expected document per template. Returns the paths written."""
    cases = load_cases(only_cases)
    written = []
    for name in list_templates(tdir):
        if only_templates and name not in only_templates:
            continue
        text, sha = read_template(tdir, name)
        results = {cid: (csha, render_case(text, case)) for cid, case, csha in cases}
        path = write_document(out_dir, build_document(name, sha, provenance, results))
        written.append(path)
        if not quiet:
            nok = sum(1 for _, r in results.values() if r["ok"])
            print(f"{os.path.relpath(path, REPO)}: {nok}/{len(results)} ok")
    return written


def parse_generator_args(argv, description: str):
    """The generators' shared command line; None when the templates directory is missing."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--out", default=EXPECTED_DIR)
    ap.add_argument("--case", action="append")
    ap.add_argument("--template", action="append")
    ap.add_argument("--templates-dir", default=templates_dir())
    a = ap.parse_args(argv)
    if not os.path.isdir(a.templates_dir):
        print(f"skipped: templates not found at {a.templates_dir}")
        return None
    return a


def case_api(case: dict) -> str:
    """Case field "api" (default "http"): "http" is a /v1/chat/completions
    body; "offline" is the same body whose messages are passed as plain dicts,
    as `LLM.chat(messages=...)` does (see offline_validation_body)."""
    api = case.get("api", "http")
    if api not in ("http", "offline"):
        raise SystemExit(f"{case.get('id')}: unknown api {api!r}")
    return api


def offline_validation_body(body: dict) -> dict:
    """For api "offline": a deep copy of the request body in which every
    tool-call entry's function.arguments is replaced by "" and a missing
    "type" by "function", so that the HTTP request model validates it and the
    request-level processing (kwargs, tools, tool_choice...) runs as usual.
    The conversation itself is then built from the ORIGINAL raw message dicts,
    so `_postprocess_messages` sees missing / None / object arguments and
    entries without a type, as on the LLM.chat path."""
    body = copy.deepcopy(body)
    msgs = body.get("messages") if isinstance(body, dict) else None
    for m in msgs if isinstance(msgs, list) else ():
        tcs = m.get("tool_calls") if isinstance(m, dict) else None
        for item in tcs if isinstance(tcs, list) else ():
            if not isinstance(item, dict):
                continue
            item.setdefault("type", "function")
            if isinstance(item.get("function"), dict):
                item["function"]["arguments"] = ""
    return body


def lenient_prepass(messages: list, warnings: list) -> None:
    """Policy "lenient" (the post-v0.28 vLLM rule, not vLLM 0.25.0): before
    the pinned `_postprocess_messages` runs, replace tool-call arguments that
    are malformed JSON, or that decode to (or are) something other than an
    object, by {} and record a warning. JSON null and falsy values are left to
    the pinned code (which maps them to {} without a warning)."""
    for mi, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        tool_calls = message.get("tool_calls")
        if not isinstance(tool_calls, list):
            continue
        for ti, item in enumerate(tool_calls):
            if not isinstance(item, dict) or not isinstance(item.get("function"), dict):
                continue
            fn = item["function"]
            args = fn.get("arguments")
            where = f"messages[{mi}].tool_calls[{ti}].function.arguments"
            if not args:
                continue
            if isinstance(args, str):
                try:
                    decoded = json.loads(args)
                except ValueError as e:
                    warnings.append(f"{where}: invalid JSON ({e}); using {{}}")
                    fn["arguments"] = {}
                    continue
            else:
                decoded = args
            if decoded is not None and not isinstance(decoded, dict):
                warnings.append(f"{where}: decoded to {type(decoded).__name__}, not an object; using {{}}")
                fn["arguments"] = {}


def eprint(*a):
    print(*a, file=sys.stderr)
