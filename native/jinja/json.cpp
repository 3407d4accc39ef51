// json.dumps / json.loads with the exact behaviour of Python's json module
// (C accelerated scanner, strict=True), including its error messages.
#include "json.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "arena.h"
#include "compiler.h"
#include "bigint.h"
#include "errors.h"
#include "operators.h"
#include "pyformat.h"
#include "unicode.h"

#if defined(JINJA_HAVE_SSE2)
#include <emmintrin.h>
#endif

namespace jinja {

namespace {

constexpr size_t kMaxJsonDepth = 1000;  // Python's default recursion limit
const char kHex[] = "0123456789abcdef";

}  // namespace

// ---------------------------------------------------------------- dumps

bool json_append_string(std::string& out, std::string_view s, bool ensure_ascii) {
  bool non_ascii = false;
  out.reserve(out.size() + s.size() + 2);  // the usual case: no escapes
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b < 0x80 && b != '"' && b != '\\' && !(b == 0x7f && ensure_ascii)) {
      // Copy the run of plain ASCII in one go, finding its end eight
      // bytes per step first (same borrow trick as Parser::scan_plain:
      // the lowest flagged byte is a real stop byte).
      size_t j = i + 1;
      constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
      while (j + 8 <= s.size()) {
        uint64_t v;
        std::memcpy(&v, s.data() + j, 8);
        uint64_t q = v ^ (kOnes * '"'), b = v ^ (kOnes * '\\'), d = v ^ (kOnes * 0x7f);
        uint64_t hit = (((q - kOnes) & ~q) | ((b - kOnes) & ~b) | ((d - kOnes) & ~d) | ((v - kOnes * 0x20) & ~v) | v) & kHigh;
        if (hit) {
          j += std::countr_zero(hit) / 8;
          break;
        }
        j += 8;
      }
      while (j < s.size()) {
        unsigned char c = static_cast<unsigned char>(s[j]);
        if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') break;
        ++j;
      }
      out.append(s.data() + i, j - i);
      i = j;
      continue;
    }
    if (b < 0x80) {
      ++i;
      switch (b) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
          out += "\\u00";
          out.push_back(kHex[b >> 4]);
          out.push_back(kHex[b & 15]);
      }
      continue;
    }
    size_t start = i;
    char32_t cp = unicode::decode_next(s, i);
    if (!ensure_ascii) {
      non_ascii = true;
      out.append(s.data() + start, i - start);
      continue;
    }
    auto u16 = [&](uint32_t u) {
      out += "\\u";
      for (int sh = 12; sh >= 0; sh -= 4) out.push_back(kHex[(u >> sh) & 15]);
    };
    if (cp >= 0x10000) {
      uint32_t v = cp - 0x10000;
      u16(0xD800 + (v >> 10));
      u16(0xDC00 + (v & 0x3FF));
    } else {
      u16(cp);
    }
  }
  out.push_back('"');
  return non_ascii;
}

namespace {

struct Dumper {
  const JsonDumpsOptions& opt;
  std::string out;
  std::string item_sep, key_sep;
  // Whether `out` is pure ASCII, so the str value made from it needs no
  // second scan (see json_dumps_value).
  bool ascii_out = true;

  explicit Dumper(const JsonDumpsOptions& o) : opt(o) {
    item_sep = o.item_separator ? *o.item_separator : (o.indent ? "," : ", ");
    key_sep = o.key_separator ? *o.key_separator : ": ";
    ascii_out = unicode::is_ascii(item_sep) && unicode::is_ascii(key_sep) && (!o.indent || unicode::is_ascii(*o.indent));
  }

  void newline(size_t level) {
    mem_reserve(out.size() + level * opt.indent->size() + 1);
    out.push_back('\n');
    for (size_t i = 0; i < level; ++i) out += *opt.indent;
  }

  void str(std::string_view s) {
    if (json_append_string(out, s, opt.ensure_ascii)) ascii_out = false;
  }

  void floating(double d) {
    if (std::isnan(d)) out += "NaN";
    else if (std::isinf(d)) out += d < 0 ? "-Infinity" : "Infinity";
    else append_float_repr(out, d);
  }

  [[noreturn]] static void not_serializable(const Value& v) {
    throw_type_error("Object of type " + type_name(v) + " is not JSON serializable");
  }

  // Dict keys become strings the way Python's encoder converts them.
  void key(const Value& k) {
    switch (k.kind()) {
      case Kind::Str: str(k.as_str()); return;
      case Kind::Int: case Kind::BigInt: out.push_back('"'); append_py_str(out, k); out.push_back('"'); return;
      case Kind::Float: out.push_back('"'); floating(k.as_float()); out.push_back('"'); return;
      case Kind::Bool: out += k.as_bool() ? "\"true\"" : "\"false\""; return;
      case Kind::None: out += "\"null\""; return;
      default:
        throw_type_error("keys must be str, int, float, bool or None, not " + type_name(k));
    }
  }

