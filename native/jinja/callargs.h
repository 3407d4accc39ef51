// Binding of call arguments to named parameters for builtin functions,
// filters, tests and methods (Python's positional-or-keyword rules).
#pragma once

#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "errors.h"
#include "value.h"

namespace jinja {

class ArgBinder {
 public:
  // `params` are the parameter names in order; positional arguments fill
  // them first, then keywords by name. Unknown keywords and surplus
  // positionals raise TypeError naming `fn`.
  ArgBinder(std::string_view fn, const CallArgs& args, std::initializer_list<const char*> params) {
    size_t n = params.size();
    // Builtins take few parameters; a fixed array keeps binding allocation-free.
    if (n > kMaxParams) throw std::logic_error("ArgBinder: raise kMaxParams");
    if (args.args.size() > n)
      throw_type_error(std::string(fn) + "() takes at most " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                       " (" + std::to_string(args.args.size()) + " given)");
    for (size_t i = 0; i < args.args.size(); ++i) values_[i] = &args.args[i];
    for (const auto& kw : args.kwargs) {
      size_t i = 0;
      for (const char* p : params) {
        if (kw.first == p) break;
        ++i;
      }
      if (i == n) throw_type_error(std::string(fn) + "() got an unexpected keyword argument '" + kw.first + "'");
      if (values_[i]) throw_type_error(std::string(fn) + "() got multiple values for argument '" + kw.first + "'");
      values_[i] = &kw.second;
    }
  }
  const Value* get(size_t i) const { return values_[i]; }
  bool has(size_t i) const { return values_[i] != nullptr; }
  // The argument, or `def` when it was not passed.
  Value value(size_t i, Value def = Value::none()) const { return values_[i] ? *values_[i] : def; }

 private:
  static constexpr size_t kMaxParams = 8;
  std::array<const Value*, kMaxParams> values_{};
};

// Arguments for "no keywords allowed" methods (most str methods).
inline void no_kwargs(std::string_view fn, const CallArgs& args) {
  if (!args.kwargs.empty()) throw_type_error(std::string(fn) + "() takes no keyword arguments");
}
inline void arg_count(std::string_view fn, const CallArgs& args, size_t min, size_t max) {
  size_t n = args.args.size();
  if (n < min || n > max) {
    if (min == max)
      throw_type_error(std::string(fn) + "() takes exactly " + (min == 1 ? "one argument" : std::to_string(min) + " arguments") +
                       " (" + std::to_string(n) + " given)");
    if (n < min)
      throw_type_error(std::string(fn) + " expected at least " + std::to_string(min) + " argument" + (min == 1 ? "" : "s") + ", got " + std::to_string(n));
    throw_type_error(std::string(fn) + " expected at most " + std::to_string(max) + " argument" + (max == 1 ? "" : "s") + ", got " + std::to_string(n));
  }
}

}  // namespace jinja
