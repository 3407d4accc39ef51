// Force-included into the fuzz build (see build.sh) when it uses libc++.
// clang in C++20 mode cannot compile the engine's headers against
// libstdc++ 12, so the fuzzers build against libc++; libc++ before 20 has no
// std::from_chars for double, which json.cpp uses. This adds that one
// overload on top of strtod (correctly rounded in the "C" locale the fuzzers
// run in), for this build only.
#pragma once

#include <charconv>

#if defined(_LIBCPP_VERSION) && _LIBCPP_VERSION < 200000
#include <cstdlib>
#include <string>

namespace std {
inline from_chars_result from_chars(const char* first, const char* last, double& value,
                                    chars_format = chars_format::general) {
  std::string text(first, last);
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return {first, errc::invalid_argument};
  value = d;
  return {first + (end - text.c_str()), errc()};
}
}  // namespace std
#endif