  void value(const Value& v, size_t level) {
    switch (v.kind()) {
      case Kind::None: out += "null"; return;
      case Kind::Bool: out += v.as_bool() ? "true" : "false"; return;
      case Kind::Int: case Kind::BigInt: append_py_str(out, v); return;  // digit guard included
      case Kind::Float: floating(v.as_float()); return;
      case Kind::Str: str(v.as_str()); return;
      case Kind::List: case Kind::Tuple: {
        if (level >= kMaxJsonDepth) throw Error(ErrorKind::Limit, "RecursionError", "maximum recursion depth exceeded while encoding a JSON object");
        const auto& items = v.items();
        if (items.empty()) { out += "[]"; return; }
        out.push_back('[');
        for (size_t i = 0; i < items.size(); ++i) {
          mem_reserve(out.size());
          if (i) out += item_sep;
          if (opt.indent) newline(level + 1);
          value(items[i], level + 1);
        }
        if (opt.indent) newline(level);
        out.push_back(']');
        return;
      }
      case Kind::Dict: {
        if (level >= kMaxJsonDepth) throw Error(ErrorKind::Limit, "RecursionError", "maximum recursion depth exceeded while encoding a JSON object");
        const auto& entries = v.as_dict().entries();
        if (entries.empty()) { out += "{}"; return; }
        out.push_back('{');
        bool first = true;
        auto item = [&](const std::pair<Value, Value>& e) {
          mem_reserve(out.size());
          if (!first) out += item_sep;
          first = false;
          if (opt.indent) newline(level + 1);
          key(e.first);
          out += key_sep;
          value(e.second, level + 1);
        };
        if (opt.sort_keys) {
          std::vector<const std::pair<Value, Value>*> order;
          order.reserve(entries.size());
          for (const auto& e : entries) order.push_back(&e);
          // Python sorts the (key, value) items before converting keys, so
          // mixed key types raise TypeError from the comparison.
          std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return compare(CmpOp::Lt, a->first, b->first); });
          for (auto* e : order) item(*e);
        } else {
          for (const auto& e : entries) item(e);
        }
        if (opt.indent) newline(level);
        out.push_back('}');
        return;
      }
      case Kind::Object:
        // groupby() yields named tuples, which json encodes as lists.
        if (v.as_object().type_name() == "_GroupTuple") {
          value(Value::list(v.as_object().elements()), level);
          return;
        }
        not_serializable(v);
      default:
        not_serializable(v);
    }
  }
};

// ---------------------------------------------------------------- loads

constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;

// Bytes of an 8-byte word that end a plain string run: '"', '\\' or a
// control character. A byte of x is zero -> (x - 1) borrows into its high
// bit; bytes < 0x20 likewise via v - 0x20. False positives only occur above
// a real match, so the lowest flagged byte (little-endian: first in memory)
// is always a real stop byte.
inline uint64_t stop_bytes(uint64_t v) {
  uint64_t q = v ^ (kOnes * '"'), b = v ^ (kOnes * '\\');
  return (((q - kOnes) & ~q) | ((b - kOnes) & ~b) | ((v - kOnes * 0x20) & ~v)) & kHigh;
}

// The low `n` bytes (0..7) of a word.
inline uint64_t low_bytes(uint64_t v, size_t n) { return n ? v & (~0ull >> (64 - 8 * n)) : 0; }

// Key hashing: full little-endian words, then the zero-padded rest, then the
// length. Parser::key_value() computes the same for keys of up to 16 bytes
// from the two words it loads, and calls json_key_hash() for the others.
inline uint64_t hash_word(uint64_t h, uint64_t w) { return (h ^ w) * 0x9E3779B97F4A7C15ull; }
inline uint64_t hash_finish(uint64_t h, size_t n) {
  h ^= n;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}
// Up to eight bytes as a little-endian word, zero-padded.
uint64_t padded_word(std::string_view b) {
  uint64_t w = 0;
  for (size_t j = 0; j < b.size() && j < 8; ++j) w |= uint64_t(static_cast<unsigned char>(b[j])) << (8 * j);
  return w;
}
uint64_t json_key_hash(std::string_view k) {
  uint64_t h = 0;
  size_t i = 0;
  for (; i + 8 <= k.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, k.data() + i, 8);
    h = hash_word(h, w);
  }
  if (i < k.size()) h = hash_word(h, padded_word(k.substr(i)));
  return hash_finish(h, k.size());
}

// Code points of UTF-8 (or generalised UTF-8) text: bytes that are not
// continuation bytes (10xxxxxx), counted eight at a time.
size_t count_code_points(std::string_view bytes) {
  size_t cont = 0, i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    uint64_t v;
    std::memcpy(&v, bytes.data() + i, 8);
    cont += std::popcount(v & ~(v << 1) & kHigh);
  }
  for (; i < bytes.size(); ++i) cont += (static_cast<unsigned char>(bytes[i]) & 0xC0) == 0x80;
  return bytes.size() - cont;
}

struct Parser {
  std::string_view s;
  size_t pos = 0;
  size_t depth = 0;
  Arena* arena = nullptr;  // strings, dicts and lists are allocated here (see arena.h)
  // Nesting depth (nesting_depth()) of the container object()/array() last built.
  size_t made_depth = 0;

