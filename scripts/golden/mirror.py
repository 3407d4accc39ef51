#!/usr/bin/env python3
"""A pure-Jinja2 mirror of the prompt pipeline of vLLM 0.25.0 + transformers.

Needs only the Python standard library and jinja2 (3.1.6). It is our own port,
written from the behaviour of the pinned libraries (see README.md); it is what
CI runs (`golden.py check`) to detect drift, and `compare.py` checks it against
the real libraries case by case.

    python3 scripts/golden/mirror.py [--out DIR] [--case ID ...] [--template FILE ...]

Stages, in the order vLLM's OpenAI server runs them for /v1/chat/completions:
  request      ChatCompletionRequest validation (the parts that matter here)
  kwargs       build_chat_params + preprocess_chat defaults (merge_kwargs)
  format       "string"/"openai" content-format detection on the Jinja AST
  messages     per-message parsing, then _postprocess_messages (api "offline":
               from the raw message dicts, see common.offline_validation_body)
  apply        safe_apply_chat_template: developer->system, kwargs filtering
  render       transformers apply_chat_template / render_jinja_template
"""

from __future__ import annotations

import copy
import datetime as _dt
import functools
import json
import os
import sys
from collections import deque

import jinja2
import jinja2.exceptions
import jinja2.ext
import jinja2.meta
import jinja2.nodes
import jinja2.utils
from jinja2.sandbox import ImmutableSandboxedEnvironment

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

# The transformers version whose apply_chat_template this file follows.
TRANSFORMERS_VERSION = "5.24.0"


# ============================================================================
# errors named like the classes the real libraries raise


class VLLMValidationError(ValueError):
    def __init__(self, message, *, parameter=None, value=None):
        super().__init__(message)
        self.parameter = parameter
        self.value = value

    def __str__(self):
        base = super().__str__()
        extras = []
        if self.parameter is not None:
            extras.append(f"parameter={self.parameter}")
        if self.value is not None:
            extras.append(f"value={self.value}")
        return f"{base} ({', '.join(extras)})" if extras else base


class ValidationError(ValueError):
    """Stands for pydantic's ValidationError (schema-level request errors)."""


# ============================================================================
# request: ChatCompletionRequest validation

_REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
_MISSING = object()


def _is_str(v):
    return isinstance(v, str)


def _reorder(d: dict, declared: tuple) -> dict:
    """pydantic rebuilds TypedDicts / models in declared-field order; unknown
    keys are kept after them, in input order."""
    out = {k: d[k] for k in declared if k in d}
    for k, v in d.items():
        if k not in out:
            out[k] = v
    return out


def _validate_tool_call(entry, where):
    if not isinstance(entry, dict):
        raise ValidationError(f"{where}: Input should be a valid dictionary")
    if "id" not in entry or "type" not in entry:
        raise ValidationError(f"{where}: Field required")
    if not _is_str(entry["id"]):
        raise ValidationError(f"{where}.id: Input should be a valid string")
    t = entry["type"]
    if t == "function":
        fn = entry.get("function", _MISSING)
        if fn is _MISSING:
            raise ValidationError(f"{where}.function: Field required")
        if not isinstance(fn, dict):
            raise ValidationError(f"{where}.function: Input should be a valid dictionary")
        for k in ("arguments", "name"):
            if k not in fn:
                raise ValidationError(f"{where}.function.{k}: Field required")
            if not _is_str(fn[k]):
                raise ValidationError(f"{where}.function.{k}: Input should be a valid string")
        out = _reorder(entry, ("id", "function", "type"))
        out["function"] = _reorder(fn, ("arguments", "name"))
        return out
    if t == "custom":
        cu = entry.get("custom", _MISSING)
        if not isinstance(cu, dict) or not _is_str(cu.get("input")) or not _is_str(cu.get("name")):
            raise ValidationError(f"{where}.custom: invalid custom tool call")
        out = _reorder(entry, ("id", "custom", "type"))
        out["custom"] = _reorder(cu, ("input", "name"))
        return out
    raise ValidationError(f"{where}.type: Input should be 'function' or 'custom'")


