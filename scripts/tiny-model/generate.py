#!/usr/bin/env python3
"""Write a tiny random-weight checkpoint that vllm.cpp can load on a CPU.

    generate.py --out DIR --template gemma4|qwen3|llama3 [--seed N]

The checkpoint is a dense decoder (LlamaForCausalLM, or Qwen3ForCausalLM for
the qwen3 template) with a hidden size of 64 and two layers, BF16 weights in
model.safetensors, and a byte-level BPE tokenizer.json: the 256 byte tokens
(so any UTF-8 text can be spelled), a few merges, and every special marker the
chat template emits as an added token. tokenizer_config.json carries the chat
template text, read from the shared template directory at generation time
(../shared/templates next to the repository, or $NODE_VLLM_CPP_TEMPLATES), so
no template is ever stored in this repository.

The weights are random: the model produces arbitrary tokens. It exists to drive
the engine (load, streaming, cancellation, structured constraints, timing),
never to judge output quality.

Dependencies (PyPI): numpy, safetensors, tokenizers (scripts/tiny-model/setup
installs the tested versions into scripts/tiny-model/.venv).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

try:
    import numpy as np
    from safetensors import serialize_file
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models
    from tokenizers import pre_tokenizers, processors
except ImportError as e:  # pragma: no cover - depends on the environment
    sys.exit(f"generate.py: {e}; install the dependencies with "
             "scripts/tiny-model/setup or `pip install -r scripts/tiny-model/requirements.txt`")
try:  # safetensors >= 0.8 describes tensors with TensorSpec, older ones with dicts
    from safetensors import TensorSpec
except ImportError:  # pragma: no cover - depends on the installed version
    TensorSpec = None

REPO_ROOT = Path(__file__).resolve().parents[2]

# Split regexes of the two byte-level BPE families vllm.cpp's tokenizer
# recognises (the classic Qwen2 pre-tokenizer and the cl100k-style Llama 3 one).
QWEN2_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)
LLAMA3_SPLIT = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
    r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# Strings that look like chat-template markers: <|x>, <x|>, <|x|>.
MARKER_RE = re.compile(r"<\|[^<>\s]{0,40}?>|<[^<>\s|]{1,40}\|>")


@dataclass
class Special:
    text: str
    special: bool = True


@dataclass
class TemplateSpec:
    name: str
    template_file: str
    arch: str
    split: str
    # Added tokens in id order. `leading` ones take ids 0.. (before the byte
    # alphabet, as Gemma numbers <pad>/<eos>/<bos>); the rest follow the
    # byte alphabet and merges, as Qwen and Llama 3 number theirs.
    leading: list[Special]
    trailing: list[Special]
    bos: str | None
    eos: str
    pad: str | None
    # Token texts whose ids end generation (config.json / generation_config.json
    # eos_token_id, first one primary).
    stop_ids: list[str]
    # Words merged into single tokens (byte-level text, before the byte map).
    merge_words: list[str] = field(default_factory=list)


GEMMA4 = TemplateSpec(
    name="gemma4",
    template_file="gemma4__official_v4.jinja",
    arch="LlamaForCausalLM",
    split=LLAMA3_SPLIT,
    leading=[Special("<pad>"), Special("<eos>"), Special("<bos>"), Special("<unk>")],
    trailing=[
        Special(t)
        for t in (
            "<|turn>", "<turn|>", "<|tool_call>", "<tool_call|>", '<|"|>',
            "<|tool>", "<tool|>", "<|tool_response>", "<tool_response|>",
            "<|channel>", "<channel|>", "<|think|>", "<|image|>", "<|audio|>",
            "<|video|>",
        )
    ],
    bos="<bos>",
    eos="<eos>",
    pad="<pad>",
    stop_ids=["<eos>", "<turn|>"],
    merge_words=["model", "user", "call", "terminal", "command", "date", "declaration",
                 "response", "system", " the", "\n"],
)

QWEN3 = TemplateSpec(
    name="qwen3",
    template_file="qwen3__official.jinja",
    arch="Qwen3ForCausalLM",
    split=QWEN2_SPLIT,
    leading=[],
    # Qwen3's own tokenizer marks the turn markers special and the tool/think
    # tags non-special; the same flags are kept here.
    trailing=[
        Special("<|endoftext|>"), Special("<|im_start|>"), Special("<|im_end|>"),
        Special("<tool_call>", False), Special("</tool_call>", False),
        Special("<tool_response>", False), Special("</tool_response>", False),
        Special("<think>", False), Special("</think>", False),
    ],
    bos=None,
    eos="<|im_end|>",
    pad="<|endoftext|>",
    stop_ids=["<|im_end|>", "<|endoftext|>"],
    merge_words=["user", "assistant", "system", "name", "arguments", "tools",
                 "function", " the", "\n"],
)

LLAMA3 = TemplateSpec(
    name="llama3",
    template_file="llama3_1__vllm_json.jinja",
    arch="LlamaForCausalLM",
    split=LLAMA3_SPLIT,
    leading=[],
    trailing=[
        Special(t)
        for t in (
            "<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>",
            "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>", "<|python_tag|>",
            "<|finetune_right_pad_id|>",
        )
    ],
    bos="<|begin_of_text|>",
    eos="<|eot_id|>",
    pad="<|finetune_right_pad_id|>",
    stop_ids=["<|end_of_text|>", "<|eom_id|>", "<|eot_id|>"],
    merge_words=["user", "assistant", "system", "name", "parameters", "ipython",
                 "function", " the", "\n\n"],
)

SPECS = {s.name: s for s in (GEMMA4, QWEN3, LLAMA3)}


def byte_alphabet() -> list[str]:
    """The byte-level BPE alphabet: byte b -> its printable stand-in character
    (printable Latin-1 bytes map to themselves, the others to U+0100 onward)."""
    keep = set(range(0x21, 0x7F)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))
    out: list[str] = []
    extra = 0
    for b in range(256):
        if b in keep:
            out.append(chr(b))
        else:
            out.append(chr(0x100 + extra))
            extra += 1
    return out


def build_tokenizer(spec: TemplateSpec, non_special: bool) -> tuple[Tokenizer, dict[str, int]]:
    alphabet = byte_alphabet()
    vocab: dict[str, int] = {}

    def put(text: str) -> None:
        if text not in vocab:
            vocab[text] = len(vocab)

    for s in spec.leading:
        put(s.text)
    for ch in alphabet:
        put(ch)
    merges: list[tuple[str, str]] = []
    for word in spec.merge_words:
        symbols = [alphabet[b] for b in word.encode("utf-8")]
        left = symbols[0]
        for sym in symbols[1:]:
            merged = left + sym
            if merged not in vocab:
                merges.append((left, sym))
                put(merged)
            left = merged
    for s in spec.trailing:
        put(s.text)

    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, ignore_merges=False))
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(spec.split), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False),
        ]
    )
    tok.decoder = decoders.ByteLevel()
    added = [
        AddedToken(s.text, special=(s.special and not non_special), normalized=False,
                   single_word=False, lstrip=False, rstrip=False)
        for s in spec.leading + spec.trailing
    ]
    tok.add_tokens(added)

    byte_level = processors.ByteLevel(trim_offsets=False)
    if spec.bos is not None:
        bos_id = vocab[spec.bos]
        template = processors.TemplateProcessing(
            single=f"{spec.bos} $A",
            pair=f"{spec.bos} $A {spec.bos} $B",
            special_tokens=[(spec.bos, bos_id)],
        )
        tok.post_processor = (
            template if spec.name == "gemma4" else processors.Sequence([byte_level, template])
        )
    else:
        tok.post_processor = byte_level

    # Every id from 0 to the vocabulary size names a token: a random model can
    # emit any of them, and each must decode.
    assert sorted(vocab.values()) == list(range(len(vocab)))
    for s in spec.leading + spec.trailing:
        assert tok.token_to_id(s.text) == vocab[s.text], s.text
    return tok, vocab


def check_markers(spec: TemplateSpec, template: str) -> None:
    known = {s.text for s in spec.leading + spec.trailing}
    missing = sorted(set(MARKER_RE.findall(template)) - known)
    if missing:
        sys.exit(f"generate.py: template {spec.template_file} emits markers without a "
                 f"token: {missing}")


def check_tokenizer(tok: Tokenizer, spec: TemplateSpec) -> None:
    # Any UTF-8 text round-trips through the byte alphabet.
    sample = "call:terminal{command:date} ünïcødé ✓ 日本語 😀 \t\r\n  x"
    ids = tok.encode(sample, add_special_tokens=False).ids
    assert tok.decode(ids, skip_special_tokens=False) == sample, "round trip"
    # Each marker is one token.
    for s in spec.leading + spec.trailing:
        assert tok.encode(s.text, add_special_tokens=False).ids == [tok.token_to_id(s.text)], s.text


def bf16_bytes(a: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bit patterns (round to nearest even), as uint16."""
    u = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16
    return np.ascontiguousarray(u.astype(np.uint16))