  // A template context's `messages` list (json_loads_context): the list
  // whose `[` is at `messages_open`. Its first `resume_count` items are
  // `resume_items` (parsed before from the same bytes), and its text goes on
  // at `resume_pos`, just after them; its items' end offsets are recorded in
  // `item_ends` and the items themselves in `items_out`. Once its items are
  // parsed, the rest of the context goes to `rest_arena`, so that the kept
  // items pin an arena holding only items.
  size_t messages_open = SIZE_MAX;
  const Value* resume_items = nullptr;
  size_t resume_count = 0;
  size_t resume_pos = 0;
  std::vector<size_t>* item_ends = nullptr;
  std::vector<Value>* items_out = nullptr;
  Arena* rest_arena = nullptr;
  // Where the `messages` list ended (just past its `]`), once parsed.
  size_t messages_end = SIZE_MAX;

  // The members of the context after its `messages` list (its tail): when
  // the text from `tail_at` on is a kept tail's text, byte for byte, its
  // parsed members (`tail_in`) are taken instead of parsing them; else they
  // are recorded in `tail_out`, with where the context's `}` ended.
  struct TailMember {
    Value key, value;
    uint64_t hash;
  };
  size_t tail_at = SIZE_MAX;
  const std::vector<TailMember>* tail_in = nullptr;
  size_t tail_in_close = 0;  // offset of the end of the object in the tail
  std::vector<TailMember>* tail_out = nullptr;
  size_t tail_out_from = SIZE_MAX, tail_out_close = SIZE_MAX;

  // Values of the containers being parsed, innermost last. A container
  // pushes its children here and moves them into an exactly sized vector
  // when it closes, so no container grows (and reallocates) element by
  // element; the stacks' capacity is reused by every container. key_hashes
  // runs parallel to dict_stack.
  std::vector<Value> list_stack;
  std::vector<std::pair<Value, Value>> dict_stack;
  std::vector<uint64_t> key_hashes;
  // Strings with escapes are decoded here, then copied once at their size.
  std::string scratch;

  // Object keys repeat constantly (every message has "role", "content"...).
  // Python's scanner memoises keys so equal keys share one str object; we
  // do the same with a small direct-mapped table (64 slots: the top six
  // bits of the key's hash) over escape-free keys, which saves an
  // allocation per repeated key. A key of up to 16 bytes is identified by
  // its length and its bytes as two zero-padded words; a longer one by its
  // length, hash and bytes.
  static constexpr size_t kMemoMaxLen = 48;
  struct MemoEntry {
    uint64_t w0 = 0, w1 = 0, hash = 0;
    size_t len = SIZE_MAX;  // empty
    Value key;
  };
  MemoEntry memo[64];

  Value make_string(std::string_view bytes, bool ascii, size_t code_points) {
    return Value::string(std::allocate_shared<StrData>(ArenaAllocator<StrData>(arena), bytes, ascii, code_points));
  }

  [[noreturn]] void fail(const char* msg, size_t byte_pos) {
    // Python reports positions in code points of the decoded text.
    size_t line = 1, char_pos = 0, last_nl_char = 0;
    bool seen_nl = false;
    for (size_t i = 0; i < byte_pos && i < s.size();) {
      if (s[i] == '\n') { ++line; seen_nl = true; last_nl_char = char_pos; }
      unicode::decode_next(s, i);
      ++char_pos;
    }
    size_t col = seen_nl ? char_pos - last_nl_char : char_pos + 1;
    throw Error(ErrorKind::Json, "JSONDecodeError",
                std::string(msg) + ": line " + std::to_string(line) + " column " + std::to_string(col) + " (char " +
                    std::to_string(char_pos) + ")");
  }

  void ws() {
    if (pos < s.size() && static_cast<unsigned char>(s[pos]) > ' ') return;  // the usual cases: nothing,
    if (pos + 1 < s.size() && s[pos] == ' ' && static_cast<unsigned char>(s[pos + 1]) > ' ') {  // or one space
      ++pos;
      return;
    }
    while (pos < s.size()) {
      char c = s[pos];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos;
    }
  }

  bool match(std::string_view lit) {
    if (s.substr(pos, lit.size()) == lit) { pos += lit.size(); return true; }
    return false;
  }

  static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  // pos points just past 'u'; returns -1 when the 4 hex digits are invalid.
  int32_t hex4(size_t at) {
    if (at + 4 > s.size()) return -1;
    int32_t v = 0;
    for (size_t k = 0; k < 4; ++k) {
      int h = hexval(s[at + k]);
      if (h < 0) return -1;
      v = v * 16 + h;
    }
    return v;
  }

  // Index of the first '"', '\\' or control character at or after p (or
  // s.size()); ORs every byte passed over into `high` so the caller knows
  // whether the run was pure ASCII. Strings are most of a chat context, so
  // this tests eight bytes per step (SWAR) before looking at single bytes.
  JINJA_ALWAYS_INLINE size_t scan_plain(size_t p, uint64_t& high) const {
#if defined(JINJA_HAVE_SSE2)
    // Sixteen bytes per step where SSE2 is there (every x86-64).
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
    unsigned non_ascii = 0;
    while (p + 16 <= s.size()) {
      __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s.data() + p));
      __m128i stop = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                                  _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));  // v <= 0x1f
      unsigned m = unsigned(_mm_movemask_epi8(stop)), hi = unsigned(_mm_movemask_epi8(v));
      if (m) {
        unsigned k = unsigned(std::countr_zero(m));
        if ((non_ascii | (hi & ((1u << k) - 1))) != 0) high |= 0x80;
        return p + k;
      }
      non_ascii |= hi;
      p += 16;
    }
    if (non_ascii) high |= 0x80;
