// Python's str()/repr() of template values, written straight into an output
// buffer so printing a large context value allocates once.
#include "pyformat.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "bigint.h"
#include "errors.h"
#include "unicode.h"

namespace jinja {

namespace {
constexpr size_t kMaxReprDepth = 1000;  // matches the JSON nesting bound
const char kHex[] = "0123456789abcdef";
}  // namespace

// Python 3.11's default sys.int_info.str_digits_check_threshold guard.
[[noreturn]] void throw_int_digits_limit() {
  throw_runtime_error("ValueError",
                      "Exceeds the limit (4300 digits) for integer string conversion; use "
                      "sys.set_int_max_str_digits() to increase the limit");
}

namespace {
// Identities of the containers whose repr is in progress on this thread.
thread_local std::vector<const void*> tl_repr_stack;
}  // namespace

ReprEnter::ReprEnter(const void* identity) {
  recursive_ = std::find(tl_repr_stack.begin(), tl_repr_stack.end(), identity) != tl_repr_stack.end();
  if (recursive_) return;
  if (tl_repr_stack.size() >= kMaxReprDepth)
    throw Error(ErrorKind::Limit, "RecursionError", "maximum recursion depth exceeded while getting the repr of an object");
  tl_repr_stack.push_back(identity);
}

ReprEnter::~ReprEnter() {
  if (!recursive_) tl_repr_stack.pop_back();
}

std::string bigint_str(const BigIntData& b) {
  BigNum n;
  n.negative = b.negative;
  n.limbs = b.mag;
  return n.to_string();
}

// Python's float repr: shortest round-trip digits ("%r" == format 'r'),
// fixed notation when -4 <= exponent < 16, otherwise d.ddde+XX.
void append_float_repr(std::string& out, double d) {
  if (std::isnan(d)) { out += "nan"; return; }
  if (std::isinf(d)) { out += d < 0 ? "-inf" : "inf"; return; }
  if (d == 0) { out += std::signbit(d) ? "-0.0" : "0.0"; return; }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string_view sci(buf, size_t(res.ptr - buf));
  bool neg = sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  size_t epos = sci.find('e');
  std::string_view mant = sci.substr(0, epos);
  int exp = 0;
  std::from_chars(sci.data() + epos + 1 + (sci[epos + 1] == '+'), sci.data() + sci.size(), exp);
  char digits[32];
  size_t nd = 0;
  for (char c : mant)
    if (c != '.') digits[nd++] = c;
  if (neg) out.push_back('-');
  if (exp >= -4 && exp < 16) {
    if (exp < 0) {
      out += "0.";
      out.append(size_t(-exp - 1), '0');
      out.append(digits, nd);
    } else {
      size_t int_digits = size_t(exp) + 1;
      if (nd <= int_digits) {
        out.append(digits, nd);
        out.append(int_digits - nd, '0');
        out += ".0";
      } else {
        out.append(digits, int_digits);
        out.push_back('.');
        out.append(digits + int_digits, nd - int_digits);
      }
    }
  } else {
    out.push_back(digits[0]);
    if (nd > 1) {
      out.push_back('.');
      out.append(digits + 1, nd - 1);
    }
    out.push_back('e');
    out.push_back(exp < 0 ? '-' : '+');
    int ae = exp < 0 ? -exp : exp;
    if (ae < 10) out.push_back('0');
    out += std::to_string(ae);
  }
}

std::string float_repr(double d) {
  std::string s;
  append_float_repr(s, d);
  return s;
}

void append_str_repr(std::string& out, std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  out.reserve(out.size() + s.size() + 2);
  out.push_back(quote);
  for (size_t i = 0; i < s.size();) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (b >= 0x20 && b < 0x7f) {
      if (b == '\\' || b == static_cast<unsigned char>(quote)) out.push_back('\\');
      out.push_back(static_cast<char>(b));
      ++i;
      continue;
    }
    size_t start = i;
    char32_t cp = unicode::decode_next(s, i);
    if (cp == '\n') { out += "\\n"; continue; }
    if (cp == '\r') { out += "\\r"; continue; }
    if (cp == '\t') { out += "\\t"; continue; }
    if (cp >= 0x80 && unicode::is_printable(cp)) {
      out.append(s.data() + start, i - start);
      continue;
    }
    if (cp < 0x100) {
      out += "\\x";
      out.push_back(kHex[cp >> 4]);
      out.push_back(kHex[cp & 15]);
    } else if (cp < 0x10000) {
      out += "\\u";
      for (int sh = 12; sh >= 0; sh -= 4) out.push_back(kHex[(cp >> sh) & 15]);
    } else {
      out += "\\U";
      for (int sh = 28; sh >= 0; sh -= 4) out.push_back(kHex[(cp >> sh) & 15]);
    }
  }
  out.push_back(quote);
}