def _validate_message(m, i):
    where = f"messages.{i}"
    if not isinstance(m, dict):
        raise ValidationError(f"{where}: Input should be a valid dictionary")
    if not _is_str(m.get("role")):
        raise ValidationError(f"{where}.role: Field required")
    role = m["role"]
    out = dict(m)
    if "content" in m:
        c = m["content"]
        if c is None:
            if role != "assistant":
                raise ValidationError(f"{where}.content: Input should be a valid string")
        elif isinstance(c, list):
            for j, p in enumerate(c):
                if not isinstance(p, (str, dict)):
                    raise ValidationError(f"{where}.content.{j}: Input should be a valid dictionary")
        elif not _is_str(c):
            raise ValidationError(f"{where}.content: Input should be a valid string")
    for k in ("name", "reasoning", "tool_call_id", "task"):
        if k in m and m[k] is not None and not _is_str(m[k]):
            raise ValidationError(f"{where}.{k}: Input should be a valid string")
    if "tool_calls" in m and m["tool_calls"] is not None:
        tcs = m["tool_calls"]
        if not isinstance(tcs, list):
            raise ValidationError(f"{where}.tool_calls: Input should be a valid list")
        out["tool_calls"] = [_validate_tool_call(e, f"{where}.tool_calls.{j}") for j, e in enumerate(tcs)]
    return out


_FUNCTION_FIELDS = ("name", "description", "parameters", "strict", "defer_loading")


def _tool_model_dump(tool, i):
    """ChatCompletionToolsParam(**tool).model_dump()"""
    where = f"tools.{i}"
    if not isinstance(tool, dict):
        raise ValidationError(f"{where}: Input should be a valid dictionary")
    if tool.get("type", "function") != "function":
        raise ValidationError(f"{where}.type: Input should be 'function'")
    fn = tool.get("function", _MISSING)
    if fn is _MISSING:
        raise ValidationError(f"{where}.function: Field required")
    if not isinstance(fn, dict):
        raise ValidationError(f"{where}.function: Input should be a valid dictionary")
    if not _is_str(fn.get("name")):
        raise ValidationError(f"{where}.function.name: Field required / Input should be a valid string")
    for k, ok in (("description", _is_str), ("parameters", lambda v: isinstance(v, dict)),
                  ("strict", lambda v: isinstance(v, bool)), ("defer_loading", lambda v: isinstance(v, bool))):
        if fn.get(k) is not None and not ok(fn[k]):
            raise ValidationError(f"{where}.function.{k}: invalid value")
    tdl = tool.get("defer_loading")
    if tdl is not None and not isinstance(tdl, bool):
        raise ValidationError(f"{where}.defer_loading: invalid value")

    f_out = {"name": fn["name"], "description": fn.get("description"), "parameters": fn.get("parameters"),
             "strict": fn.get("strict"), "defer_loading": fn.get("defer_loading")}
    if tdl is not None and f_out["defer_loading"] is None:
        f_out["defer_loading"] = tdl
    for k in ("strict", "defer_loading"):
        if f_out[k] is None:
            del f_out[k]
    for k, v in fn.items():
        if k not in _FUNCTION_FIELDS:
            f_out[k] = v
    t_out = {"type": "function", "function": f_out}
    if tdl is not None:
        t_out["defer_loading"] = tdl
    for k, v in tool.items():
        if k not in ("type", "function", "defer_loading"):
            t_out[k] = v
    return t_out