#endif
    while (p + 8 <= s.size()) {
      uint64_t v;
      std::memcpy(&v, s.data() + p, 8);
      if (uint64_t hit = stop_bytes(v)) {
        int stop = std::countr_zero(hit) / 8;
        high |= low_bytes(v, stop);
        return p + stop;
      }
      high |= v;
      p += 8;
    }
    for (; p < s.size(); ++p) {
      unsigned char c = static_cast<unsigned char>(s[p]);
      if (c == '"' || c == '\\' || c < 0x20) break;
      high |= c;
    }
    return p;
  }

  // Parses the rest of a string literal (pos is past the opening quote) and
  // works out ASCII-ness and the code point count on the way, so the
  // StrData needs no second scan of ASCII text.
  Value string_value() {
    // Fast path: no escapes -> one copy of the raw bytes.
    uint64_t high = 0;
    size_t p = scan_plain(pos, high);
    if (p < s.size() && s[p] == '"') {
      std::string_view raw = s.substr(pos, p - pos);
      pos = p + 1;
      bool ascii = (high & kHigh) == 0;
      return make_string(raw, ascii, ascii ? raw.size() : count_code_points(raw));
    }
    decode_escaped(p, high);
    bool ascii = (high & kHigh) == 0;
    return make_string(scratch, ascii, ascii ? scratch.size() : count_code_points(scratch));
  }

  // Decodes a string literal with escapes into `scratch` (pos past the
  // opening quote, `p` where scan_plain stopped), in one pass (scratch keeps
  // its capacity from string to string); pos ends past the closing quote.
  // `high` gathers the high bits of the decoded bytes (kHigh: not ASCII).
  void decode_escaped(size_t p, uint64_t& high) {
    size_t begin = pos - 1;  // the opening quote
    scratch.clear();
    scratch.append(s.data() + pos, p - pos);
    pos = p;
    while (true) {
      if (pos >= s.size()) fail("Unterminated string starting at", begin);
      char c = s[pos];
      if (c == '"') { ++pos; return; }
      if (c != '\\') fail("Invalid control character at", pos);
      size_t bs = pos;
      ++pos;
      if (pos >= s.size()) fail("Unterminated string starting at", begin);
      char e = s[pos++];
      switch (e) {
        case '"': scratch.push_back('"'); break;
        case '\\': scratch.push_back('\\'); break;
        case '/': scratch.push_back('/'); break;
        case 'b': scratch.push_back('\b'); break;
        case 'f': scratch.push_back('\f'); break;
        case 'n': scratch.push_back('\n'); break;
        case 'r': scratch.push_back('\r'); break;
        case 't': scratch.push_back('\t'); break;
        case 'u': {
          // Python requires at least one character after the four hex
          // digits (the closing quote), and pairs surrogates only when
          // the second escape is likewise followed by something.
          int32_t u = pos + 4 >= s.size() ? -1 : hex4(pos);
          if (u < 0) fail("Invalid \\uXXXX escape", pos - 1);
          pos += 4;
          if (u >= 0xD800 && u <= 0xDBFF && pos + 6 < s.size() && s[pos] == '\\' && s[pos + 1] == 'u') {
            int32_t lo = hex4(pos + 2);
            if (lo < 0) fail("Invalid \\uXXXX escape", pos + 1);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
              pos += 6;
              high |= 0x80;
              unicode::append_utf8(scratch, char32_t(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)));
              break;
            }
          }
          // Lone surrogates are kept (stored as generalised UTF-8).
          if (u >= 0x80) high |= 0x80;
          unicode::append_utf8(scratch, char32_t(u));
          break;
        }
        default:
          fail("Invalid \\escape", bs);
      }
      size_t run = pos;
      pos = scan_plain(pos, high);
      scratch.append(s.data() + run, pos - run);
    }
  }

  // Parses a key (pos past the opening quote) and its hash (json_key_hash
  // of the decoded bytes), reusing an equal earlier key. Keys of up to 16
  // bytes are compared as two zero-padded words.
  Value key_value(uint64_t& hash) {
    size_t start = pos;
    uint64_t high = 0;
    size_t p = scan_plain(pos, high);
    if (p >= s.size() || s[p] != '"') {
      // Escapes (or an error): the general path, then hash what it decoded.
      Value k = string_value();
      hash = json_key_hash(k.as_str());
      return k;
    }
    size_t len = p - start;
    pos = p + 1;
    std::string_view raw = s.substr(start, len);
    bool ascii = (high & kHigh) == 0;
    if (len <= 16 && start + 16 <= s.size()) {
      uint64_t w0, w1;
      std::memcpy(&w0, s.data() + start, 8);
      std::memcpy(&w1, s.data() + start + 8, 8);
      if (len < 8) w0 = low_bytes(w0, len);
      w1 = len <= 8 ? 0 : len < 16 ? low_bytes(w1, len - 8) : w1;
      uint64_t h = 0;
      if (len) h = hash_word(h, w0);
      if (len > 8) h = hash_word(h, w1);
      hash = h = hash_finish(h, len);
      MemoEntry& m = memo[h >> 58];
      if (m.w0 == w0 && m.w1 == w1 && m.len == len) return m.key;
      m.key = make_string(raw, ascii, ascii ? len : count_code_points(raw));
      m.w0 = w0, m.w1 = w1, m.len = len, m.hash = h;
      return m.key;
    }
    hash = json_key_hash(raw);
    if (len > kMemoMaxLen) return make_string(raw, ascii, ascii ? len : count_code_points(raw));
    MemoEntry& m = memo[hash >> 58];
    if (m.len == len && m.hash == hash && std::memcmp(m.key.as_str().data(), raw.data(), len) == 0) return m.key;
    m.key = make_string(raw, ascii, ascii ? len : count_code_points(raw));
    m.w0 = len ? padded_word(raw.substr(0, 8)) : 0;  // (the words only matter up to 16 bytes)
    m.w1 = len > 8 ? padded_word(raw.substr(8, 8)) : 0;
    m.len = len, m.hash = hash;
    return m.key;
  }

  Value number() {
    size_t start = pos;
    size_t i = pos;
    bool neg = false;
    if (i < s.size() && s[i] == '-') { ++i; neg = true; }
    uint64_t small = 0;  // the integer part, exact while it has at most 18 digits
    if (i < s.size() && s[i] == '0') {
      ++i;
    } else if (i < s.size() && s[i] >= '1' && s[i] <= '9') {
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
        small = small * 10 + unsigned(s[i] - '0');
        ++i;
      }
    } else {
      fail("Expecting value", start);
    }
    size_t int_digits = i - start - neg;
    bool is_float = false;
    if (i + 1 < s.size() && s[i] == '.' && s[i + 1] >= '0' && s[i + 1] <= '9') {
      is_float = true;
      i += 2;
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      size_t j = i + 1;
      if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
      size_t digits = j;
      while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
      if (j > digits) { is_float = true; i = j; }
    }
    pos = i;
    if (!is_float && int_digits <= 18) return Value::integer(neg ? -int64_t(small) : int64_t(small));
    std::string_view text = s.substr(start, i - start);
    if (is_float) {
      double d = 0;
      auto r = std::from_chars(text.data(), text.data() + text.size(), d);
      if (r.ec == std::errc::result_out_of_range) {
        // from_chars reports overflow/underflow; Python gives inf / 0.0.
        d = std::strtod(std::string(text).c_str(), nullptr);
      }
      return Value::floating(d);
    }
    int64_t v = 0;
    auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return Value::integer(v);
    std::string_view digits = text.substr(neg ? 1 : 0);
    if (digits.size() > 4300)
      throw Error(ErrorKind::Json, "ValueError",
                  "Exceeds the limit (4300 digits) for integer string conversion: value has " +
                      std::to_string(digits.size()) + " digits; use sys.set_int_max_str_digits() to increase the limit");
    return BigNum::from_decimal(digits, neg).to_value();
  }

  void enter() {
    if (++depth > kMaxJsonDepth)
      throw Error(ErrorKind::Json, "RecursionError", "maximum recursion depth exceeded while decoding a JSON document");
  }

  Value value() {
    if (pos >= s.size()) fail("Expecting value", pos);
    char c = s[pos];
    switch (c) {
      case '"': ++pos; return string_value();
      case '{': return object();
      case '[': return array();
      case 'n': if (match("null")) return Value::none(); break;
      case 't': if (match("true")) return Value::boolean(true); break;
      case 'f': if (match("false")) return Value::boolean(false); break;
      case 'N': if (match("NaN")) return Value::floating(std::nan("")); break;
      case 'I': if (match("Infinity")) return Value::floating(HUGE_VAL); break;
      case '-':
        if (match("-Infinity")) return Value::floating(-HUGE_VAL);
        return number();
      default:
        if (c >= '0' && c <= '9') return number();
    }
    fail("Expecting value", pos);
  }

  // Objects with more keys than this find duplicates through a hash table
  // instead of comparing the new key's hash with every earlier one.
  static constexpr size_t kLinearKeys = 16;

  // Open-addressing table over the keys of one large object: slot values
  // are 1 + the entry's offset from the object's first entry, 0 is empty.
  struct KeyTable {
    std::vector<uint32_t> slots;
    size_t mask = 0;
    void insert(uint64_t h, size_t offset) {
      size_t i = h & mask;
      while (slots[i]) i = (i + 1) & mask;
      slots[i] = uint32_t(offset + 1);
    }
    void rebuild(const uint64_t* hashes, size_t n) {
      size_t size = 64;
      while (size < 2 * n + 2) size *= 2;
      slots.assign(size, 0);
      mask = size - 1;
      for (size_t k = 0; k < n; ++k) insert(hashes[k], k);
    }
  };

  static bool same_key(const Value& a, const Value& b) {
    return a.identity() == b.identity() || a.as_str() == b.as_str();
  }

  // Where an object's key equal to `key` (hash `h`) already is in
  // dict_stack, or SIZE_MAX; for large objects `table` indexes the keys.
  size_t find_key(size_t first, const Value& key, uint64_t h, KeyTable& table) const {
    size_t n = dict_stack.size() - first;
    const uint64_t* hashes = key_hashes.data() + first;
    if (n <= kLinearKeys) {
      for (size_t k = 0; k < n; ++k)
        if (hashes[k] == h && same_key(dict_stack[first + k].first, key)) return first + k;
      return SIZE_MAX;
    }
    for (size_t i = h & table.mask; table.slots[i]; i = (i + 1) & table.mask) {
      size_t k = table.slots[i] - 1;
      if (hashes[k] == h && same_key(dict_stack[first + k].first, key)) return first + k;
    }
    return SIZE_MAX;
  }

  // A repeated key keeps its first position and takes the new value.
  void add_member(size_t first, Value key, Value v, uint64_t h, KeyTable& table) {
    size_t at = find_key(first, key, h, table);
    if (at != SIZE_MAX) {
      dict_stack[at].second = std::move(v);
      return;
    }
    dict_stack.emplace_back(std::move(key), std::move(v));
    key_hashes.push_back(h);
    size_t n = dict_stack.size() - first;
    if (n > kLinearKeys) {
      if (2 * n + 2 > table.slots.size()) table.rebuild(key_hashes.data() + first, n);
      else table.insert(h, n - 1);
    }
  }

  Value object() {
    enter();
    ++pos;
    size_t first = dict_stack.size();
    size_t child_depth = 0;
    KeyTable table;
    // (only the context's own object records its tail)
    bool recording_tail = false;
    ws();
    if (pos < s.size() && s[pos] == '}') {
      ++pos;
    } else {
      while (true) {
        if (pos >= s.size() || s[pos] != '"') fail("Expecting property name enclosed in double quotes", pos);
        ++pos;
        uint64_t h;
        Value key = key_value(h);
        ws();
        if (pos >= s.size() || s[pos] != ':') fail("Expecting ':' delimiter", pos);
        ++pos;
        ws();
        Value v;
        if (pos < s.size() && s[pos] == '"') {  // the usual value: no detour through value()
          ++pos;
          v = string_value();
        } else {
          v = value();
          if (v.kind() >= Kind::List) child_depth = std::max(child_depth, made_depth);
        }
        if (recording_tail) tail_out->push_back({key, v, h});
        add_member(first, std::move(key), std::move(v), h, table);
        if (depth == 1 && pos == messages_end) {
          if (tail_in != nullptr && pos == tail_at) {
            // the rest of the context is a kept tail: its members, then its end
            for (const TailMember& m : *tail_in) {
              if (m.value.kind() >= Kind::List) child_depth = std::max(child_depth, nesting_depth(m.value));
              add_member(first, m.key, m.value, m.hash, table);
            }
            pos = tail_at + tail_in_close;
            break;
          }
          if (tail_out != nullptr) {
            recording_tail = true;
            tail_out_from = pos;
          }
        }
        ws();
        if (pos < s.size() && s[pos] == '}') { ++pos; break; }
        if (pos >= s.size() || s[pos] != ',') fail("Expecting ',' delimiter", pos);
        ++pos;
        ws();
      }
    }
    if (recording_tail) tail_out_close = pos;
    --depth;
    // depth <= kMaxJsonDepth bounds the nesting, so no container built here
    // is nested deeper than kMaxNesting (check_nesting cannot fire).
    static_assert(kMaxJsonDepth <= kMaxNesting);
    auto d = std::allocate_shared<DictData>(ArenaAllocator<DictData>(arena));
    d->assign_distinct(dict_stack.data() + first, dict_stack.size() - first, uint32_t(child_depth + 1));
    dict_stack.resize(first);
    key_hashes.resize(first);
    d->freeze();
    made_depth = child_depth + 1;
    return Value::dict(std::move(d));
  }

  Value array() {
    enter();
    const bool messages = pos == messages_open;
    ++pos;
    size_t first = list_stack.size();
    // the kept items: the text goes on with the separator after them
    bool resumed = messages && resume_count > 0;
    if (resumed) {
      list_stack.insert(list_stack.end(), resume_items, resume_items + resume_count);
      pos = resume_pos;
    } else {
      ws();
    }
    if (!resumed && pos < s.size() && s[pos] == ']') {
      ++pos;
    } else {
      while (true) {
        if (!resumed) {
          // value() may grow the stack: push the result, not a reference.
          Value item = value();
          list_stack.push_back(std::move(item));
          if (messages && item_ends) item_ends->push_back(pos);
        }
        resumed = false;
        ws();
        if (pos < s.size() && s[pos] == ']') { ++pos; break; }
        if (pos >= s.size() || s[pos] != ',') fail("Expecting ',' delimiter", pos);
        ++pos;
        ws();
      }
    }
    --depth;
    if (messages) {
      if (items_out) items_out->assign(list_stack.begin() + first, list_stack.end());
      if (rest_arena) arena = rest_arena;
      messages_open = SIZE_MAX;  // (a later "messages" member is parsed as usual)
      messages_end = pos;
    }
    auto d = std::allocate_shared<ListData>(ArenaAllocator<ListData>(arena));
    ListData* list = d.get();
    d->items.assign(std::make_move_iterator(list_stack.begin() + first), std::make_move_iterator(list_stack.end()));
    list_stack.resize(first);
    Value v = Value::list_from(std::move(d));
    made_depth = list->depth;
    return v;
  }
};

}  // namespace

