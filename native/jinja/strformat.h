// Python string formatting: `%` operator, str.format and format specs.
#pragma once

#include <string>
#include <string_view>

#include "value.h"

namespace jinja {

// fmt % args (args: a tuple spreads, a dict feeds %(name)s, anything else is one arg).
Value percent_format(const Value& fmt, const Value& args);
// format(value, spec) as Python's format() builtin for str/int/float/bool/None.
std::string format_value(const Value& v, std::string_view spec);
// str.format(*args, **kwargs)
std::string str_format(RenderState& st, std::string_view fmt, const CallArgs& args);
// HTML escaping as markupsafe.escape (& < > " ').
std::string html_escape(std::string_view s);

}  // namespace jinja