static void append_repr(std::string& out, const Value& v, size_t depth);

static void append_common(std::string& out, const Value& v, size_t depth, bool as_repr) {
  switch (v.kind()) {
    case Kind::Undefined:
      if (as_repr) out += "Undefined";
      return;
    case Kind::None: out += "None"; return;
    case Kind::Bool: out += v.as_bool() ? "True" : "False"; return;
    case Kind::Int: {
      char buf[24];
      auto r = std::to_chars(buf, buf + sizeof buf, v.as_int());
      out.append(buf, size_t(r.ptr - buf));
      return;
    }
    case Kind::BigInt:
      out += int_decimal(v);
      return;
    case Kind::Float: append_float_repr(out, v.as_float()); return;
    case Kind::Str:
      if (!as_repr) { out += v.as_str(); return; }
      if (v.str_data().markup) {
        out += "Markup(";
        append_str_repr(out, v.as_str());
        out += ")";
        return;
      }
      append_str_repr(out, v.as_str());
      return;
    case Kind::List:
    case Kind::Tuple: {
      bool tuple = v.kind() == Kind::Tuple;
      ReprEnter enter(v.identity());
      if (enter.recursive()) { out += tuple ? "(...)" : "[...]"; return; }
      out.push_back(tuple ? '(' : '[');
      const auto& items = v.items();
      for (size_t i = 0; i < items.size(); ++i) {
        mem_reserve(out.size());
        if (i) out += ", ";
        append_repr(out, items[i], depth + 1);
      }
      if (tuple && items.size() == 1) out.push_back(',');
      out.push_back(tuple ? ')' : ']');
      return;
    }
    case Kind::Dict: {
      ReprEnter enter(v.identity());
      if (enter.recursive()) { out += "{...}"; return; }
      out.push_back('{');
      bool first = true;
      for (const auto& e : v.as_dict().entries()) {
        mem_reserve(out.size());
        if (!first) out += ", ";
        first = false;
        append_repr(out, e.first, depth + 1);
        out += ": ";
        append_repr(out, e.second, depth + 1);
      }
      out.push_back('}');
      return;
    }
    case Kind::Function: out += v.as_function().repr; return;
    case Kind::Object:
      if (tl_repr_stack.size() >= kMaxReprDepth)
        throw Error(ErrorKind::Limit, "RecursionError", "maximum recursion depth exceeded while getting the repr of an object");
      out += v.as_object().repr();
      return;
  }
}

static void append_repr(std::string& out, const Value& v, size_t depth) { append_common(out, v, depth, true); }

void append_py_str(std::string& out, const Value& v) { append_common(out, v, 0, false); }

void append_py_repr(std::string& out, const Value& v) { append_common(out, v, 0, true); }

std::string py_str(const Value& v) {
  if (v.is_str()) return v.as_str();
  std::string s;
  append_py_str(s, v);
  return s;
}

std::string py_repr(const Value& v) {
  std::string s;
  append_py_repr(s, v);
  return s;
}

}  // namespace jinja
