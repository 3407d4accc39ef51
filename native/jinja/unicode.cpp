// UTF-8 codec and Python-compatible character predicates / case mappings,
// backed by the generated tables in unicode_tables.cpp.
#include "unicode.h"

#include <cstring>

#include <algorithm>

namespace jinja::unicode {

using namespace unicode_tables;

char32_t decode_next(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) { ++i; return c; }
  size_t n = s.size();
  auto cont = [&](size_t k) { return k < n && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c < 0xE0 && cont(i + 1)) {
    char32_t cp = ((c & 0x1F) << 6) | (s[i + 1] & 0x3F);
    i += 2;
    return cp;
  }
  if (c >= 0xE0 && c < 0xF0 && cont(i + 1) && cont(i + 2)) {
    char32_t cp = ((c & 0x0F) << 12) | ((s[i + 1] & 0x3F) << 6) | (s[i + 2] & 0x3F);
    if (cp >= 0x800) { i += 3; return cp; }  // surrogates allowed (see header)
  }
  if (c >= 0xF0 && c < 0xF5 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
    char32_t cp = ((c & 0x07) << 18) | ((s[i + 1] & 0x3F) << 12) | ((s[i + 2] & 0x3F) << 6) | (s[i + 3] & 0x3F);
    if (cp >= 0x10000 && cp <= 0x10FFFF) { i += 4; return cp; }
  }
  ++i;
  return 0xFFFD;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
    return;
  }
  char b[4];
  out.append(b, size_t(write_utf8(b, cp) - b));
}

bool is_ascii(std::string_view s) {
  // Every new string value is classified here, so test eight bytes per step.
  constexpr uint64_t kHigh = 0x8080808080808080ull;
  size_t i = 0;
  uint64_t acc = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t v;
    std::memcpy(&v, s.data() + i, 8);
    acc |= v;
  }
  for (; i < s.size(); ++i) acc |= static_cast<unsigned char>(s[i]);
  return (acc & kHigh) == 0;
}

size_t count_code_points(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) ++i; else decode_next(s, i);
    ++n;
  }
  return n;
}

std::vector<char32_t> decode(std::string_view s) {
  std::vector<char32_t> v;
  v.reserve(s.size());
  for (size_t i = 0; i < s.size();) v.push_back(decode_next(s, i));
  return v;
}

std::string encode(const char32_t* cps, size_t n) {
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) append_utf8(out, cps[i]);
  return out;
}

size_t byte_offset(std::string_view s, size_t cp_index) {
  size_t i = 0;
  for (size_t k = 0; k < cp_index && i < s.size(); ++k) decode_next(s, i);
  return i;
}

uint16_t props(char32_t cp) {
  // Last run whose start <= cp.
  const PropRun* begin = prop_runs;
  const PropRun* end = prop_runs + prop_runs_count;
  const PropRun* it = std::upper_bound(begin, end, cp, [](char32_t c, const PropRun& r) { return c < r.start; });
  if (it == begin) return 0;
  return (it - 1)->flags;
}

static const CaseEntry* find_case(char32_t cp) {
  const CaseEntry* begin = case_entries;
  const CaseEntry* end = case_entries + case_entries_count;
  const CaseEntry* it = std::lower_bound(begin, end, cp, [](const CaseEntry& e, char32_t c) { return e.cp < c; });
  return (it != end && it->cp == cp) ? it : nullptr;
}

void append_mapped(std::string& out, char32_t cp, CaseMap m) {
  if (cp < 0x80) {
    char c = static_cast<char>(cp);
    if ((m == CaseMap::Lower || m == CaseMap::Fold) && c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
    if ((m == CaseMap::Upper || m == CaseMap::Title) && c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
    out.push_back(c);
    return;
  }
  const CaseEntry* e = find_case(cp);
  uint16_t idx = 0;
  if (e) idx = m == CaseMap::Lower ? e->lower : m == CaseMap::Upper ? e->upper : m == CaseMap::Title ? e->title : e->fold;
  if (idx == 0) { append_utf8(out, cp); return; }
  const PoolRef& r = case_pool_refs[idx];
  for (uint32_t k = 0; k < r.length; ++k) append_utf8(out, case_pool[r.offset + k]);
}

// Python lowers U+03A3 to final sigma when it ends a word: preceded by a
// cased letter and not followed by one (case-ignorable characters skipped).
static bool final_sigma(const std::vector<char32_t>& v, size_t i) {
  size_t j = i;
  bool before = false;
  while (j > 0) {
    char32_t c = v[--j];
    if (has(c, kCaseIgnorable)) continue;
    before = has(c, kCased);
    break;
  }
  if (!before) return false;
  for (size_t k = i + 1; k < v.size(); ++k) {
    char32_t c = v[k];
    if (has(c, kCaseIgnorable)) continue;
    return !has(c, kCased);
  }
  return true;
}

static void append_lower_at(std::string& out, const std::vector<char32_t>& v, size_t i) {
  if (v[i] == 0x03A3 && final_sigma(v, i)) append_utf8(out, 0x03C2);
  else append_mapped(out, v[i], CaseMap::Lower);
}

template <typename F>
static std::string map_ascii_fast(std::string_view s, F f) {
  std::string out(s);
  for (char& c : out) c = f(c);
  return out;
}

std::string py_lower(std::string_view s) {
  if (is_ascii(s)) return map_ascii_fast(s, [](char c) { return (c >= 'A' && c <= 'Z') ? char(c + 32) : c; });
  auto v = decode(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < v.size(); ++i) append_lower_at(out, v, i);
  return out;
}

std::string py_upper(std::string_view s) {
  if (is_ascii(s)) return map_ascii_fast(s, [](char c) { return (c >= 'a' && c <= 'z') ? char(c - 32) : c; });
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) append_mapped(out, decode_next(s, i), CaseMap::Upper);
  return out;
}

std::string py_casefold(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) append_mapped(out, decode_next(s, i), CaseMap::Fold);
  return out;
}

std::string py_title(std::string_view s) {
  auto v = decode(s);
  std::string out;
  out.reserve(s.size());
  bool prev_cased = false;
  for (size_t i = 0; i < v.size(); ++i) {
    if (prev_cased) append_lower_at(out, v, i);
    else append_mapped(out, v[i], CaseMap::Title);
    prev_cased = has(v[i], kCased);
  }
  return out;
}

std::string py_capitalize(std::string_view s) {
  auto v = decode(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (i == 0) append_mapped(out, v[i], CaseMap::Title);
    else append_lower_at(out, v, i);
  }
  return out;
}

std::string py_swapcase(std::string_view s) {
  auto v = decode(s);
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (has(v[i], kUpper)) append_lower_at(out, v, i);
    else if (has(v[i], kLower)) append_mapped(out, v[i], CaseMap::Upper);
    else append_utf8(out, v[i]);
  }
  return out;
}

int decimal_value(char32_t cp) {
  if (cp >= '0' && cp <= '9') return int(cp - '0');
  if (cp < 0x80 || !has(cp, kDecimal)) return -1;
  char32_t start = cp;
  while (start > 0 && has(start - 1, kDecimal) && cp - start < 100) --start;
  return int((cp - start) % 10);
}

const char* version() { return unicode_version; }

}  // namespace jinja::unicode
