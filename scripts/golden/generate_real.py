#!/usr/bin/env python3
"""Expected prompts from the real libraries: pinned vLLM 0.25.0 + transformers.

Run with the venv made by scripts/golden/setup:

    scripts/golden/.venv/bin/python scripts/golden/generate_real.py [--out DIR] [--case ID ...] [--template FILE ...]

For every template in the templates directory and every case, this drives
vLLM's own code along the path the OpenAI server takes for a chat completion
(vllm/renderers/online_renderer.py `render_chat` -> `preprocess_chat` ->
vllm/renderers/hf.py `HfRenderer.render_messages`):

  1. `ChatCompletionRequest.model_validate(json.load(case)["request"])`
     (pydantic validation, request-level validators, reasoning_content rename);
  2. `tool_dicts = [tool.model_dump() for tool in request.tools]`;
  3. `request.build_chat_params(<template text>, "auto").with_defaults(...)`
     exactly as `preprocess_chat` calls it (the template plays the role of the
     server's --chat-template);
  4. `resolve_chat_template_content_format`, `parse_chat_messages`
     (incl. `_postprocess_messages`), `params.get_apply_chat_template_kwargs()`
     and `safe_apply_chat_template` -> transformers `apply_chat_template`.

The tokenizer is a real transformers fast tokenizer loaded by vLLM's
`get_tokenizer` from a throw-away local directory (tokenizer.json with a
three-word vocabulary + tokenizer_config.json with the case's bos/eos tokens);
no weights, no network. Only the fields of vLLM's ModelConfig that this path
reads are provided (text-only model, no prompt embeds, no multimodal config);
they do not influence rendering. Server options assumed: defaults, plus a tool
parser configured (so `tool_choice: "auto"` is accepted), no
--exclude-tools-when-tool-choice-none, no --default-chat-template-kwargs.

`strftime_now` reads a fixed clock (the case's "now") by replacing the
`datetime` name transformers' chat_template_utils module looks up at call time.

Case api "offline" (default "http"): the LLM.chat(messages=...) analogue.
Step 1 validates `common.offline_validation_body(request)` (every tool call's
function.arguments replaced by "" and a missing type by "function", so
pydantic accepts it and the request-level processing runs as usual); step 4
then calls `parse_chat_messages` with a deep copy of the ORIGINAL raw
`request["messages"]` dicts instead of `req.messages`, so vLLM's own
`_postprocess_messages` sees missing / None / object arguments and entries
without a type. The request-level before-validators (reasoning_content
rename...) are not applied to those raw dicts, as on the LLM.chat path.

Policy "lenient" (not a vLLM 0.25.0 behaviour: it is the post-0.28 rule where
malformed or non-object arguments become {} with a warning) is applied by a
pre-pass that runs right before vLLM's own `_postprocess_messages`.
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import logging
import os
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def _import_libs():
    global pydantic, transformers, vllm, cu, hf, params_mod, protocol, ctu, get_tokenizer
    import pydantic  # noqa: F401
    import transformers
    import transformers.utils.chat_template_utils as ctu
    import vllm
    import vllm.entrypoints.chat_utils as cu
    import vllm.renderers.hf as hf
    import vllm.renderers.params as params_mod
    from vllm.entrypoints.openai.chat_completion import protocol
    from vllm.tokenizers.registry import get_tokenizer

    logging.getLogger("vllm").setLevel(logging.CRITICAL)
    logging.getLogger("transformers").setLevel(logging.CRITICAL)


# ----------------------------------------------------------------------------
# fixed clock


class _FixedClock:
    now_value = _dt.datetime(2026, 1, 15, 10, 30, 0)


class _FixedDatetime(_dt.datetime):
    @classmethod
    def now(cls, tz=None):  # noqa: D401
        v = _FixedClock.now_value
        return v if tz is None else v.replace(tzinfo=tz)


# ----------------------------------------------------------------------------
# tokenizer / model config


_TOKENIZERS: dict[tuple[str, str], object] = {}
_TMP = tempfile.mkdtemp(prefix="golden-tok-")


def tokenizer_for(bos: str, eos: str):
    key = (bos, eos)
    if key in _TOKENIZERS:
        return _TOKENIZERS[key]
    from tokenizers import Tokenizer, models, pre_tokenizers

    d = os.path.join(_TMP, f"tok{len(_TOKENIZERS)}")
    os.makedirs(d)
    vocab = {"<unk>": 0}
    for t in (bos, eos):
        vocab.setdefault(t, len(vocab))
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.save(os.path.join(d, "tokenizer.json"))
    with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": bos, "eos_token": eos,
                   "model_max_length": 1 << 30}, f)
    tok = get_tokenizer(d)
    stm = dict(tok.special_tokens_map)
    if stm != {"bos_token": bos, "eos_token": eos}:
        raise SystemExit(f"unexpected special tokens on the test tokenizer: {stm}")
    _TOKENIZERS[key] = tok
    return tok


def fake_model_config():
    hf_config = types.SimpleNamespace(model_type="golden", use_unified_vision_chunk=False)
    return types.SimpleNamespace(
        enable_prompt_embeds=False,
        multimodal_config=None,
        is_multimodal_model=False,
        trust_remote_code=False,
        hf_config=hf_config,
        hf_text_config=hf_config,
        hf_overrides=None,
        model="golden",
        max_model_len=1 << 30,
        allowed_local_media_path="",
        allowed_media_domains=None,
        renderer_num_workers=1,
        get_multimodal_config=lambda: None,
    )


# ----------------------------------------------------------------------------
# lenient policy


_WARNINGS: list[str] = []
_POLICY = {"value": "strict"}
_ORIG_POSTPROCESS = None


def patched_postprocess(messages):
    if _POLICY["value"] == "lenient":
        common.lenient_prepass(messages, _WARNINGS)
    return _ORIG_POSTPROCESS(messages)


# ----------------------------------------------------------------------------
# one case


def _validation_error(e) -> dict:
    """pydantic.ValidationError -> result. A validator that raised a Python
    exception is reported by that exception's class and text."""
    errs = e.errors()
    for er in errs:
        inner = (er.get("ctx") or {}).get("error")
        if isinstance(inner, BaseException):
            return common.result_err(inner)
    first = errs[0]
    loc = ".".join(str(x) for x in first.get("loc", ()))
    return common.result_err(e, f"{len(errs)} validation error(s); first: {loc}: {first.get('msg')}",
                             "ValidationError")