def build_weights(arch: str, cfg: dict, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    h = cfg["hidden_size"]
    inter = cfg["intermediate_size"]
    nh = cfg["num_attention_heads"]
    nkv = cfg["num_key_value_heads"]
    hd = cfg["head_dim"]
    v = cfg["vocab_size"]

    def rand(*shape: int, std: float = 0.02) -> np.ndarray:
        return rng.normal(0.0, std, size=shape).astype(np.float32)

    def ones(n: int) -> np.ndarray:
        return np.ones((n,), dtype=np.float32)

    w: dict[str, np.ndarray] = {
        "model.embed_tokens.weight": rand(v, h, std=1.0),
        "model.norm.weight": ones(h),
        "lm_head.weight": rand(v, h, std=0.5),
    }
    for layer in range(cfg["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        w[p + "input_layernorm.weight"] = ones(h)
        w[p + "post_attention_layernorm.weight"] = ones(h)
        w[p + "self_attn.q_proj.weight"] = rand(nh * hd, h, std=0.1)
        w[p + "self_attn.k_proj.weight"] = rand(nkv * hd, h, std=0.1)
        w[p + "self_attn.v_proj.weight"] = rand(nkv * hd, h, std=0.1)
        w[p + "self_attn.o_proj.weight"] = rand(h, nh * hd, std=0.1)
        if arch == "Qwen3ForCausalLM":
            w[p + "self_attn.q_norm.weight"] = ones(hd)
            w[p + "self_attn.k_norm.weight"] = ones(hd)
        w[p + "mlp.gate_proj.weight"] = rand(inter, h, std=0.1)
        w[p + "mlp.up_proj.weight"] = rand(inter, h, std=0.1)
        w[p + "mlp.down_proj.weight"] = rand(h, inter, std=0.1)
    return w


def write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    keep = {name: bf16_bytes(arr) for name, arr in sorted(tensors.items())}
    if TensorSpec is not None:
        specs = {
            name: TensorSpec(dtype="bfloat16", shape=list(tensors[name].shape),
                             data_ptr=buf.ctypes.data, data_len=buf.nbytes)
            for name, buf in keep.items()
        }
    else:
        specs = {
            name: {"dtype": "bfloat16", "shape": list(tensors[name].shape), "data": buf.tobytes()}
            for name, buf in keep.items()
        }
    serialize_file(specs, str(path), metadata={"format": "pt"})


def templates_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    env = os.environ.get("NODE_VLLM_CPP_TEMPLATES")
    if env:
        return Path(env)
    return REPO_ROOT.parent / "shared" / "templates"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="directory to write (created)")
    ap.add_argument("--template", required=True, choices=sorted(SPECS))
    ap.add_argument("--seed", type=int, default=0, help="weight seed (default 0)")
    ap.add_argument("--templates-dir", help="chat template directory (default: "
                    "$NODE_VLLM_CPP_TEMPLATES, else ../shared/templates next to the repo)")
    ap.add_argument("--chat-template", help="chat template file to embed instead of the "
                    "template's default one")
    ap.add_argument("--arch", choices=["LlamaForCausalLM", "Qwen3ForCausalLM"],
                    help="architecture (default: Qwen3ForCausalLM for qwen3, "
                    "LlamaForCausalLM otherwise)")
    ap.add_argument("--non-special", action="store_true",
                    help='mark every added token "special": false (they still encode '
                    "as single tokens; only decoding with skip_special_tokens changes)")
    ap.add_argument("--max-position-embeddings", type=int, default=4096)
    args = ap.parse_args(argv)

    spec = SPECS[args.template]
    arch = args.arch or spec.arch
    tpath = Path(args.chat_template) if args.chat_template else templates_dir(args.templates_dir) / spec.template_file
    try:
        template = tpath.read_text(encoding="utf-8")
    except OSError as e:
        sys.exit(f"generate.py: cannot read chat template {tpath}: {e.strerror} "
                 "(set NODE_VLLM_CPP_TEMPLATES or --templates-dir)")
    if not args.chat_template:
        check_markers(spec, template)

    tok, vocab = build_tokenizer(spec, args.non_special)
    check_tokenizer(tok, spec)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    ids = {s: vocab[s] for s in spec.stop_ids}
    eos_ids = [ids[s] for s in spec.stop_ids]
    bos_id = vocab[spec.bos] if spec.bos else None
    pad_id = vocab[spec.pad] if spec.pad else None
    model_type = "qwen3" if arch == "Qwen3ForCausalLM" else "llama"
    cfg = {
        "architectures": [arch],
        "model_type": model_type,
        "hidden_size": 64,
        "intermediate_size": 128,
        "num_hidden_layers": 2,
        "num_attention_heads": 4,
        "num_key_value_heads": 2,
        "head_dim": 16,
        "hidden_act": "silu",
        "rms_norm_eps": 1e-6,
        "rope_theta": 10000.0,
        "max_position_embeddings": args.max_position_embeddings,
        "vocab_size": len(vocab),
        "tie_word_embeddings": False,
        "attention_bias": False,
        "torch_dtype": "bfloat16",
        "bos_token_id": bos_id,
        "eos_token_id": eos_ids if len(eos_ids) > 1 else eos_ids[0],
        "pad_token_id": pad_id,
    }
    if arch == "LlamaForCausalLM":
        cfg["mlp_bias"] = False
    (out / "config.json").write_text(json.dumps(cfg, indent=2) + "\n")
    gen = {"bos_token_id": bos_id, "eos_token_id": cfg["eos_token_id"], "pad_token_id": pad_id}
    (out / "generation_config.json").write_text(json.dumps(gen, indent=2) + "\n")

    write_safetensors(out / "model.safetensors", build_weights(arch, cfg, args.seed))
    tok.save(str(out / "tokenizer.json"))

    added_decoder = {
        str(vocab[s.text]): {
            "content": s.text, "lstrip": False, "normalized": False, "rstrip": False,
            "single_word": False, "special": s.special and not args.non_special,
        }
        for s in spec.leading + spec.trailing
    }
    tcfg = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": spec.bos,
        "eos_token": spec.eos,
        "pad_token": spec.pad,
        "unk_token": None,
        "add_bos_token": spec.bos is not None,
        "add_eos_token": False,
        "clean_up_tokenization_spaces": False,
        "model_max_length": args.max_position_embeddings,
        "added_tokens_decoder": added_decoder,
        "chat_template": template,
    }
    (out / "tokenizer_config.json").write_text(json.dumps(tcfg, indent=2, ensure_ascii=False) + "\n")
    summary = {
        "out": str(out), "template": spec.name, "chat_template": str(tpath), "arch": arch,
        "vocab_size": len(vocab), "bos": spec.bos, "eos_token_id": cfg["eos_token_id"],
        "non_special": args.non_special, "seed": args.seed,
    }
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