std::string json_dumps(const Value& v, const JsonDumpsOptions& options) {
  Dumper d(options);
  d.value(v, 0);
  return std::move(d.out);
}

Value json_dumps_value(const Value& v, const JsonDumpsOptions& options) {
  Dumper d(options);
  d.value(v, 0);
  if (!d.ascii_out) return Value::string(std::move(d.out));
  size_t n = d.out.size();
  return Value::string(make_str_data(std::move(d.out), true, n));
}

namespace {

// The parser's reference to an arena; the values keep it alive after.
struct ArenaRef {
  Arena* a;
  explicit ArenaRef(size_t bytes) : a(Arena::create(bytes)) {}
  ArenaRef(const ArenaRef&) = delete;
  ArenaRef& operator=(const ArenaRef&) = delete;
  ~ArenaRef() { a->release(); }
};

// chat contexts take ~3-4 bytes of nodes per JSON byte
constexpr size_t kArenaBytesPerJsonByte = 4;

// The value starting at p.pos (whitespace before it skipped); p.pos ends
// just past it.
Value parse_value_at(Parser& p) {
  p.list_stack.reserve(64);
  p.dict_stack.reserve(64);
  p.key_hashes.reserve(64);
  p.ws();
  return p.value();
}

Value parse_document(Parser& p) {
  Value v = parse_value_at(p);
  p.ws();
  if (p.pos != p.s.size()) p.fail("Extra data", p.pos);
  return v;
}

// How a context serialized by the package begins: its `messages` list is
// the first member, with no whitespace.
constexpr std::string_view kContextHead = "{\"messages\":[";

// The leading `messages` items of a context parsed on this thread: the text
// they were parsed from (up to and including the byte after the last item),
// where each item ends, and (in the parsed pool) the items themselves.
struct KeptContext {
  std::string text;
  std::vector<size_t> ends;
  std::vector<Value> items;
  uint64_t used = 0;
};

// Up to kMaxEntries entries (each with its `text` and when it was last
// `used`) and kMaxTextBytes of their text, least recently used first to go.
template <class Entry, size_t kMaxEntries, size_t kMaxTextBytes>
struct RecentPool {
  std::vector<Entry> entries;
  size_t text_bytes = 0;