def render_case(template_text: str, case: dict) -> dict:
    _FixedClock.now_value = _dt.datetime.fromisoformat(case.get("now", "2026-01-15T10:30:00"))
    _POLICY["value"] = case.get("policy", "strict")
    _WARNINGS.clear()
    offline = common.case_api(case) == "offline"
    if offline:
        raw_messages = copy.deepcopy(case["request"]["messages"])
        body = common.offline_validation_body(case["request"])
    else:
        body = copy.deepcopy(case["request"])
    tok = tokenizer_for(case["bos_token"], case["eos_token"])
    mc = fake_model_config()

    try:
        req = protocol.ChatCompletionRequest.model_validate(body)
    except pydantic.ValidationError as e:
        return _validation_error(e)
    except Exception as e:  # a before-validator raising outside pydantic's wrapping
        return common.result_err(e)

    # OnlineRenderer.render_chat
    if req.tools is None:
        tool_dicts = None
    else:
        tool_dicts = [tool.model_dump() for tool in req.tools]

    # OnlineRenderer.preprocess_chat
    default_template_kwargs = params_mod.merge_kwargs(None, dict(tools=tool_dicts, tokenize=False))
    chat_params = req.build_chat_params(template_text, "auto").with_defaults(
        default_template_kwargs,
        default_media_io_kwargs=None,
        default_mm_processor_kwargs=getattr(req, "mm_processor_kwargs", None),
    )

    # HfRenderer.render_messages
    try:
        content_format = hf.resolve_chat_template_content_format(
            chat_template=chat_params.chat_template,
            tools=chat_params.chat_template_kwargs.get("tools"),
            given_format=chat_params.chat_template_content_format,
            tokenizer=tok,
            model_config=mc,
        )
        conversation, _mm, _uu = cu.parse_chat_messages(
            raw_messages if offline else req.messages, mc, content_format=content_format,
            media_io_kwargs=chat_params.media_io_kwargs,
            mm_processor_kwargs=chat_params.mm_processor_kwargs,
        )
    except Exception as e:
        return common.result_err(e)

    kwargs = chat_params.get_apply_chat_template_kwargs()
    try:
        prompt = hf.safe_apply_chat_template(mc, tok, conversation, **kwargs)
    except ValueError as e:
        cause = e.__cause__ if e.__cause__ is not None else e
        return common.result_err(cause)
    except Exception as e:
        return common.result_err(e)
    if not isinstance(prompt, str):
        raise SystemExit(f"expected a string prompt, got {type(prompt)}")
    return common.result_ok(prompt, list(_WARNINGS))


def content_format_of(template_text: str) -> str:
    return hf._detect_content_format(template_text, default="string")


def provenance() -> dict:
    p = common.base_provenance("vllm", "scripts/golden/generate_real.py")
    p["transformers"] = transformers.__version__
    p["vllm"] = vllm.__version__
    return p


def setup() -> None:
    global _ORIG_POSTPROCESS
    _import_libs()
    if vllm.__version__ != common.VLLM_VERSION:
        raise SystemExit(f"vllm {vllm.__version__} installed, {common.VLLM_VERSION} expected")
    ctu.datetime = _FixedDatetime
    if _ORIG_POSTPROCESS is None:
        _ORIG_POSTPROCESS = cu._postprocess_messages
        cu._postprocess_messages = patched_postprocess


def main(argv=None) -> int:
    a = common.parse_generator_args(argv, __doc__.split("\n\n")[0])
    if a is None:
        return 0
    setup()
    common.render_all(render_case, provenance(), a.out, a.templates_dir, a.case, a.template)
    return 0


if __name__ == "__main__":
    sys.exit(main())
