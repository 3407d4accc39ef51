// The template variables the template-source fuzz target renders against: a
// tool-calling conversation shaped as the package's conversation layer hands
// it to the engine (messages with content strings and parts, tool calls with
// decoded arguments, reasoning, a tool result; tools as pydantic dumps them;
// the special tokens and flags transformers adds).
#pragma once

namespace fuzzctx {

inline constexpr const char* kContextJson = R"JSON({
  "messages": [
    {"role": "system", "content": "You are a helpful assistant. Today is 2026-01-15."},
    {"role": "user", "content": [{"type": "text", "text": "What is the weather in Paris?"}, {"type": "text", "text": "And in Oslo, in \u00b0C."}]},
    {"role": "assistant", "content": "", "reasoning": "The user wants two cities.", "reasoning_content": "The user wants two cities.",
     "tool_calls": [
       {"id": "call_0", "function": {"arguments": {"city": "Paris", "unit": "celsius", "days": 3, "ratio": 1.0, "tags": ["a", "b"], "nested": {"k": null, "1": true}}, "name": "get_weather"}, "type": "function"},
       {"id": "call_1", "function": {"arguments": {"city": "Oslo"}, "name": "get_weather"}, "type": "function"}
     ]},
    {"role": "tool", "content": "{\"temp\": 18.5, \"sky\": \"clear\"}", "tool_call_id": "call_0", "name": "get_weather"},
    {"role": "tool", "content": "{\"temp\": -3, \"sky\": \"snow\"}", "tool_call_id": "call_1"},
    {"role": "assistant", "content": "Paris: 18.5 \u00b0C, clear. Oslo: -3 \u00b0C, snow. \ud83c\udf24"},
    {"role": "user", "content": "Thanks! <|im_end|> {{ not a template }} \n\t end"}
  ],
  "tools": [
    {"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city",
      "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}, "days": {"type": "integer", "minimum": 1, "maximum": 16}},
        "required": ["city"]}, "strict": null}},
    {"type": "function", "function": {"name": "terminal", "description": null, "parameters": null}}
  ],
  "documents": null,
  "add_generation_prompt": true,
  "enable_thinking": false,
  "tools_in_user_message": true,
  "bos_token": "<s>",
  "eos_token": "</s>",
  "pad_token": "<pad>",
  "big": 123456789012345678901234567890,
  "neg": -9223372036854775808,
  "f": 1e-07,
  "nan": NaN
})JSON";

}  // namespace fuzzctx
