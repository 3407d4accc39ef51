"""A throw-away local tokenizer for vLLM's parser classes.

A real transformers fast tokenizer (loaded by vLLM's `get_tokenizer`) whose
vocabulary is `<unk>` plus every marker a parser looks up, each an added
special token, so `get_vocab()` / `convert_tokens_to_ids` find them. Ordinary
text is never tokenized by the parsers under test; for streaming runs the
generator makes its own token ids (see `segments` in generate.py).
No weights, no network.
"""
import json
import os
import tempfile

MARKERS = [
    # reasoning
    "<think>", "</think>", "<seed:think>", "</seed:think>", "[THINK]", "[/THINK]",
    "<answer>", "</answer>",
    # tool calls
    "<tool_call>", "</tool_call>", "<seed:tool_call>", "</seed:tool_call>",
    "<|python_tag|>", "<|eom_id|>", "<|eot_id|>", "[TOOL_CALLS]", "[ARGS]", "[CALL_ID]",
    "<|tool_call|>", "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>",
    "<|tool_call_begin|>", "<|tool_call_end|>", "<|tool_call_argument_begin|>",
    "<|action_start|>", "<|action_end|>", "<|plugin|>", "<|interpreter|>",
    "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>",
    "<minimax:tool_call>", "</minimax:tool_call>",
    "<tool_calls>", "</tool_calls>", "functools",
    "<start_function_call>", "<end_function_call>", "<escape>",
    "<|start|>", "<|end|>", "<|message|>", "<|channel|>", "<|call|>", "<|return|>", "<|constrain|>",
    "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>",
    "<|tool_calls_begin|>", "<|tool_calls_end|>", "<|tool_call_sep|>",
    "<function_calls>", "</function_calls>",
    "<|tool_list_start|>", "<|tool_list_end|>", "<|tool_call_start|>", "<|tool_call_end|>",
    "<longcat_tool_call>", "</longcat_tool_call>",
    "<|steptml:tool_calls_begin|>",
    "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>",
    "<|im_end|>", "<|endoftext|>", "<eos>", "<|end_of_text|>",
    "<|tool_call>", "<tool_call|>", '<|"|>', "<|tool_response>", "<tool_response|>", "<|channel>", "<channel|>",
    "<｜DSML｜function_calls>", "</｜DSML｜function_calls>", "<｜end▁of▁sentence｜>",
]


def make_tokenizer(get_tokenizer, markers=MARKERS):
    from tokenizers import AddedToken, Tokenizer, models, pre_tokenizers

    d = tempfile.mkdtemp(prefix="parser-tok-")
    # Plain vocabulary entries OLMo 3's parser looks up (the pieces of `</think>`).
    vocab = {"<unk>": 0, "Ġ</": 1, "</": 2, "think": 3, ">": 4}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.Whitespace()
    tk.add_special_tokens([AddedToken(m, special=True, normalized=False) for m in dict.fromkeys(markers)])
    tk.save(os.path.join(d, "tokenizer.json"))
    with open(os.path.join(d, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": "<unk>", "eos_token": "<eos>",
                   "model_max_length": 1 << 30}, f)
    return get_tokenizer(d)
