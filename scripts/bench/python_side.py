#!/usr/bin/env python3
"""The Python side of `npm run bench`: time one engine on the bench cases.

    python python_side.py MODE JOBS.json

MODE:
  jinja2     bare Jinja2 3.1.x render of the template context, in the
             environment transformers builds (scripts/engine-cases make_env);
  minijinja  bare render with the `minijinja` Python binding (the Rust
             engine, pycompat on), trim_blocks/lstrip_blocks as transformers
             sets them, raise_exception and strftime_now as globals and
             minijinja's own tojson;
  vllm       pinned vLLM 0.25.0's whole per-request rendering path, as the
             OpenAI server runs it for /v1/chat/completions: json.loads of
             the body, ChatCompletionRequest.model_validate, tool
             model_dump, build_chat_params, content-format resolution,
             parse_chat_messages (with _postprocess_messages) and
             safe_apply_chat_template -> transformers apply_chat_template
             (scripts/golden/generate_real.py drives the same calls; run
             with the venv scripts/golden/setup builds).

JOBS.json: {name: {"template", "context_json", "request_text", "bos", "eos", "n"}}.
Prints {name: {"ms", "prompt"}}: best of 9 timed runs of n iterations after
a warm-up, as the Node side measures.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RUNS = 9


def best_ms(fn, n):
    for _ in range(min(50, n)):
        out = fn()
    best = float("inf")
    for _ in range(RUNS):
        t0 = time.perf_counter()
        for _ in range(n):
            out = fn()
        best = min(best, (time.perf_counter() - t0) * 1000 / n)
    return best, out


def jinja2_runner(job):
    sys.path.insert(0, os.path.join(ROOT, "scripts", "engine-cases"))
    from generate import make_env

    t = make_env().from_string(job["template"])
    ctx = json.loads(job["context_json"])
    return lambda: t.render(**ctx)


def minijinja_runner(job):
    import minijinja

    def raise_exception(msg):
        raise minijinja.TemplateError(msg)

    def strftime_now(fmt):
        return _dt.datetime(2026, 1, 15, 10, 30, 0).strftime(fmt)

    env = minijinja.Environment(
        templates={"chat": job["template"]},
        trim_blocks=True,
        lstrip_blocks=True,
        globals={"raise_exception": raise_exception, "strftime_now": strftime_now},
    )
    ctx = json.loads(job["context_json"])
    return lambda: env.render_template("chat", **ctx)


def vllm_runner(job):
    sys.path.insert(0, os.path.join(ROOT, "scripts", "golden"))
    import generate_real as g

    if getattr(g, "protocol", None) is None:
        g.setup()
    g._FixedClock.now_value = _dt.datetime(2026, 1, 15, 10, 30, 0)
    tok = g.tokenizer_for(job["bos"], job["eos"])
    mc = g.fake_model_config()
    text = job["request_text"]
    template = job["template"]

    def once():
        req = g.protocol.ChatCompletionRequest.model_validate(json.loads(text))
        tool_dicts = None if req.tools is None else [tool.model_dump() for tool in req.tools]
        defaults = g.params_mod.merge_kwargs(None, dict(tools=tool_dicts, tokenize=False))
        chat_params = req.build_chat_params(template, "auto").with_defaults(
            defaults, default_media_io_kwargs=None, default_mm_processor_kwargs=getattr(req, "mm_processor_kwargs", None)
        )
        content_format = g.hf.resolve_chat_template_content_format(
            chat_template=chat_params.chat_template,
            tools=chat_params.chat_template_kwargs.get("tools"),
            given_format=chat_params.chat_template_content_format,
            tokenizer=tok,
            model_config=mc,
        )
        conversation, _mm, _uu = g.cu.parse_chat_messages(
            req.messages, mc, content_format=content_format,
            media_io_kwargs=chat_params.media_io_kwargs, mm_processor_kwargs=chat_params.mm_processor_kwargs,
        )
        return g.hf.safe_apply_chat_template(mc, tok, conversation, **chat_params.get_apply_chat_template_kwargs())

    return once


RUNNERS = {"jinja2": jinja2_runner, "minijinja": minijinja_runner, "vllm": vllm_runner}


def main():
    mode, jobs_path = sys.argv[1], sys.argv[2]
    jobs = json.load(open(jobs_path))
    out = {}
    for name, job in jobs.items():
        try:
            fn = RUNNERS[mode](job)
            ms, prompt = best_ms(fn, job["n"])
            out[name] = {"ms": ms, "prompt": prompt}
        except Exception as e:  # reported per case, the other cases still run
            out[name] = {"error": f"{type(e).__name__}: {e}"}
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
