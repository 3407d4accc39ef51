// The structural scan of json-spans.ts (strings skipped whole, brackets
// counted, a number or literal up to the next delimiter) over a JS string's
// UTF-16 units, sixteen at a time where SSE2 is there. Positions are UTF-16
// indices, as in JS; nothing is decoded or validated.
#include "addon/json_spans.h"

#include <bit>
#include <cstdint>
#include <string_view>

#include "addon/scratch.h"
#include "jinja/compiler.h"

#if defined(JINJA_HAVE_SSE2)
#include <emmintrin.h>
#endif

namespace nvc_addon {

namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

bool is_ws(char16_t c) { return c == u' ' || c == u'\n' || c == u'\r' || c == u'\t'; }

// Feeds `feed` each unit of s[j, n) that is one of `Units`, in order, and
// stops at the first feed that returns true: just past that unit, or kNone.
// Blocks of sixteen units are tested for all of them at once where SSE2 is
// there, so the units in between cost next to nothing.
template <char16_t... Units, class Feed>
size_t each_unit(const char16_t* s, size_t n, size_t j, Feed&& feed) {
#if defined(JINJA_HAVE_SSE2)
  auto marks = [](__m128i v) {
    __m128i m = _mm_setzero_si128();
    ((m = _mm_or_si128(m, _mm_cmpeq_epi16(v, _mm_set1_epi16(short(Units))))), ...);
    return m;
  };
  for (; j + 16 <= n; j += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j + 8));
    // one bit per unit (the compares give 0 or -1, which packing keeps)
    for (unsigned m = unsigned(_mm_movemask_epi8(_mm_packs_epi16(marks(a), marks(b)))); m != 0; m &= m - 1) {
      const size_t k = j + size_t(std::countr_zero(m));
      if (feed(k)) return k + 1;
    }
  }
#endif
  for (; j < n; ++j)
    if (((s[j] == Units) || ...) && feed(j)) return j + 1;
  return kNone;
}

// Where the strings of a JSON text are, from its quotes and backslashes fed
// in order (with whatever other units a scan marks): a string ends at the
// first quote after an even run of backslashes, exactly where json-spans'
// stringEnd finds it.
class Strings {
 public:
  // The marked unit `c` at `k`: true where it is structure outside strings
  // (not a quote, nor a backslash, which outside strings is not JSON and is
  // skipped as json-spans does).
  bool structural(char16_t c, size_t k) {
    if (k == escaped_) return false;
    if (inside_) {
      if (c == u'\\') escaped_ = k + 1;
      else if (c == u'"') inside_ = false;
      return false;
    }
    if (c == u'"') inside_ = true;
    return c != u'"' && c != u'\\';
  }
  bool inside() const { return inside_; }

 private:
  bool inside_ = false;
  size_t escaped_ = kNone;  // the unit a backslash escaped
};

// Just past the string or container value whose first unit is at `i`:
// its quotes, backslashes and brackets fed in order to the string rule and
// a depth count; kNone where it does not end.
size_t scan_value_end(const char16_t* s, size_t n, size_t i) {
  Strings strings;
  size_t depth = 0;
  return each_unit<u'"', u'\\', u'[', u']', u'{', u'}'>(s, n, i, [&](size_t k) {
    const char16_t c = s[k];
    const bool was_inside = strings.inside();
    // (a string that closes at depth 0 was the value)
    if (!strings.structural(c, k)) return was_inside && !strings.inside() && depth == 0;
    if (c == u'[' || c == u'{') {
      ++depth;
      return false;
    }
    return depth > 0 && --depth == 0;
  });
}

// The `:` outside strings of a JSON text: in valid JSON, its object
// members, duplicates included.
size_t colons_outside_strings(const char16_t* s, size_t n) {
  Strings strings;
  size_t count = 0;
  each_unit<u'"', u'\\', u':'>(s, n, 0, [&](size_t k) {
    if (strings.structural(s[k], k)) ++count;
    return false;
  });
  return count;
}

size_t value_end(const char16_t* s, size_t n, size_t i) {
  if (i >= n) return kNone;
  const char16_t c = s[i];
  if (c != u'"' && c != u'{' && c != u'[') {
    size_t j = i + 1;
    while (j < n && s[j] != u',' && s[j] != u']' && s[j] != u'}' && !is_ws(s[j])) ++j;
    return j;
  }
  return scan_value_end(s, n, i);
}

// `scan` over this thread's copy of a JS string's UTF-16 units (kept up to
// 64 Ki units); -1 where the text could not be read or memory ran out (the
// caller then does without).
template <class Scan>
double scan_units(napi_env env, napi_value text, Scan&& scan) {
  thread_local Scratch<char16_t, 64 * 1024> scratch;
  double out = -1;
  try {
    size_t n = 0;
    if (const char16_t* buf = read_utf16(env, text, scratch, n); buf != nullptr) out = scan(buf, n);
  } catch (...) {
    out = -1;
  }
  scratch.trim();
  return out;
}

}  // namespace

Napi::Value JsonValueEnd(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 2 || !info[0].IsString() || !info[1].IsNumber()) {
    Napi::TypeError::New(env, "jsonValueEnd(text, at)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  const double at = info[1].As<Napi::Number>().DoubleValue();
  return Napi::Number::New(env, scan_units(env, info[0], [&](const char16_t* buf, size_t n) {
    if (!(at >= 0 && at < double(n))) return -1.0;
    const size_t e = value_end(buf, n, size_t(at));
    return e != kNone ? double(e) : -1.0;
  }));
}

Napi::Value JsonMembers(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 1 || !info[0].IsString()) {
    Napi::TypeError::New(env, "jsonMembers(text)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return Napi::Number::New(env, scan_units(env, info[0], [](const char16_t* buf, size_t n) { return double(colons_outside_strings(buf, n)); }));
}

}  // namespace nvc_addon
