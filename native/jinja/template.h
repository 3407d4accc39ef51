// The engine's entry points: compile once, render many times.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "value.h"

namespace jinja {

struct Template;  // immutable compiled form (AST + metadata), safe to share across threads

// Parses with transformers' environment settings (trim_blocks, lstrip_blocks,
// keep_trailing_newline=False, loopcontrols, {% generation %}).
// Throws Error(ErrorKind::Syntax, "TemplateSyntaxError", msg, line, col).
std::shared_ptr<const Template> compile(std::string_view source);

// Renders with `context` as the template's variables (globals from
// default_globals() sit underneath). Throws jinja::Error on failure.
std::string render(const Template& tpl, const DictData& context, RenderState& state);

// jinja2.meta.find_undeclared_variables: names read before being assigned.
const std::vector<std::string>& undeclared_variables(const Template& tpl);

// vLLM's content-format detection: "openai" when some for-loop iterates over
// the content of a message variable, else "string".
enum class ContentFormat { String, OpenAI };
ContentFormat detect_content_format(const Template& tpl);

}  // namespace jinja