  void drop(size_t i) {
    text_bytes -= entries[i].text.size();
    entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(i));
  }
  void add(Entry entry) {
    while (!entries.empty() && (entries.size() >= kMaxEntries || text_bytes + entry.text.size() > kMaxTextBytes)) {
      size_t oldest = 0;
      for (size_t i = 1; i < entries.size(); ++i)
        if (entries[i].used < entries[oldest].used) oldest = i;
      drop(oldest);
    }
    text_bytes += entry.text.size();
    entries.push_back(std::move(entry));
  }
};

constexpr size_t kMaxKeptContextBytes = 4u << 20;
using KeptPool = RecentPool<KeptContext, 8, kMaxKeptContextBytes>;

// The members of a context after its `messages` list (tools, documents,
// kwargs: the same from one request to the next of a server), parsed, with
// their text (from just after the list to the end) and where the context's
// `}` ends in it.
struct KeptTail {
  std::string text;
  std::vector<Parser::TailMember> members;
  size_t close = 0;
  uint64_t used = 0;
};

constexpr size_t kMaxKeptTailBytes = 256u << 10;  // one tail
using KeptTails = RecentPool<KeptTail, 4, 4 * kMaxKeptTailBytes>;

// One thread's recent contexts. Values are immutable once parsed (dicts are
// frozen by the parser), and these are only read on the thread that parsed
// them. `parsed` keeps the items of contexts that continued a recent one;
// `seen` only the text of the others: a context that shares nothing with a
// recent one is often never continued on this thread (a one-off request),
// and its values are best freed right after its render, while they are
// still in the cache, instead of when a later context pushes them out. The
// first context that continues it is parsed whole and keeps its items.
struct KeptContexts {
  KeptPool parsed, seen;
  KeptTails tails;
  uint64_t clock = 0;
};

