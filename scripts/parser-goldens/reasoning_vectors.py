"""Model outputs for the reasoning-parser goldens, per vLLM parser name."""

THINK = ("<think>", "</think>")
TOOL_TAG = {
    "qwen3": "<tool_call>", "seed_oss": "<seed:tool_call>", "glm45": "<tool_call>",
    "kimi_k2": "<|tool_calls_section_begin|>", "minimax_m2": "<minimax:tool_call>",
}


def tag_vectors(s: str, e: str, tool: str = "<tool_call>") -> list[tuple[str, str]]:
    return [
        ("plain", "Hello there."),
        ("empty", ""),
        ("full", f"{s}I should add 2 and 2.{e}The answer is 4."),
        ("no_start_tag", f"I should add 2 and 2.{e}The answer is 4."),
        ("unfinished", f"{s}still thinking about it"),
        ("unfinished_no_start", "still thinking about it"),
        ("whitespace", f"{s}\nthought one\n\n{e}\n\nanswer\n"),
        ("empty_reasoning", f"{s}{e}answer"),
        ("ends_after_end", f"{s}only thoughts{e}"),
        ("tool_after", f"{s}need a tool{e}\n\n{tool}{{\"name\": \"f\", \"arguments\": {{}}}}"),
        ("implicit_end_by_tool", f"{s}need a tool\n{tool}{{\"name\": \"f\"}}"),
        ("duplicate_end", f"{s}a{e}b{e}c"),
        ("second_block", f"{s}a{e}b{s}c{e}d"),
        ("start_inside", f"{s}a{s}b{e}c"),
        ("unicode", f"{s}café 😀 \"q\" \\ {e}日本語\n"),
        ("multiline", f"{s}step 1\n  step 2\n{e}\nline 1\n  line 2"),
        ("text_before_start", f"Intro. {s}x{e}y"),
    ]


def granite_vectors():
    return [
        ("plain", "Hello there."),
        ("full", "Here is my thought process:\nI think.\nHere is my response:\nThe answer."),
        ("heres", "Here's my thought process: a Here's my response: b"),
        ("no_response", "Here is my thought process: only thoughts"),
        ("empty_response", "Here is my thought process: t Here is my response:"),
        ("text_before", "Sure. Here is my thought process: a Here is my response: b"),
        ("mixed", "Here's my thought process: a Here is my response: b Here is my response: c"),
    ]


def hunyuan_vectors():
    return [
        ("plain", "Hello there."),
        ("full", "<think>\nI think.\n</think>\n<answer>\nThe answer.\n</answer>"),
        ("no_answer_end", "<think>\nI think.\n</think>\n<answer>\nThe answer."),
        ("answer_only", "The answer.\n</answer>"),
        ("empty_reasoning", "<think>\n\n</think>\n<answer>\nx\n</answer>"),
        ("multiline", "<think>\na\n\nb\n</think>\n<answer>\nline 1\n  line 2\n</answer>"),
    ]


def gemma4_vectors():
    O, C, T = "<|channel>", "<channel|>", "<|tool_call>call:f{}<tool_call|>"
    return [
        ("plain", "Hello there."),
        ("empty", ""),
        ("full", f"{O}thought\nI think.{C}The answer."),
        ("no_opener", "thought\nI think.{C}The answer.".replace("{C}", C)),
        ("unfinished", f"{O}thought\nstill thinking"),
        ("only_name", f"{O}thought{C}hi"),
        ("whitespace", f"{O}thought\n plan \n\n{C}\nanswer\n"),
        ("tool_from_reasoning", f"{O}thought\nneed a tool\n{T}"),
        ("tool_after", f"{O}thought\nplan{C}{T}"),
        ("two_blocks", f"{O}thought\na{C}b{O}c{C}d"),
        ("stray_close_at_start", f"{C}Answer."),
        ("stray_close_inside", f"Answer{C} more"),
        ("no_thought_name", f"{O}plain reasoning{C}x"),
        ("unicode", f"{O}thought\ncafé 😀{C}日本語"),
    ]


def vectors_for(name: str):
    if name == "gemma4":
        return gemma4_vectors()
    if name == "granite":
        return granite_vectors()
    if name == "hunyuan_a13b":
        return hunyuan_vectors()
    if name == "seed_oss":
        return tag_vectors("<seed:think>", "</seed:think>", "<seed:tool_call>")
    if name == "mistral":
        return tag_vectors("[THINK]", "[/THINK]") + [("end_without_start", "a[/THINK]b")]
    return tag_vectors(*THINK, TOOL_TAG.get(name, "<tool_call>"))


# (parser name, chat_template_kwargs or None)
RUNS = [
    ("deepseek_r1", None),
    ("qwen3", None),
    ("qwen3", {"enable_thinking": False}),
    ("seed_oss", None),
    ("deepseek_v3", None),
    ("deepseek_v3", {"thinking": True}),
    ("glm45", None),
    ("glm45", {"enable_thinking": False}),
    ("kimi_k2", None),
    ("kimi_k2", {"thinking": False}),
    ("minimax_m2", None),
    ("minimax_m2_append_think", None),
    ("mistral", None),
    ("granite", None),
    ("hunyuan_a13b", None),
    ("olmo3", None),
    ("step3", None),
    ("gemma4", None),
]
