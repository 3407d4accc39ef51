"""Tool-parser goldens: vLLM's `extract_tool_calls` and, fed token-aligned
chunkings, `extract_tool_calls_streaming`. Imported by generate.py."""
import json
import os
import re

from tokenizer import MARKERS
from tool_vectors import PARSERS, TOOLS, vectors_for

# Streaming chunkings: the output is cut into tokens (each marker of the test
# tokenizer is one token with its id; other text is one token per N
# characters, id 0) and K tokens are fed per call.
CHUNKINGS = [("tokens of 1 char, 1 per delta", 1, 1), ("tokens of 3 chars, 1 per delta", 3, 1), ("tokens of 4 chars, 5 per delta", 4, 5)]
_MARK_RE = re.compile("|".join(re.escape(m) for m in sorted(MARKERS, key=len, reverse=True)))


def tokens(text, n, vocab):
    out = []
    pos = 0
    for m in _MARK_RE.finditer(text):
        plain = text[pos:m.start()]
        out += [(plain[i:i + n], 0) for i in range(0, len(plain), n)]
        out.append((m.group(0), vocab[m.group(0)]))
        pos = m.end()
    plain = text[pos:]
    out += [(plain[i:i + n], 0) for i in range(0, len(plain), n)]
    return out


def call_record(tc):
    fn = tc.function
    return {"name": fn.name, "arguments": fn.arguments}


def fold(d, calls):
    """Fold one DeltaMessage into `calls` as an OpenAI client does; returns its content."""
    if d is None:
        return ""
    for tc in d.tool_calls or []:
        slot = calls.setdefault(tc.index, {"name": "", "arguments": ""})
        if tc.function is not None:
            if tc.function.name:
                slot["name"] = tc.function.name
            if tc.function.arguments:
                slot["arguments"] += tc.function.arguments
    return d.content or ""


def run_streaming(make_parser, text, req, n, k, vocab):
    parser = make_parser()
    toks = tokens(text, n, vocab)
    prev_text, prev_ids = "", []
    content = ""
    calls = {}
    for i in range(0, len(toks), k):
        group = toks[i:i + k]
        delta_text = "".join(t for t, _ in group)
        delta_ids = [x for _, x in group]
        cur_text, cur_ids = prev_text + delta_text, prev_ids + delta_ids
        d = parser.extract_tool_calls_streaming(prev_text, cur_text, delta_text, prev_ids, cur_ids, delta_ids, req)
        content += fold(d, calls)
        prev_text, prev_ids = cur_text, cur_ids
    fin = getattr(parser, "finish_streaming", None)
    if fin is not None:
        content += fold(fin(), calls)
    return {"content": content or None, "tool_calls": [calls[i] for i in sorted(calls)]}


def run(tok, only, provenance, request, quiet, out_dir):
    from vllm.tool_parsers import ToolParserManager

    vocab = tok.get_vocab()
    for name in PARSERS:
        if only and name not in only:
            continue
        # `mistral_pre_v11`: vLLM's mistral parser in its pre-v11 tokenizer mode
        # (a JSON list after one [TOOL_CALLS]), which it picks for Mistral
        # tokenizers older than v11; forced here, the HF tokenizer selects v11.
        vllm_name = "mistral" if name == "mistral_pre_v11" else name
        cls = ToolParserManager.get_tool_parser(vllm_name)
        req = request(tools=TOOLS)
        doc = {"parser": vllm_name, "mode": name, "class": f"{cls.__module__}.{cls.__qualname__}",
               "provenance": provenance({"method": "ToolParser.extract_tool_calls / extract_tool_calls_streaming",
                                         "streaming_chunkings": [c[0] for c in CHUNKINGS]}),
               "tools": TOOLS, "vectors": []}
        tools_obj = req.tools

        def make():
            try:
                p = quiet(lambda: cls(tok, tools_obj))
            except TypeError:
                p = quiet(lambda: cls(tok))
            if name == "mistral_pre_v11":
                import ijson
                p._is_pre_v11 = True
                p.parse_coro = ijson.parse_coro(p.update_stream_state_pre_v11_tokenizer())
            return p

        for vid, text in vectors_for(name):
            rec = {"id": vid, "text": text}
            try:
                parser = make()
                info = quiet(lambda: parser.extract_tool_calls(text, req))
                rec["content"] = info.content
                rec["tool_calls"] = [call_record(tc) for tc in info.tool_calls] if info.tools_called else []
            except Exception as e:
                rec["error"] = f"{type(e).__name__}: {e}"
            streams = {}
            for label, n, k in CHUNKINGS:
                try:
                    streams[label] = quiet(lambda: run_streaming(make, text, req, n, k, vocab))
                except Exception as e:
                    streams[label] = {"error": f"{type(e).__name__}: {e}"}
            rec["vllm_streaming"] = streams
            doc["vectors"].append(rec)
        path = os.path.join(out_dir, "tools", f"{name}.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
        print(f"wrote tools/{name}.json")
