// JSON.stringify of a JS string, written straight to UTF-8 bytes from the
// string's UTF-16 units: `"` and `\` escaped with a backslash, \b \t \n \f
// \r by name, the other units under 0x20 and lone surrogates as \u00XX /
// \udXXX (lowercase hex, as V8 writes them), everything else as UTF-8
// (a surrogate pair as its code point).
#include "addon/json_quote.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "addon/scratch.h"
#include "jinja/compiler.h"
#include "jinja/unicode.h"

#if defined(JINJA_HAVE_SSE2)
#include <emmintrin.h>
#endif

namespace nvc_addon {

namespace {

// How JSON.stringify writes a unit under 0x80: itself (`plain`), a
// backslash and a letter (`named`), or else \u00XX.
struct Escapes {
  char named[0x80] = {};
  bool plain[0x80] = {};
  constexpr Escapes() {
    for (int c = 0; c < 0x80; ++c) plain[c] = c >= 0x20 && c != '"' && c != '\\';
    named[int('"')] = '"';
    named[int('\\')] = '\\';
    named[0x08] = 'b';
    named[0x09] = 't';
    named[0x0a] = 'n';
    named[0x0c] = 'f';
    named[0x0d] = 'r';
  }
};
constexpr Escapes kEscapes;

const char kHex[] = "0123456789abcdef";

char* put_u_escape(char* d, unsigned u) {
  d[0] = '\\';
  d[1] = 'u';
  d[2] = kHex[(u >> 12) & 15];
  d[3] = kHex[(u >> 8) & 15];
  d[4] = kHex[(u >> 4) & 15];
  d[5] = kHex[u & 15];
  return d + 6;
}

using Bytes = Scratch<char, 64 * 1024>;

// Bytes written into a thread's scratch buffer, grown (keeping what is
// written) when a write would pass its end.
class Out {
 public:
  explicit Out(Bytes& bytes, size_t size_hint) : bytes_(bytes) {
    base_ = bytes_.get(size_hint);
    d_ = base_;
    end_ = base_ + bytes_.size();
  }
  // Room for `k` more bytes at d().
  char* room(size_t k) {
    if (size_t(end_ - d_) < k) {
      const size_t used = size_t(d_ - base_);
      const size_t n = std::max(2 * bytes_.size(), used + k);
      base_ = bytes_.grow(n, used);
      d_ = base_ + used;
      end_ = base_ + n;
    }
    return d_;
  }
  void advance(char* to) { d_ = to; }
  char* end() const { return end_; }
  const char* begin() const { return base_; }
  size_t size() const { return size_t(d_ - base_); }

 private:
  Bytes& bytes_;
  char* base_;
  char* d_;
  char* end_;
};

// Writes the JSON string literal of units s[0..n).
void quote(Out& out, const char16_t* s, size_t n) {
  // (the write position and the end of the room in locals, synced with
  // `out` only when it must grow)
  char* d = out.room(n + 2);
  char* end = out.end();
  auto need = [&](size_t k) {
    if (size_t(end - d) < k) {
      out.advance(d);
      d = out.room(k);
      end = out.end();
    }
  };
  *d++ = '"';
  size_t i = 0;
  while (i < n) {
#if defined(JINJA_HAVE_SSE2)
    // eight units at a time while all are plain ASCII (0x20..0x7F, not " or
    // \), which take a byte each: room for all that are left, at once
    const __m128i space = _mm_set1_epi16(0x20), quote_unit = _mm_set1_epi16('"'), backslash = _mm_set1_epi16('\\');
    need(n - i + 1);
    while (i + 8 <= n) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i));
      // (signed compares: units from 0x8000 on read as negative, under 0x20)
      const __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmplt_epi16(v, space), _mm_cmpgt_epi16(v, _mm_set1_epi16(0x7F))),
                                       _mm_or_si128(_mm_cmpeq_epi16(v, quote_unit), _mm_cmpeq_epi16(v, backslash)));
      if (_mm_movemask_epi8(bad) != 0) break;
      _mm_storel_epi64(reinterpret_cast<__m128i*>(d), _mm_packus_epi16(v, v));
      d += 8;
      i += 8;
    }
    if (i >= n) break;
#endif
    // (a unit, or a pair, takes at most six bytes; the closing quote one)
    need(7);
    const char16_t c = s[i];
    if (c < 0x80) {
      if (kEscapes.plain[c]) {
        *d++ = char(c);
      } else if (const char name = kEscapes.named[c]; name != 0) {
        d[0] = '\\';
        d[1] = name;
        d += 2;
      } else {
        d = put_u_escape(d, c);
      }
      ++i;
    } else if (c >= 0xD800 && c <= 0xDBFF && i + 1 < n && s[i + 1] >= 0xDC00 && s[i + 1] <= 0xDFFF) {
      d = jinja::unicode::write_utf8(d, 0x10000 + ((uint32_t(c) - 0xD800) << 10) + (uint32_t(s[i + 1]) - 0xDC00));
      i += 2;
    } else if (c >= 0xD800 && c <= 0xDFFF) {
      d = put_u_escape(d, c);  // a lone surrogate
      ++i;
    } else {
      d = jinja::unicode::write_utf8(d, c);
      ++i;
    }
  }
  need(1);
  *d++ = '"';
  out.advance(d);
}

// The UTF-8 length of a JS string as Buffer.from encodes it (lone
// surrogates replaced by U+FFFD); false where it cannot be read.
bool utf8_length(napi_env env, napi_value v, size_t& n) { return napi_get_value_string_utf8(env, v, nullptr, 0, &n) == napi_ok; }

// Writes those `n` bytes (N-API ends them with a NUL, written but not
// counted); false where the string cannot be read.
bool put_string(napi_env env, napi_value v, Out& out, size_t n) {
  char* d = out.room(n + 1);
  size_t got = 0;
  if (napi_get_value_string_utf8(env, v, d, n + 1, &got) != napi_ok || got != n) return false;
  out.advance(d + n);
  return true;
}

}  // namespace

Napi::Value JsonQuoteUtf8(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() < 3 || !info[0].IsString() || !info[1].IsString() || !info[2].IsString()) {
    Napi::TypeError::New(env, "jsonQuoteUtf8(before, value, after)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  // this thread's copies of the value's UTF-16 units and of the bytes
  // (each kept up to 64 Ki elements between calls)
  thread_local Scratch<char16_t, 64 * 1024> units;
  thread_local Bytes bytes;
  // (whatever happens below, a buffer grown past what is kept is let go)
  struct Trim {
    ~Trim() {
      units.trim();
      bytes.trim();
    }
  } trim;
  Napi::Value result;
  bool ok = false;
  try {
    size_t n = 0, before = 0, after = 0;
    const char16_t* buf = read_utf16(env, info[1], units, n);
    if (buf != nullptr && utf8_length(env, info[0], before) && utf8_length(env, info[2], after)) {
      // (room for text that is mostly plain ASCII; grown as needed)
      Out out(bytes, before + n + n / 8 + after + 16);
      if (put_string(env, info[0], out, before)) {
        quote(out, buf, n);
        ok = put_string(env, info[2], out, after);
      }
      if (ok) result = Napi::Buffer<char>::Copy(env, out.begin(), out.size());
    }
  } catch (const std::bad_alloc&) {
    ok = false;
  }
  if (!ok) {
    Napi::Error::New(env, "jsonQuoteUtf8: the strings could not be read or written (out of memory?)").ThrowAsJavaScriptException();
    return env.Undefined();
  }
  return result;
}

}  // namespace nvc_addon
