// Python text forms of values: str(), repr(), float repr.
#pragma once

#include <string>
#include <string_view>

#include "value.h"

namespace jinja {

std::string py_str(const Value& v);   // what {{ v }}, ~, |string print
std::string py_repr(const Value& v);  // repr(), used inside containers
void append_py_str(std::string& out, const Value& v);  // fast path for the output buffer
std::string float_repr(double d);     // Python repr(float): 1.0, 1e-07, 1e+16, inf, nan, -0.0
std::string bigint_str(const BigIntData& b);

}  // namespace jinja

namespace jinja {
// Additions used across the library.
void append_py_repr(std::string& out, const Value& v);
void append_float_repr(std::string& out, double d);
void append_str_repr(std::string& out, std::string_view s);  // Python repr() of a str
// CPython's Py_ReprEnter/Py_ReprLeave for the calling thread: a container
// whose repr is already being printed further up prints as a marker instead
// ([...], {...}, (...), <Namespace {...}>), so self-referential values built
// through namespaces print as Python prints them instead of recursing.
class ReprEnter {
 public:
  explicit ReprEnter(const void* identity);
  ~ReprEnter();
  ReprEnter(const ReprEnter&) = delete;
  ReprEnter& operator=(const ReprEnter&) = delete;
  bool recursive() const { return recursive_; }

 private:
  bool recursive_;
};
// ValueError for printing ints over 4300 digits (Python 3.11's default guard).
[[noreturn]] void throw_int_digits_limit();
}  // namespace jinja
