// json.dumps / json.loads with the exact behaviour of Python's json module
// (C accelerated scanner, strict=True), including its error messages.
#include "json.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "arena.h"
#include "bigint.h"
#include "errors.h"
#include "operators.h"
#include "pyformat.h"
#include "unicode.h"

namespace jinja {

namespace {

constexpr size_t kMaxJsonDepth = 1000;  // Python's default recursion limit
const char kHex[] = "0123456789abcdef";

// ---------------------------------------------------------------- dumps

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
    out.reserve(out.size() + s.size() + 2);  // the usual case: no escapes
    out.push_back('"');
    for (size_t i = 0; i < s.size();) {
      unsigned char b = static_cast<unsigned char>(s[i]);
      if (b >= 0x20 && b < 0x80 && b != '"' && b != '\\' && !(b == 0x7f && opt.ensure_ascii)) {
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
            j += __builtin_ctzll(hit) / 8;
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
      if (!opt.ensure_ascii) {
        ascii_out = false;
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

struct Parser {
  std::string_view s;
  size_t pos = 0;
  size_t depth = 0;
  Arena* arena = nullptr;  // strings, dicts and lists are allocated here (see arena.h)

  Value make_string(std::string bytes, bool ascii, size_t code_points) {
    return Value::string(std::allocate_shared<StrData>(ArenaAllocator<StrData>(arena), std::move(bytes), ascii, code_points));
  }

  // Values of the containers being parsed, innermost last. A container
  // pushes its children here and moves them into an exactly sized vector
  // when it closes, so no container grows (and reallocates) element by
  // element; the stacks' capacity is reused by every container.
  std::vector<Value> list_stack;
  std::vector<std::pair<Value, Value>> dict_stack;

  // Object keys repeat constantly (every message has "role", "content"...).
  // Python's scanner memoises keys so equal keys share one str object; we
  // do the same with a small direct-mapped table keyed by the raw bytes of
  // escape-free keys, which saves an allocation per repeated key.
  static constexpr size_t kMemoSlots = 64;  // key_slot() yields 6 bits
  static constexpr size_t kMemoMaxLen = 48;
  Value key_memo[kMemoSlots];

  // Slot of a key: mixes its length with its first and last eight bytes
  // (a collision only costs a re-parse, never a wrong value).
  static size_t key_slot(std::string_view k) {
    uint64_t a = 0, b = 0;
    if (k.size() >= 8) {
      std::memcpy(&a, k.data(), 8);
      std::memcpy(&b, k.data() + k.size() - 8, 8);
    } else {
      std::memcpy(&a, k.data(), k.size());
    }
    uint64_t h = (a ^ std::rotl(b, 29) ^ k.size()) * 0x9E3779B97F4A7C15ull;
    return h >> (64 - 6);
  }

  // Parses a key (pos past the opening quote), reusing an equal earlier key.
  Value key_value() {
    uint64_t high = 0;
    size_t p = scan_plain(pos, high);
    if (p >= s.size() || s[p] != '"' || p - pos > kMemoMaxLen) return string_value();
    std::string_view raw = s.substr(pos, p - pos);
    Value& slot = key_memo[key_slot(raw)];
    pos = p + 1;
    if (slot.is_str() && slot.as_str() == raw) return slot;
    bool ascii = (high & 0x8080808080808080ull) == 0;
    size_t n = ascii ? raw.size() : count_code_points(raw);
    slot = make_string(std::string(raw), ascii, n);
    return slot;
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
    if (pos < s.size() && static_cast<unsigned char>(s[pos]) > ' ') return;  // the usual case
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
  size_t scan_plain(size_t p, uint64_t& high) const {
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    while (p + 8 <= s.size()) {
      uint64_t v;
      std::memcpy(&v, s.data() + p, 8);
      // A byte of x is zero -> (x - 1) borrows into its high bit; exact as an
      // "any byte matches" test. Bytes < 0x20 likewise via v - 0x20.
      uint64_t q = v ^ (kOnes * '"'), b = v ^ (kOnes * '\\');
      uint64_t hit = (((q - kOnes) & ~q) | ((b - kOnes) & ~b) | ((v - kOnes * 0x20) & ~v)) & kHigh;
      if (hit) {
        // False positives only occur above a real match, so the lowest
        // flagged byte (little-endian: first in memory) is the answer.
        int stop = __builtin_ctzll(hit) / 8;
        high |= stop ? v & (~0ull >> (64 - 8 * stop)) : 0;
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

  static size_t count_code_points(std::string_view bytes) {
    size_t continuation = 0;
    for (unsigned char c : bytes) continuation += (c & 0xC0) == 0x80;
    return bytes.size() - continuation;
  }

  // Parses the rest of a string literal (pos is past the opening quote) and
  // works out ASCII-ness and the code point count on the way, so the
  // StrData needs no second scan of ASCII text.
  Value string_value() {
    // Fast path: no escapes -> one copy of the raw bytes.
    uint64_t high = 0;
    size_t p = scan_plain(pos, high);
    if (p < s.size() && s[p] == '"') {
      std::string out(s.data() + pos, p - pos);
      pos = p + 1;
      bool ascii = (high & 0x8080808080808080ull) == 0;
      size_t n = ascii ? out.size() : count_code_points(out);
      return make_string(std::move(out), ascii, n);
    }
    std::string body = string_body();
    // Escapes were decoded into `body`; count its code points in one pass.
    unsigned hi = 0;
    size_t cont = 0;
    for (unsigned char c : body) {
      hi |= c;
      cont += (c & 0xC0) == 0x80;
    }
    size_t n = body.size();
    return make_string(std::move(body), hi < 0x80, hi < 0x80 ? n : n - cont);
  }

  std::string string_body() {
    size_t begin = pos - 1;  // the opening quote
    std::string out;
    while (true) {
      size_t run = pos;
      uint64_t high_unused = 0;
      pos = scan_plain(pos, high_unused);
      out.append(s.data() + run, pos - run);
      if (pos >= s.size()) fail("Unterminated string starting at", begin);
      char c = s[pos];
      if (c == '"') { ++pos; return out; }
      if (c != '\\') fail("Invalid control character at", pos);
      size_t bs = pos;
      ++pos;
      if (pos >= s.size()) fail("Unterminated string starting at", begin);
      char e = s[pos++];
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
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
              unicode::append_utf8(out, char32_t(0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)));
              break;
            }
          }
          // Lone surrogates are kept (stored as generalised UTF-8).
          unicode::append_utf8(out, char32_t(u));
          break;
        }
        default:
          fail("Invalid \\escape", bs);
      }
    }
  }

  Value number() {
    size_t start = pos;
    size_t i = pos;
    if (i < s.size() && s[i] == '-') ++i;
    if (i < s.size() && s[i] == '0') {
      ++i;
    } else if (i < s.size() && s[i] >= '1' && s[i] <= '9') {
      while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    } else {
      fail("Expecting value", start);
    }
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
    bool neg = text[0] == '-';
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
      case '{': {
        enter();
        ++pos;
        size_t first = dict_stack.size();
        ws();
        if (pos < s.size() && s[pos] == '}') {
          ++pos;
        } else {
          while (true) {
            if (pos >= s.size() || s[pos] != '"') fail("Expecting property name enclosed in double quotes", pos);
            ++pos;
            Value key = key_value();
            ws();
            if (pos >= s.size() || s[pos] != ':') fail("Expecting ':' delimiter", pos);
            ++pos;
            ws();
            Value v = value();
            dict_stack.emplace_back(std::move(key), std::move(v));
            ws();
            if (pos < s.size() && s[pos] == '}') { ++pos; break; }
            if (pos >= s.size() || s[pos] != ',') fail("Expecting ',' delimiter", pos);
            ++pos;
            ws();
          }
        }
        --depth;
        auto d = std::allocate_shared<DictData>(ArenaAllocator<DictData>(arena));
        d->reserve(dict_stack.size() - first);
        for (size_t k = first; k < dict_stack.size(); ++k)
          d->set(std::move(dict_stack[k].first), std::move(dict_stack[k].second));
        dict_stack.resize(first);
        d->freeze();
        return Value::dict(std::move(d));
      }
      case '[': {
        enter();
        ++pos;
        size_t first = list_stack.size();
        ws();
        if (pos < s.size() && s[pos] == ']') {
          ++pos;
        } else {
          while (true) {
            // value() may grow the stack: push the result, not a reference.
            Value item = value();
            list_stack.push_back(std::move(item));
            ws();
            if (pos < s.size() && s[pos] == ']') { ++pos; break; }
            if (pos >= s.size() || s[pos] != ',') fail("Expecting ',' delimiter", pos);
            ++pos;
            ws();
          }
        }
        --depth;
        auto d = std::allocate_shared<ListData>(ArenaAllocator<ListData>(arena));
        d->items.assign(std::make_move_iterator(list_stack.begin() + first), std::make_move_iterator(list_stack.end()));
        list_stack.resize(first);
        return Value::list_from(std::move(d));
      }
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

Value json_loads(std::string_view text) {
  // The parser's reference to the arena; the values keep it alive after.
  struct ArenaRef {
    Arena* a;
    ~ArenaRef() { a->release(); }
  } ref{Arena::create(text.size() * 4)};  // chat contexts take ~3-4 bytes of nodes per JSON byte
  Parser p;
  p.arena = ref.a;
  p.s = text;
  p.list_stack.reserve(64);
  p.dict_stack.reserve(64);
  p.ws();
  Value v = p.value();
  p.ws();
  if (p.pos != text.size()) p.fail("Extra data", p.pos);
  return v;
}

}  // namespace jinja
