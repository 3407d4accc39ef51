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

// The scan of a string or container value from its first unit `i`: only
// quotes, backslashes and brackets matter, so blocks of units are tested for
// those at once and the units found are fed, in order, to a small state
// machine (inside a string or not, the unit a backslash escapes, the
// depth). A string ends at the first quote after an even run of
// backslashes, exactly where json-spans' stringEnd finds it.
class Scan {
 public:
  Scan(const char16_t* s, size_t n) : s_(s), n_(n) {}

  size_t value_end(size_t i) {
    size_t j = i;
#if defined(JINJA_HAVE_SSE2)
    const __m128i quote = _mm_set1_epi16(u'"'), backslash = _mm_set1_epi16(u'\\');
    const __m128i lb = _mm_set1_epi16(u'['), rb = _mm_set1_epi16(u']'), lc = _mm_set1_epi16(u'{'), rc = _mm_set1_epi16(u'}');
    auto marks = [&](__m128i v) {
      return _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi16(v, quote), _mm_cmpeq_epi16(v, backslash)),
                          _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi16(v, lb), _mm_cmpeq_epi16(v, rb)),
                                       _mm_or_si128(_mm_cmpeq_epi16(v, lc), _mm_cmpeq_epi16(v, rc))));
    };
    for (; j + 16 <= n_; j += 16) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s_ + j));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s_ + j + 8));
      // one bit per unit (the compares give 0 or -1, which packing keeps)
      for (unsigned m = unsigned(_mm_movemask_epi8(_mm_packs_epi16(marks(a), marks(b)))); m != 0; m &= m - 1) {
        const size_t k = j + size_t(std::countr_zero(m));
        if (feed(k)) return k + 1;
      }
    }
#endif
    for (; j < n_; ++j) {
      const char16_t c = s_[j];
      if ((c == u'"' || c == u'\\' || c == u'[' || c == u']' || c == u'{' || c == u'}') && feed(j)) return j + 1;
    }
    return kNone;
  }

 private:
  // One marked unit at `k`, in order; true where the value ends with it.
  bool feed(size_t k) {
    if (k == escaped_) return false;
    const char16_t c = s_[k];
    if (in_string_) {
      if (c == u'\\') {
        escaped_ = k + 1;
      } else if (c == u'"') {
        in_string_ = false;
        return depth_ == 0;
      }
      return false;
    }
    switch (c) {
      case u'"': in_string_ = true; return false;
      case u'[':
      case u'{': ++depth_; return false;
      case u']':
      case u'}': return depth_ > 0 && --depth_ == 0;
      default: return false;  // a backslash outside strings (not JSON; skipped as json-spans does)
    }
  }

  const char16_t* s_;
  size_t n_;
  size_t depth_ = 0;
  bool in_string_ = false;
  size_t escaped_ = kNone;  // the unit a backslash escaped
};

// The `:` outside strings of a JSON text, with the same string rule as
// Scan (a string ends at the first quote after an even run of
// backslashes): in valid JSON, its object members, duplicates included.
size_t colons_outside_strings(const char16_t* s, size_t n) {
  size_t count = 0;
  bool in_string = false;
  size_t escaped = kNone;
  auto feed = [&](size_t k) {
    if (k == escaped) return;
    const char16_t c = s[k];
    if (in_string) {
      if (c == u'\\') escaped = k + 1;
      else if (c == u'"') in_string = false;
    } else if (c == u'"') {
      in_string = true;
    } else if (c == u':') {
      ++count;
    }
  };
  size_t j = 0;
#if defined(JINJA_HAVE_SSE2)
  const __m128i quote = _mm_set1_epi16(u'"'), backslash = _mm_set1_epi16(u'\\'), colon = _mm_set1_epi16(u':');
  auto marks = [&](__m128i v) {
    return _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi16(v, quote), _mm_cmpeq_epi16(v, backslash)), _mm_cmpeq_epi16(v, colon));
  };
  for (; j + 16 <= n; j += 16) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + j + 8));
    for (unsigned m = unsigned(_mm_movemask_epi8(_mm_packs_epi16(marks(a), marks(b)))); m != 0; m &= m - 1) feed(j + size_t(std::countr_zero(m)));
  }
#endif
  for (; j < n; ++j) {
    const char16_t c = s[j];
    if (c == u'"' || c == u'\\' || c == u':') feed(j);
  }
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
  return Scan(s, n).value_end(i);
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
