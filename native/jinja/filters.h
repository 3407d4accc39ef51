// Filter and test registries (name -> function), as Jinja2's defaults plus
// transformers' tojson.
#pragma once

#include <string_view>

#include "value.h"

namespace jinja {

using FilterFn = Value (*)(RenderState& st, const Value& input, CallArgs& args);
using TestFn = bool (*)(RenderState& st, const Value& input, CallArgs& args);

FilterFn find_filter(std::string_view name);  // nullptr when unknown
TestFn find_test(std::string_view name);      // nullptr when unknown

}  // namespace jinja