KeptContexts& kept_contexts() {
  thread_local KeptContexts kept;
  return kept;
}

// Length of the common prefix of a and b: whole when memcmp says so, else
// blocks by memcmp (vectorised) and the differing block eight bytes at a
// time.
size_t common_prefix(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  if (std::memcmp(a.data(), b.data(), n) == 0) return n;
  constexpr size_t kBlock = 512;
  size_t i = 0;
  while (i + kBlock <= n && std::memcmp(a.data() + i, b.data() + i, kBlock) == 0) i += kBlock;
  for (; i + 8 <= n; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    if (x != y) return i + static_cast<size_t>(std::countr_zero(x ^ y) / 8);
  }
  while (i < n && a[i] == b[i]) ++i;
  return i;
}

}  // namespace

Value json_loads(std::string_view text) {
  ArenaRef ref(text.size() * kArenaBytesPerJsonByte);
  Parser p;
  p.arena = ref.a;
  p.s = text;
  return parse_document(p);
}

struct JsonLoader::State {
  ArenaRef ref;
  Parser p;
  explicit State(size_t first_chunk) : ref(first_chunk) { p.arena = ref.a; }
};

JsonLoader::JsonLoader(size_t first_chunk) : st_(std::make_unique<State>(first_chunk)) {}
JsonLoader::~JsonLoader() = default;