def validate_request(body: dict) -> dict:
    if not isinstance(body, dict):
        raise ValidationError("request: Input should be a valid dictionary")
    body = dict(body)
    # before-validators (the order only matters when several would fail)
    msgs = body.get("messages")
    if isinstance(msgs, list):
        for m in msgs:
            if not isinstance(m, dict):
                continue
            rc = m.pop("reasoning_content", None)
            if rc is not None and m.get("reasoning") is None:
                m["reasoning"] = rc
    if body.get("continue_final_message") and body.get("add_generation_prompt"):
        raise VLLMValidationError("Cannot set both `continue_final_message` and `add_generation_prompt` to True.")
    if body.get("tools") == []:
        raise ValueError("`tools` must not be an empty array. "
                         "Either provide at least one tool or omit the field entirely.")
    if "tool_choice" not in body and body.get("tools"):
        body["tool_choice"] = "auto"
    tc = body.get("tool_choice", _MISSING)
    if tc is not _MISSING and tc != "none" and tc is not None:
        if body.get("tools") is None:
            raise VLLMValidationError("When using `tool_choice`, `tools` must be set.", parameter="tool_choice")
        if tc not in ("auto", "required") and not isinstance(tc, dict):
            raise VLLMValidationError(
                f"Invalid value for `tool_choice`: {tc}! "
                'Only named tools, "none", "auto" or "required" are supported.', parameter="tool_choice")
        if isinstance(tc, dict):
            usage = 'Correct usage: `{"type": "function", "function": {"name": "my_function"}}`'
            fn = tc.get("function")
            if not isinstance(fn, dict):
                raise VLLMValidationError(f"Invalid value for `function`: `{fn}` in `tool_choice`! {usage}",
                                          parameter="tool_choice.function")
            if "name" not in fn:
                raise VLLMValidationError(f"Expected field `name` in `function` in `tool_choice`! {usage}",
                                          parameter="tool_choice.function.name")
            name = fn["name"]
            if not isinstance(name, str) or not name:
                raise VLLMValidationError(f"Invalid `name` in `function`: `{name}` in `tool_choice`! {usage}",
                                          parameter="tool_choice.function.name")
            if not any(t["function"]["name"] == name for t in body["tools"]):
                raise VLLMValidationError(
                    "The tool specified in `tool_choice` does not match any of the specified `tools`",
                    parameter="tool_choice")

    # field validation
    if not isinstance(msgs, list):
        raise ValidationError("messages: Field required / Input should be a valid list")
    req = {"messages": [_validate_message(m, i) for i, m in enumerate(msgs)]}
    tools = body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise ValidationError("tools: Input should be a valid list")
    req["tools"] = None if tools is None else [_tool_model_dump(t, i) for i, t in enumerate(tools)]
    for k, default in (("add_generation_prompt", True), ("continue_final_message", False)):
        v = body.get(k, default)
        if not isinstance(v, bool):
            raise ValidationError(f"{k}: Input should be a valid boolean")
        req[k] = v
    re_ = body.get("reasoning_effort")
    if re_ is not None and re_ not in _REASONING_EFFORTS:
        raise ValidationError("reasoning_effort: Input should be one of " + ", ".join(_REASONING_EFFORTS))
    req["reasoning_effort"] = re_
    ctk = body.get("chat_template_kwargs")
    if ctk is not None and not isinstance(ctk, dict):
        raise ValidationError("chat_template_kwargs: Input should be a valid dictionary")
    req["chat_template_kwargs"] = ctk
    docs = body.get("documents")
    if docs is not None and not (isinstance(docs, list) and all(
            isinstance(d, dict) and all(isinstance(x, str) for x in d.values()) for d in docs)):
        raise ValidationError("documents: Input should be a list of dicts of strings")
    req["documents"] = docs
    req["tool_choice"] = body.get("tool_choice", "none")
    if body.get("chat_template") is not None:
        raise ValueError("Chat template is passed with request, but --trust-request-chat-template is not set. "
                         "Refused request with untrusted chat template.")
    return req


# ============================================================================
# kwargs: build_chat_params / with_defaults / get_apply_chat_template_kwargs

_UNSET = (None, "auto")


