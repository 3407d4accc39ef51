// UTF-8 handling and the Python str character predicates / case mappings.
//
// Strings are UTF-8; text decoded from JSON may carry lone surrogates
// (Python keeps "\ud800" as a str of length 1), which we store as their
// 3-byte generalised UTF-8 form (ED A0 80..ED BF BF) and decode back to the
// surrogate code point, so length/indexing/repr match Python.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace jinja {

namespace unicode_tables {
struct PropRun { char32_t start; uint16_t flags; };
struct PoolRef { uint32_t offset; uint32_t length; };
struct CaseEntry { char32_t cp; uint16_t lower, upper, title, fold; };
extern const char unicode_version[];
extern const PropRun prop_runs[];
extern const size_t prop_runs_count;
extern const char32_t case_pool[];
extern const PoolRef case_pool_refs[];
extern const CaseEntry case_entries[];
extern const size_t case_entries_count;
}  // namespace unicode_tables

namespace unicode {

enum Flag : uint16_t {
  kPrintable = 1, kSpace = 2, kAlpha = 4, kDecimal = 8, kDigit = 16, kNumeric = 32,
  kUpper = 64, kLower = 128, kTitle = 256, kCased = 512, kCaseIgnorable = 1024,
  kIdStart = 2048, kIdContinue = 4096,  // str.isidentifier (XID_Start plus '_', XID_Continue)
};

// Decodes the code point at s[i] and advances i. Invalid bytes decode as
// themselves (U+0080..U+00FF would be wrong; we use U+FFFD) so no input can
// make the caller loop forever or read out of bounds.
char32_t decode_next(std::string_view s, size_t& i);
// Writes the UTF-8 of `cp` (one to four bytes; a surrogate in its 3-byte
// generalised form) at `d`, and returns the end.
inline char* write_utf8(char* d, char32_t cp) {
  if (cp < 0x80) {
    d[0] = static_cast<char>(cp);
    return d + 1;
  }
  if (cp < 0x800) {
    d[0] = static_cast<char>(0xC0 | (cp >> 6));
    d[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return d + 2;
  }
  if (cp < 0x10000) {
    d[0] = static_cast<char>(0xE0 | (cp >> 12));
    d[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    d[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return d + 3;
  }
  d[0] = static_cast<char>(0xF0 | (cp >> 18));
  d[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  d[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  d[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return d + 4;
}
void append_utf8(std::string& out, char32_t cp);
size_t count_code_points(std::string_view s);
bool is_ascii(std::string_view s);
std::vector<char32_t> decode(std::string_view s);
std::string encode(const char32_t* cps, size_t n);
inline std::string encode(const std::vector<char32_t>& v) { return encode(v.data(), v.size()); }
// Byte offset of the code point with index `cp_index` (clamped to size()).
size_t byte_offset(std::string_view s, size_t cp_index);

uint16_t props(char32_t cp);
inline bool is_printable(char32_t c) { return c < 0x80 ? (c >= 0x20 && c < 0x7f) : (props(c) & kPrintable) != 0; }
inline bool is_space(char32_t c) {
  if (c < 0x80) return c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f);
  return (props(c) & kSpace) != 0;
}
inline bool has(char32_t c, uint16_t flag) { return (props(c) & flag) != 0; }

// Value 0-9 of a Unicode decimal digit (category Nd), or -1. Nd digits come
// in aligned runs of ten starting at zero, which this relies on.
int decimal_value(char32_t cp);

// Python's full case mappings (SpecialCasing included: 'ß'.upper() == 'SS').
enum class CaseMap { Lower, Upper, Title, Fold };
void append_mapped(std::string& out, char32_t cp, CaseMap m);

// str.lower/upper/title/capitalize/swapcase/casefold on UTF-8 text.
std::string py_lower(std::string_view s);
std::string py_upper(std::string_view s);
std::string py_title(std::string_view s);
std::string py_capitalize(std::string_view s);
std::string py_swapcase(std::string_view s);
std::string py_casefold(std::string_view s);

const char* version();

}  // namespace unicode
}  // namespace jinja