Value JsonLoader::load(std::string_view text) {
  Parser& p = st_->p;
  p.s = text;
  p.pos = 0;
  p.depth = 0;
  p.made_depth = 0;
  // (a load that failed may have left partial containers behind)
  p.list_stack.clear();
  p.dict_stack.clear();
  p.key_hashes.clear();
  return parse_document(p);
}

Value json_loads_value_at(std::string_view text, size_t at, size_t& end) {
  ArenaRef ref((text.size() - std::min(at, text.size())) * kArenaBytesPerJsonByte);
  Parser p;
  p.arena = ref.a;
  p.s = text;
  p.pos = at;
  Value v = parse_value_at(p);
  end = p.pos;
  return v;
}

namespace {

// The entry of `pool` sharing the most leading items with `text` (an item is
// shared when its bytes and the byte after it, `,` or `]`, are the same: a
// number's end is only known from the byte after it), and how many; count 0
// when none shares one.
struct Match {
  size_t index = SIZE_MAX, count = 0;
};
Match best_match(const KeptPool& pool, std::string_view text) {
  Match m;
  for (size_t i = 0; i < pool.entries.size(); ++i) {
    const KeptContext& k = pool.entries[i];
    const size_t same = common_prefix(k.text, text);
    if (same == 0) continue;
    const size_t count = static_cast<size_t>(std::upper_bound(k.ends.begin(), k.ends.end(), same - 1) - k.ends.begin());
    if (count > m.count) m = {i, count};
  }
  return m;
}

}  // namespace

Value json_loads_context(std::string_view text) {
  if (text.size() > kMaxKeptContextBytes || text.substr(0, kContextHead.size()) != kContextHead) return json_loads(text);
  KeptContexts& kept = kept_contexts();
  const Match parsed = best_match(kept.parsed, text);
  const Match seen = best_match(kept.seen, text);
  // continuing a recent context: keep this one's items for the next
  const bool continued = parsed.count > 0 || seen.count > 0;
  std::vector<size_t> ends;
  std::vector<Value> items;
  Parser p;
  p.s = text;
  p.messages_open = kContextHead.size() - 1;
  p.item_ends = &ends;
  if (continued) p.items_out = &items;
  size_t resume_pos = 0;
  if (parsed.count > 0) {
    const KeptContext& k = kept.parsed.entries[parsed.index];
    ends.assign(k.ends.begin(), k.ends.begin() + static_cast<std::ptrdiff_t>(parsed.count));
    resume_pos = ends.back();
    p.resume_items = k.items.data();
    p.resume_count = parsed.count;
    p.resume_pos = resume_pos;
  }
  // the kept tail this text ends with (the longest), or the tail to record
  KeptTail* tail = nullptr;
  for (KeptTail& t : kept.tails.entries) {
    if (t.text.size() < text.size() - kContextHead.size() && (tail == nullptr || t.text.size() > tail->text.size()) &&
        std::memcmp(text.data() + text.size() - t.text.size(), t.text.data(), t.text.size()) == 0)
      tail = &t;
  }
  std::vector<Parser::TailMember> tail_members;
  if (tail != nullptr) {
    p.tail_at = text.size() - tail->text.size();
    p.tail_in = &tail->members;
    p.tail_in_close = tail->close;
  } else {
    p.tail_out = &tail_members;
  }
  // new items in an arena of their own (kept), the rest of the context in another
  ArenaRef items_arena(std::max<size_t>(text.size() - resume_pos, 64) * kArenaBytesPerJsonByte);
  ArenaRef rest_arena(1024);
  p.arena = items_arena.a;
  p.rest_arena = rest_arena.a;
  Value v = parse_document(p);
  if (tail != nullptr) {
    tail->used = ++kept.clock;
  } else if (p.tail_out_from != SIZE_MAX && p.tail_out_close != SIZE_MAX && text.size() - p.tail_out_from <= kMaxKeptTailBytes) {
    KeptTail t;
    t.text.assign(text.substr(p.tail_out_from));
    t.members = std::move(tail_members);
    t.close = p.tail_out_close - p.tail_out_from;
    t.used = ++kept.clock;
    kept.tails.add(std::move(t));
  }
  if (ends.empty()) return v;
  KeptContext entry;
  entry.text.assign(text.substr(0, ends.back() + 1));
  entry.ends = std::move(ends);
  entry.used = ++kept.clock;
  // (an entry this one continues to its end is replaced by it; one it forks from stays)
  if (!continued) {
    kept.seen.add(std::move(entry));
    return v;
  }
  if (seen.count > 0 && seen.count == kept.seen.entries[seen.index].ends.size()) kept.seen.drop(seen.index);
  if (parsed.count > 0 && parsed.count == kept.parsed.entries[parsed.index].ends.size()) kept.parsed.drop(parsed.index);
  entry.items = std::move(items);
  kept.parsed.add(std::move(entry));
  return v;
}

}  // namespace jinja