def merge_kwargs(defaults, overrides):
    out = dict(defaults or {})
    for k, v in (overrides or {}).items():
        if v not in _UNSET:
            out[k] = v
    return out


def chat_template_kwargs_for(req: dict, tool_dicts) -> dict:
    extra = {"add_generation_prompt": req["add_generation_prompt"],
             "continue_final_message": req["continue_final_message"],
             "documents": req["documents"],
             "reasoning_effort": req["reasoning_effort"]}
    user = req["chat_template_kwargs"] or {}
    if req["reasoning_effort"] is not None and "enable_thinking" not in user:
        extra["enable_thinking"] = req["reasoning_effort"] != "none"
    request_kwargs = merge_kwargs(req["chat_template_kwargs"], extra)
    defaults = merge_kwargs(None, {"tools": tool_dicts, "tokenize": False})
    return merge_kwargs(defaults, request_kwargs)


# ============================================================================
# transformers' Jinja environment


class _GenerationTag(jinja2.ext.Extension):
    """{% generation %}...{% endgeneration %}: renders its body as is."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        node = jinja2.nodes.CallBlock(self.call_method("_render_body"), [], [], body)
        return node.set_lineno(lineno)

    def _render_body(self, caller):
        return caller()


class _Clock:
    now = _dt.datetime(2026, 1, 15, 10, 30, 0)


def _raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def _tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def _strftime_now(fmt):
    return _Clock.now.strftime(fmt)


class _DictGlobal:
    """`dict` in templates: builds plain dicts; no access to the dict type."""

    def __call__(self, *args, **kwargs):
        return dict(*args, **kwargs)

    def fromkeys(self, *args, **kwargs):
        return dict.fromkeys(*args, **kwargs)


def _check_ns_name(name):
    if isinstance(name, str) and name.startswith("_"):
        raise jinja2.exceptions.SecurityError(
            f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}. "
            "Please rename the attribute.")


class _Namespace(jinja2.utils.Namespace):
    def __init__(*args, **kwargs):  # noqa: N805 - same trick as jinja2.utils.Namespace
        self, args = args[0], args[1:]
        attrs = dict(*args, **kwargs)
        for name in attrs:
            _check_ns_name(name)
        jinja2.utils.Namespace.__init__(self, attrs)

    def __setitem__(self, name, value):
        _check_ns_name(name)
        jinja2.utils.Namespace.__setitem__(self, name, value)


def _make_env():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[_GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    env.globals["dict"] = _DictGlobal()
    env.globals["namespace"] = _Namespace
    return env


@functools.lru_cache(maxsize=64)
def compile_template(text: str):
    return _make_env().from_string(text)


@functools.lru_cache(maxsize=64)
def parse_template(text: str):
    return _make_env().parse(text)


# ============================================================================
# format: content-format detection on the Jinja AST


def _is_name_load(node, name):
    return isinstance(node, jinja2.nodes.Name) and node.ctx == "load" and node.name == name


def _is_key_of(node, name, key):
    if isinstance(node, jinja2.nodes.Getitem):
        return _is_name_load(node.node, name) and isinstance(node.arg, jinja2.nodes.Const) and node.arg.value == key
    if isinstance(node, jinja2.nodes.Getattr):
        return _is_name_load(node.node, name) and node.attr == key
    return False


def _derives_from(node, name, key=None):
    """`name` (or `name.key`), possibly through filters, tests and slices."""
    if isinstance(node, jinja2.nodes.Filter):
        return node.node is not None and _derives_from(node.node, name, key)
    if isinstance(node, jinja2.nodes.Test):
        return _derives_from(node.node, name, key)
    if isinstance(node, jinja2.nodes.Getitem) and isinstance(node.arg, jinja2.nodes.Slice):
        return _derives_from(node.node, name, key)
    return _is_key_of(node, name, key) if key else _is_name_load(node, name)


class _Shape(Exception):
    pass


def _names_derived_from_messages(root):
    names = ["messages"]
    queue = deque(["messages"])
    while queue:
        cur = queue.popleft()
        for a in root.find_all(jinja2.nodes.Assign):
            if _derives_from(a.node, cur):
                if not isinstance(a.target, jinja2.nodes.Name):
                    raise _Shape("assignment target is not a name")
                names.append(a.target.name)
                if a.target.name != cur:
                    queue.append(a.target.name)
    return names


def _message_loop_vars(root):
    derived = _names_derived_from_messages(root)
    out = []
    for loop in root.find_all(jinja2.nodes.For):
        if any(_derives_from(loop.iter, n) for n in derived):
            if not isinstance(loop.target, jinja2.nodes.Name):
                raise _Shape("loop target is not a name")
            out.append(loop.target.name)
    return out


def _has_content_loop(root) -> bool:
    msg_vars = _message_loop_vars(root)
    for loop in root.find_all(jinja2.nodes.For):
        if any(_derives_from(loop.iter, v, "content") for v in msg_vars):
            if not isinstance(loop.target, jinja2.nodes.Name):
                raise _Shape("loop target is not a name")
            return True
        if isinstance(loop.iter, jinja2.nodes.Name) and loop.iter.name == "content":
            if not isinstance(loop.target, jinja2.nodes.Name):
                raise _Shape("loop target is not a name")
            return True
    return False


@functools.lru_cache(maxsize=64)
def detect_content_format(template_text: str) -> str:
    try:
        root = parse_template(template_text)
    except Exception:
        return "string"
    try:
        return "openai" if _has_content_loop(root) else "string"
    except Exception:
        return "string"


# ============================================================================
# messages: _parse_chat_message_content + _postprocess_messages

_TEXT_PART_KEYS = {"text": "text", "input_text": "text", "output_text": "text", "thinking": "thinking",
                   "refusal": "refusal"}
_MEDIA_TYPES = ("input_image", "image_url", "image_embeds", "audio_embeds", "prompt_embeds", "image_pil",
                "audio_url", "input_audio", "video_url")
_KNOWN_PART_TYPES = set(_TEXT_PART_KEYS) | set(_MEDIA_TYPES) | {"tool_reference"}
_SUPPORTED_LIST = ", ".join(sorted(_KNOWN_PART_TYPES))


def _parse_part(part, wrap):
    if isinstance(part, str):
        return {"type": "text", "text": part} if wrap else part
    ptype = part.get("type")
    if isinstance(ptype, str) and ptype in _KNOWN_PART_TYPES and part.get("uuid") is None:
        if ptype in _TEXT_PART_KEYS:
            value = part.get(_TEXT_PART_KEYS[ptype])
        elif ptype == "tool_reference":
            value = part.get("name")
        else:
            raise NotImplementedError(f"media content parts ({ptype}) are not supported by the mirror")
    elif ptype is None or part.get("uuid") is not None:
        for k in ("image_url", "image_pil", "image_embeds", "audio_embeds", "prompt_embeds", "audio_url",
                  "video_url", "tool_reference"):
            if k in part:
                raise NotImplementedError("media content parts are not supported by the mirror")
        if part.get("input_audio") is not None:
            raise NotImplementedError("media content parts are not supported by the mirror")
        raise ValueError("Missing 'type' field in multimodal part.")
    elif not isinstance(ptype, str):
        raise ValueError("Invalid 'type' field in multimodal part.")
    else:
        value = "unknown part_type content"

    if ptype in ("text", "refusal") and value is None:
        return None  # vLLM logs a warning and skips the part
    if ptype in _TEXT_PART_KEYS:
        return {"type": "text", "text": value} if wrap else value
    if ptype == "tool_reference":
        return {"type": "tool_reference", "name": value} if wrap else value
    raise VLLMValidationError(f"Unsupported chat content part type: {ptype!r}. Supported types: {_SUPPORTED_LIST}.",
                              parameter="type", value=ptype)


def parse_message(message: dict, content_format: str) -> dict:
    role = message["role"]
    content = message.get("content")
    reasoning = message.get("reasoning")
    if content is None:
        parts = []
    elif isinstance(content, str):
        parts = [{"type": "text", "text": content}]
    else:
        parts = content
    wrap = content_format == "openai"
    kept = []
    for p in parts:
        r = _parse_part(p, wrap)
        if r:
            kept.append(r)
    out = {"role": role, "content": kept if wrap else "\n".join(kept)}

    if role == "assistant":
        if "tool_calls" in message and message["tool_calls"] is not None:
            out["tool_calls"] = list(message["tool_calls"])
        if reasoning is not None:
            out["reasoning"] = reasoning
            out["reasoning_content"] = reasoning
    elif role == "tool":
        if "tool_call_id" in message:
            out["tool_call_id"] = message["tool_call_id"]
        c = out.get("content")
        if isinstance(c, list):
            if not any(isinstance(x, dict) and x.get("type") != "text" for x in c):
                texts = [x.get("text", "") for x in c if isinstance(x, dict) and x.get("type") == "text"]
                out["content"] = "\n".join(texts) if texts else ""
    if isinstance(message.get("name", _MISSING), str):
        out["name"] = message["name"]
    if isinstance(message.get("task", _MISSING), str):
        out["task"] = message["task"]
    if role == "developer":
        out["tools"] = message.get("tools", None)
    return out


def postprocess_messages(messages: list) -> None:
    """Pinned vLLM `_postprocess_messages` (mutates in place)."""
    for message in messages:
        if message["role"] != "assistant" or "tool_calls" not in message:
            continue
        tool_calls = message.get("tool_calls")
        if not isinstance(tool_calls, list):
            continue
        if not tool_calls:
            message.pop("tool_calls", None)
            continue
        for item in tool_calls:
            if not isinstance(item, dict):
                raise VLLMValidationError("assistant tool_calls entries must be objects.", parameter="tool_calls")
            fn = item.get("function")
            if item.get("type", "function") != "function" or not isinstance(fn, dict):
                raise VLLMValidationError("chat completions only support assistant tool_calls of type 'function'.",
                                          parameter="tool_calls")
            args = fn.get("arguments")
            if args:
                if not isinstance(args, (dict, list)):
                    parsed = json.loads(args)
                    fn["arguments"] = parsed if parsed is not None else {}
            else:
                fn["arguments"] = {}


# ============================================================================
# apply: safe_apply_chat_template (vLLM) + apply_chat_template (transformers)

# Parameters of transformers' PreTrainedTokenizer.apply_chat_template (besides **kwargs).
_HF_APPLY_PARAMS = frozenset({
    "self", "conversation", "tools", "documents", "chat_template", "add_generation_prompt",
    "continue_final_message", "tokenize", "sanitize_control_tokens", "padding", "truncation", "max_length",
    "return_tensors", "return_dict", "return_assistant_tokens_mask", "tokenizer_kwargs"})


def _developer_to_system(conversation):
    out = []
    for m in conversation:
        if m["role"] == "developer":
            m = dict(m)
            m["role"] = "system"
            m.pop("tools", None)
        out.append(m)
    return out


def _consolidate_system(conversation):
    contents, rest, needed = [], [], False
    for i, m in enumerate(conversation):
        if m["role"] == "system":
            if i > 0 or contents:
                needed = True
            c = m.get("content", "")
            if isinstance(c, list):
                c = "\n".join(p["text"] if isinstance(p, dict) else p for p in c
                              if (isinstance(p, dict) and "text" in p) or isinstance(p, str))
            if c:
                contents.append(c)
        else:
            rest.append(m)
    if not needed:
        return conversation
    return [{"role": "system", "content": "\n\n".join(contents)}, *rest]


@functools.lru_cache(maxsize=64)
def template_variables(text: str) -> frozenset:
    return frozenset(jinja2.meta.find_undeclared_variables(parse_template(text)))


_REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")
_CFM_TAG = "CONTINUE_FINAL_MESSAGE_TAG "


def _alias_reasoning(chat):
    out = []
    for m in chat:
        r = next((m[k] for k in _REASONING_FIELDS if m.get(k) is not None), None)
        if r is not None:
            m = {"thinking": r, **m, "reasoning_content": r}
        out.append(m)
    return out


def hf_apply_chat_template(conversation, special_tokens, *, tools=None, documents=None, chat_template,
                           add_generation_prompt=False, continue_final_message=False, tokenize=True, **kwargs):
    """transformers apply_chat_template(tokenize=False) for one conversation."""
    for k in ("sanitize_control_tokens", "padding", "truncation", "max_length", "return_tensors", "return_dict",
              "return_assistant_tokens_mask", "tokenizer_kwargs"):
        kwargs.pop(k, None)  # consumed by apply_chat_template; none of them changes a tokenize=False render
    if tokenize:
        raise NotImplementedError("tokenize=True is not supported by the mirror")
    if not conversation:
        raise ValueError("Cannot apply chat template to an empty conversation. Provide at least one message.")
    chat = [{k: v for k, v in m.items() if v is not None} for m in conversation]
    if continue_final_message and add_generation_prompt:
        raise ValueError(
            "continue_final_message and add_generation_prompt are not compatible. Use continue_final_message when "
            "you want the model to continue the final message, and add_generation_prompt when you want to add a "
            "header that will prompt it to start a new assistant message instead.")
    template_kwargs = {**special_tokens, **kwargs}

    # render_jinja_template
    compiled = compile_template(chat_template)
    if tools is not None:
        for t in tools:
            if not isinstance(t, dict):
                raise ValueError("Tools should either be a JSON schema, or a callable function with type hints "
                                 "and a docstring suitable for auto-conversion to a schema.")
    if documents is not None:
        for d in documents:
            if not isinstance(d, dict):
                raise TypeError("Documents should be a list of dicts with 'title' and 'text' keys!")
    tools = copy.deepcopy(tools)
    documents = copy.deepcopy(documents)
    template_kwargs = copy.deepcopy(template_kwargs)
    chat = _alias_reasoning(copy.deepcopy(chat))
    final_message = None
    if continue_final_message:
        field = continue_final_message if isinstance(continue_final_message, str) else "content"
        final_message = chat[-1].get(field)
        if final_message is None:
            raise ValueError(f'continue_final_message is set but the final message has no "{field}" to continue!')
        fields = [field]
        if field in _REASONING_FIELDS:
            fields = [f for f in _REASONING_FIELDS if chat[-1].get(f) == final_message]
        if not any(f in chat_template for f in fields):
            raise ValueError(f'continue_final_message is set to "{field}" but this is not an accepted field in '
                             "the chat_template")
        elif isinstance(final_message, (list, tuple)):
            for block in reversed(final_message):
                if "text" in block:
                    final_message = block["text"]
                    block["text"] = block["text"] + _CFM_TAG
                    break
            else:
                raise ValueError("continue_final_message is set but we could not find any text to continue in the "
                                 "final message!")
        else:
            for f in fields:
                chat[-1][f] = chat[-1][f] + _CFM_TAG
    rendered = compiled.render(messages=chat, tools=tools, documents=documents,
                               add_generation_prompt=add_generation_prompt, **template_kwargs)
    if continue_final_message:
        if final_message.strip() not in rendered or _CFM_TAG.strip() not in rendered:
            raise ValueError(
                "continue_final_message is set but the final message does not appear in the chat after applying the "
                "chat template! This can happen if the chat template deletes portions of the final message. Please "
                "verify the chat template and final message in your chat to ensure they are compatible."
                f"Final message to continue: {final_message.strip()}\nRendered chat:\n{rendered}")
        loc = rendered.rindex(_CFM_TAG.strip())
        if rendered[loc:loc + len(_CFM_TAG)] == _CFM_TAG:
            rendered = rendered[:loc]
        else:
            rendered = rendered[:loc].rstrip()
    return rendered


class _Wrapped(Exception):
    """safe_apply_chat_template's `raise ValueError(str(e)) from e`."""

    def __init__(self, cause):
        super().__init__(str(cause))
        self.cause = cause


