// Recursive-descent parser reproducing Jinja2's grammar, operator precedence
// and syntax-error messages.
#pragma once

#include <string_view>

#include "ast.h"

namespace jinja {

// Parses a whole template into its top-level statement list. Throws
// Error(ErrorKind::Syntax) with line and column on malformed input; unknown
// filters/tests outside conditional contexts raise TemplateAssertionError as
// Jinja2's compiler does.
ast::Body parse_template(std::string_view source);

}  // namespace jinja
