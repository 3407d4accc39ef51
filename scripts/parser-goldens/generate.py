#!/usr/bin/env python3
"""Parser goldens from real vLLM 0.25.0's own parser classes.

    scripts/golden/.venv/bin/python scripts/parser-goldens/generate.py [--only NAME ...]

Writes test/parsers/goldens/reasoning.json (each reasoning parser's
`extract_reasoning` on the outputs of reasoning_vectors.py) and
test/parsers/goldens/tools/<parser>.json (each tool parser's
`extract_tool_calls`, plus `extract_tool_calls_streaming` fed token-aligned
chunkings, on the outputs of tool_vectors.py). Every file records its
provenance (vLLM version, parser class, chunkings). Parsers vLLM cannot run
here are absent; their expectations are written by hand in the test suite.
"""
import argparse
import io
import json
import os
import platform
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "test", "parsers", "goldens")
sys.path.insert(0, HERE)

os.environ.setdefault("VLLM_LOGGING_LEVEL", "CRITICAL")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from reasoning_vectors import RUNS, vectors_for  # noqa: E402
from tokenizer import make_tokenizer  # noqa: E402


def provenance(extra: dict) -> dict:
    import transformers
    import vllm

    return {"engine": "vllm", "vllm": vllm.__version__, "transformers": transformers.__version__,
            "python": platform.python_version(), "generated_by": "scripts/parser-goldens/generate.py", **extra}


def request(tools=None, kwargs=None):
    from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest

    body = {"model": "golden", "messages": [{"role": "user", "content": "hi"}]}
    if tools:
        body["tools"] = tools
    if kwargs:
        body["chat_template_kwargs"] = kwargs
    return ChatCompletionRequest.model_validate(body)


def quiet(fn):
    buf = io.StringIO()
    with redirect_stdout(buf), redirect_stderr(buf):
        return fn()


def construct(cls, tok, **kwargs):
    """The parser object; Mistral's parsers insist on a MistralTokenizer for
    token-id bookkeeping their text methods never touch, so for them the
    object is made without `__init__` and marked as such."""
    try:
        return quiet(lambda: cls(tok, **kwargs)), None
    except ValueError as e:
        if "MistralTokenizer" not in str(e):
            raise
        obj = object.__new__(cls)
        obj.model_tokenizer = tok
        return obj, "constructed without __init__ (needs a MistralTokenizer); text methods only"


def reasoning_goldens(tok) -> dict:
    from vllm.reasoning import ReasoningParserManager

    out = {}
    for name, kwargs in RUNS:
        cls = ReasoningParserManager.get_reasoning_parser(name)
        key = name if kwargs is None else f"{name} {json.dumps(kwargs, sort_keys=True)}"
        entry = {"parser": name, "class": f"{cls.__module__}.{cls.__qualname__}", "chat_template_kwargs": kwargs, "vectors": []}
        for vid, text in vectors_for(name):
            rec = {"id": vid, "text": text}
            try:
                parser, note = construct(cls, tok, chat_template_kwargs=dict(kwargs or {}))
                if note:
                    entry["note"] = note
                reasoning, content = quiet(lambda: parser.extract_reasoning(text, request(kwargs=kwargs)))
                rec["reasoning"] = reasoning
                rec["content"] = content
            except Exception as e:  # recorded, never hidden
                rec["error"] = f"{type(e).__name__}: {e}"
            entry["vectors"].append(rec)
        out[key] = entry
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="tool parser names to regenerate")
    ap.add_argument("--skip-reasoning", action="store_true")
    args = ap.parse_args(argv)
    from vllm.tokenizers.registry import get_tokenizer

    tok = quiet(lambda: make_tokenizer(get_tokenizer))
    os.makedirs(os.path.join(OUT, "tools"), exist_ok=True)
    if not args.skip_reasoning:
        doc = {"provenance": provenance({"method": "ReasoningParser.extract_reasoning(model_output, request)"}),
               "runs": reasoning_goldens(tok)}
        with open(os.path.join(OUT, "reasoning.json"), "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
        print("wrote reasoning.json")
    try:
        import tool_goldens
    except ImportError:
        return
    tool_goldens.run(tok, args.only, provenance, request, quiet, OUT)


if __name__ == "__main__":
    main()
