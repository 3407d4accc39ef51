// Substring search with a linear worst case: templates may search long
// strings for long, adversarial needles ('a' * 10**6).find('a' * 500000 ~ 'b'),
// which a naive search answers in quadratic time. Short needles keep the
// standard library's search; long ones use Knuth-Morris-Pratt.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "value.h"

namespace jinja {

template <typename Char>
size_t linear_find(std::basic_string_view<Char> hay, std::basic_string_view<Char> needle, size_t from = 0) {
  constexpr size_t npos = std::basic_string_view<Char>::npos;
  if (needle.size() <= 32 || hay.size() < from + needle.size()) return hay.find(needle, from);
  work((hay.size() - from + needle.size()) / 16);
  std::vector<size_t> fail(needle.size(), 0);
  for (size_t i = 1, k = 0; i < needle.size(); ++i) {
    while (k && needle[i] != needle[k]) k = fail[k - 1];
    if (needle[i] == needle[k]) ++k;
    fail[i] = k;
  }
  for (size_t i = from, k = 0; i < hay.size(); ++i) {
    while (k && hay[i] != needle[k]) k = fail[k - 1];
    if (hay[i] == needle[k] && ++k == needle.size()) return i + 1 - needle.size();
  }
  return npos;
}

// Last occurrence starting at or before the end of `hay` (rfind), by
// searching the reversed strings.
template <typename Char>
size_t linear_rfind(std::basic_string_view<Char> hay, std::basic_string_view<Char> needle) {
  if (needle.size() <= 32 || hay.size() < needle.size()) return hay.rfind(needle);
  std::basic_string<Char> rh(hay.rbegin(), hay.rend()), rn(needle.rbegin(), needle.rend());
  size_t p = linear_find<Char>(rh, rn);
  return p == std::basic_string_view<Char>::npos ? p : hay.size() - p - needle.size();
}

}  // namespace jinja