def safe_apply_chat_template(conversation, special_tokens, *, tools=None, chat_template, tokenize=True, **kwargs):
    if any(m["role"] == "developer" for m in conversation) and not (
            '"developer"' in chat_template or "'developer'" in chat_template):
        conversation = _consolidate_system(_developer_to_system(conversation))
    unexpected = {"chat_template", "tokenize"} & kwargs.keys()
    if unexpected:
        raise ValueError(f"Found unexpected chat template kwargs from request: {unexpected}")
    accept = (template_variables(chat_template) | _HF_APPLY_PARAMS) - {"chat_template", "tokenize"}
    resolved = {k: v for k, v in kwargs.items() if k in accept}
    if tokenize and "return_dict" not in resolved:
        resolved["return_dict"] = False
    for bad in ("self", "conversation"):
        if bad in resolved:
            raise _Wrapped(TypeError(f"got multiple values for argument '{bad}'"))
    try:
        return hf_apply_chat_template(conversation, special_tokens, tools=tools, chat_template=chat_template,
                                      tokenize=tokenize, **resolved)
    except Exception as e:
        raise _Wrapped(e) from e


# ============================================================================
# one case


def render_case(template_text: str, case: dict) -> dict:
    _Clock.now = _dt.datetime.fromisoformat(case.get("now", "2026-01-15T10:30:00"))
    warnings: list[str] = []
    offline = common.case_api(case) == "offline"
    if offline:
        # LLM.chat analogue: the request model never sees the tool-call
        # entries as given (validate a copy with arguments "" and a default
        # type); the conversation is built from the raw message dicts.
        raw_messages = copy.deepcopy(case["request"]["messages"])
        body = common.offline_validation_body(case["request"])
    else:
        body = copy.deepcopy(case["request"])
    special = {"bos_token": case["bos_token"], "eos_token": case["eos_token"]}
    try:
        req = validate_request(body)
    except Exception as e:
        return common.result_err(e)
    messages = raw_messages if offline else req["messages"]

    tool_dicts = req["tools"]
    ctk = chat_template_kwargs_for(req, tool_dicts)
    try:
        fmt = detect_content_format(template_text)
        conversation = [parse_message(m, fmt) for m in messages]
        if case.get("policy", "strict") == "lenient":
            common.lenient_prepass(conversation, warnings)
        postprocess_messages(conversation)
    except Exception as e:
        return common.result_err(e)

    apply_kwargs = merge_kwargs(ctk, {"chat_template": template_text, "return_dict": False})
    try:
        prompt = safe_apply_chat_template(conversation, special, **apply_kwargs)
    except _Wrapped as w:
        return common.result_err(w.cause)
    except Exception as e:
        return common.result_err(e)
    return common.result_ok(prompt, warnings)


def provenance() -> dict:
    p = common.base_provenance("mirror", "scripts/golden/mirror.py")
    p["transformers"] = TRANSFORMERS_VERSION
    p["vllm"] = common.VLLM_VERSION
    return p


def run(out_dir: str, tdir: str, only_cases=None, only_templates=None, quiet=False) -> list[str]:
    return common.render_all(render_case, provenance(), out_dir, tdir, only_cases, only_templates, quiet)


def main(argv=None) -> int:
    a = common.parse_generator_args(argv, "Render the golden cases with the pure-Jinja2 mirror.")
    if a is not None:
        run(a.out, a.templates_dir, a.case, a.template)
    return 0


if __name__ == "__main__":
    sys.exit(main())
