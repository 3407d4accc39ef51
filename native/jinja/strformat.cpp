// Python string formatting (printf-style `%`, str.format, format specs).
#include "strformat.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "bigint.h"
#include "errors.h"
#include "operators.h"
#include "pyformat.h"
#include "unicode.h"

namespace jinja {

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&#34;"; break;
      case '\'': out += "&#39;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

namespace {

[[noreturn]] void value_error(const std::string& m) { throw_runtime_error("ValueError", m); }

bool int_like(const Value& v) { return v.kind() == Kind::Int || v.kind() == Kind::BigInt || v.kind() == Kind::Bool; }
Value as_plain_int(const Value& v) { return v.kind() == Kind::Bool ? Value::integer(v.as_bool()) : v; }

// ascii(): repr with every non-ASCII code point escaped.
std::string py_ascii(const Value& v) {
  std::string r = py_repr(v), out;
  for (size_t i = 0; i < r.size();) {
    if (static_cast<unsigned char>(r[i]) < 0x80) { out.push_back(r[i++]); continue; }
    char32_t cp = unicode::decode_next(r, i);
    char buf[16];
    if (cp < 0x100) std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(cp));
    else if (cp < 0x10000) std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(cp));
    else std::snprintf(buf, sizeof buf, "\\U%08x", unsigned(cp));
    out += buf;
  }
  return out;
}

// Digits of |d| in fixed/exponent/general form via C printf, whose output
// matches Python's for these conversions (both round correctly).
std::string c_format(double d, char type, int precision, bool alt) {
  char fmt[16], buf[512];
  std::snprintf(fmt, sizeof fmt, "%%%s.*%c", alt ? "#" : "", type);
  int n = std::snprintf(buf, sizeof buf, fmt, precision, d);
  if (n < int(sizeof buf)) return std::string(buf, size_t(n));
  std::string big(size_t(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), fmt, precision, d);
  big.resize(size_t(n));
  return big;
}

// Python's 'g'-with-".0" rule used by format(float, '.Np') (no type letter).
std::string float_general_repr(double d, int precision) {
  if (precision == 0) precision = 1;
  std::string e = c_format(std::fabs(d), 'e', precision - 1, false);
  size_t ep = e.find('e');
  std::string digits;
  for (size_t i = 0; i < ep; ++i)
    if (e[i] != '.') digits.push_back(e[i]);
  int exp10 = std::atoi(e.c_str() + ep + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exp10 < -4 || exp10 >= precision - 1) {
    out.push_back(digits[0]);
    if (digits.size() > 1) { out.push_back('.'); out.append(digits, 1, std::string::npos); }
    char buf[16];
    std::snprintf(buf, sizeof buf, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += buf;
  } else if (exp10 < 0) {
    out = "0." + std::string(size_t(-exp10 - 1), '0') + digits;
  } else {
    size_t ip = size_t(exp10) + 1;
    if (digits.size() <= ip) out = digits + std::string(ip - digits.size(), '0') + ".0";
    else out = digits.substr(0, ip) + "." + digits.substr(ip);
  }
  return out;
}

struct Spec {
  char32_t fill = ' ';
  char align = 0;
  char sign = 0;
  bool alt = false;
  bool zero = false;
  int64_t width = -1;
  char grouping = 0;
  int64_t precision = -1;
  char type = 0;
};

Spec parse_spec(std::string_view s) {
  Spec sp;
  size_t i = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  // [[fill]align]: the fill may be any code point.
  if (!s.empty()) {
    size_t j = 0;
    char32_t first = unicode::decode_next(s, j);
    if (j < s.size() && is_align(s[j])) {
      sp.fill = first;
      sp.align = s[j];
      i = j + 1;
    } else if (is_align(s[0])) {
      sp.align = s[0];
      i = 1;
    }
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) sp.sign = s[i++];
  if (i < s.size() && s[i] == 'z') ++i;
  if (i < s.size() && s[i] == '#') { sp.alt = true; ++i; }
  if (i < s.size() && s[i] == '0') { sp.zero = true; ++i; }
  if (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    sp.width = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (sp.width > (INT64_MAX - 9) / 10) value_error("Too many decimal digits in format string");
      sp.width = sp.width * 10 + (s[i++] - '0');
    }
  }
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) sp.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') value_error("Format specifier missing precision");
    sp.precision = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (sp.precision > (INT64_MAX - 9) / 10) value_error("Too many decimal digits in format string");
      sp.precision = sp.precision * 10 + (s[i++] - '0');
    }
  }
  if (i < s.size()) sp.type = s[i++];
  if (i < s.size()) value_error("Invalid format specifier");
  if (sp.zero && !sp.align) { sp.fill = '0'; sp.align = '='; }
  return sp;
}

std::string group_digits(const std::string& digits, char sep, size_t every) {
  std::string out;
  size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    if (i && (n - i) % every == 0) out.push_back(sep);
    out.push_back(digits[i]);
  }
  return out;
}

// Pads sign+body to the width with the alignment rules of the mini-language.
std::string pad(const std::string& sign, const std::string& body, const Spec& sp, char default_align) {
  size_t len = unicode::count_code_points(sign) + unicode::count_code_points(body);
  char align = sp.align ? sp.align : default_align;
  if (sp.width < 0 || len >= size_t(sp.width)) return sign + body;
  size_t fill_n = size_t(sp.width) - len;
  mem_reserve(fill_n + sign.size() + body.size());  // Python builds the padded text, whatever its size
  std::string fill;
  for (size_t k = 0; k < fill_n; ++k) unicode::append_utf8(fill, sp.fill);
  auto fill_part = [&](size_t n) {
    std::string f;
    for (size_t k = 0; k < n; ++k) unicode::append_utf8(f, sp.fill);
    return f;
  };
  switch (align) {
    case '<': return sign + body + fill;
    case '^': return fill_part(fill_n / 2) + sign + body + fill_part(fill_n - fill_n / 2);
    case '=': return sign + fill + body;
    default: return fill + sign + body;
  }
}

std::string format_int(const Value& v, const Spec& sp) {
  if (sp.precision >= 0) value_error("Precision not allowed in integer format specifier");
  char t = sp.type ? sp.type : 'd';
  if (t == 'c') {
    int64_t c = v.kind() == Kind::Int ? v.as_int() : -1;
    if (c < 0 || c > 0x10FFFF) throw_runtime_error("OverflowError", "%c arg not in range(0x110000)");
    std::string s;
    unicode::append_utf8(s, char32_t(c));
    return pad("", s, sp, '<');
  }
  BigNum n = BigNum::from_value(v);
  bool neg = n.negative;
  n.negative = false;
  std::string digits, prefix;
  if (t == 'd' || t == 'n') {
    digits = int_decimal(n.to_value());
    if (!digits.empty() && digits[0] == '-') digits.erase(0, 1);
    if (sp.grouping) digits = group_digits(digits, sp.grouping, 3);
  } else if (t == 'x' || t == 'X' || t == 'o' || t == 'b') {
    unsigned base = t == 'o' ? 8 : t == 'b' ? 2 : 16;
    digits = n.to_digits(base);
    if (t == 'X') for (char& c : digits) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (sp.grouping) digits = group_digits(digits, sp.grouping, 4);
    if (sp.alt) prefix = t == 'o' ? "0o" : t == 'b' ? "0b" : t == 'X' ? "0X" : "0x";
  } else {
    value_error(std::string("Unknown format code '") + t + "' for object of type 'int'");
  }
  std::string sign = neg ? "-" : (sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "");
  return pad(sign + prefix, digits, sp, '>');
}

std::string format_float(double d, const Spec& sp) {
  char t = sp.type;
  bool neg = std::signbit(d) && !std::isnan(d);
  double a = std::fabs(d);
  std::string body;
  if (t == 0 && sp.precision < 0) {
    body = float_repr(a);
  } else if (t == 0) {
    body = std::isfinite(a) ? float_general_repr(a, sp.precision) : float_repr(a);
  } else if (t == '%') {
    body = c_format(a * 100, 'f', sp.precision < 0 ? 6 : sp.precision, sp.alt) + "%";
  } else if (t == 'f' || t == 'F' || t == 'e' || t == 'E' || t == 'g' || t == 'G' || t == 'n') {
    char ct = t == 'n' ? 'g' : t;
    body = c_format(a, ct, sp.precision < 0 ? 6 : sp.precision, sp.alt);
  } else {
    value_error(std::string("Unknown format code '") + t + "' for object of type 'float'");
  }
  if (sp.grouping && std::isfinite(a)) {
    size_t end = 0;
    while (end < body.size() && body[end] >= '0' && body[end] <= '9') ++end;
    body = group_digits(body.substr(0, end), sp.grouping, 3) + body.substr(end);
  }
  std::string sign = neg ? "-" : (sp.sign == '+' ? "+" : sp.sign == ' ' ? " " : "");
  return pad(sign, body, sp, '>');
}

}  // namespace

std::string format_value(const Value& v, std::string_view spec) {
  if (spec.empty()) return py_str(v);
  Spec sp = parse_spec(spec);
  switch (v.kind()) {
    case Kind::Str: {
      if (sp.type && sp.type != 's') value_error(std::string("Unknown format code '") + sp.type + "' for object of type 'str'");
      if (sp.align == '=') value_error("'=' alignment not allowed in string format specifier");
      if (sp.sign) value_error("Sign not allowed in string format specifier");
      std::string s = v.as_str();
      if (sp.precision >= 0) s = s.substr(0, unicode::byte_offset(s, size_t(sp.precision)));
      return pad("", s, sp, '<');
    }
    case Kind::Bool: case Kind::Int: case Kind::BigInt: {
      char t = sp.type;
      if (t == 'e' || t == 'E' || t == 'f' || t == 'F' || t == 'g' || t == 'G' || t == '%')
        return format_float(int_to_double(v), sp);
      return format_int(as_plain_int(v), sp);
    }
    case Kind::Float:
      return format_float(v.as_float(), sp);
    default:
      throw_type_error("unsupported format string passed to " + type_name(v) + ".__format__");
  }
}

Value percent_format(const Value& fmt_v, const Value& args) {
  const std::string& fmt = fmt_v.as_str();
  bool markup = fmt_v.str_data().markup;
  std::vector<Value> positional;
  const DictData* mapping = nullptr;
  if (args.kind() == Kind::Tuple) {
    positional = args.items();
  } else {
    positional.push_back(args);
    if (args.kind() == Kind::Dict) mapping = &args.as_dict();
  }
  size_t next = 0;
  auto next_arg = [&]() -> const Value& {
    if (next >= positional.size()) throw_type_error("not enough arguments for format string");
    return positional[next++];
  };
  std::string out;
  out.reserve(fmt.size() + 16);
  for (size_t i = 0; i < fmt.size();) {
    char c = fmt[i];
    if (c != '%') { out.push_back(c); ++i; continue; }
    size_t start = i++;
    if (i >= fmt.size()) value_error("incomplete format");
    const Value* arg = nullptr;
    Value keyed;
    if (fmt[i] == '(') {
      if (!mapping) throw_type_error("format requires a mapping");
      int depth = 1;
      size_t k = ++i;
      while (i < fmt.size() && depth) {
        if (fmt[i] == '(') ++depth;
        else if (fmt[i] == ')') --depth;
        ++i;
      }
      if (depth) value_error("incomplete format key");
      std::string key = fmt.substr(k, i - 1 - k);
      const Value* found = mapping->find_str(key);
      if (!found) throw_runtime_error("KeyError", "'" + key + "'");
      keyed = *found;
      arg = &keyed;
    }
    std::string flags;
    while (i < fmt.size() && std::strchr("-+ #0", fmt[i])) flags.push_back(fmt[i++]);
    // Widths and precisions are Py_ssize_t in CPython; the text they ask for
    // is charged to the memory budget when it is built, never clamped.
    int64_t width = -1, prec = -1;
    auto read_num = [&](int64_t& out_n, const char* what) {
      if (i < fmt.size() && fmt[i] == '*') {
        ++i;
        const Value& w = next_arg();
        if (w.kind() == Kind::BigInt) throw_runtime_error("OverflowError", "Python int too large to convert to C ssize_t");
        if (w.kind() != Kind::Int) throw_type_error("* wants int");
        out_n = w.as_int();
        if (out_n == INT64_MIN) throw_runtime_error("OverflowError", "Python int too large to convert to C ssize_t");
        return;
      }
      if (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
        out_n = 0;
        while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
          if (out_n > (INT64_MAX - (fmt[i] - '0')) / 10) value_error(std::string(what) + " too big");
          out_n = out_n * 10 + (fmt[i++] - '0');
        }
      }
    };
    read_num(width, "width");
    if (width < -1) { flags.push_back('-'); width = -width; }
    if (i < fmt.size() && fmt[i] == '.') { ++i; prec = 0; read_num(prec, "precision"); if (prec < 0) prec = 0; }
    while (i < fmt.size() && (fmt[i] == 'h' || fmt[i] == 'l' || fmt[i] == 'L')) ++i;
    if (i >= fmt.size()) value_error("incomplete format");
    char t = fmt[i++];
    if (t == '%') { out.push_back('%'); continue; }
    if (!arg) arg = &next_arg();
    const Value& a = *arg;
    // int()/float() of an Undefined raise its UndefinedError.
    if (a.is_undefined() && t != 's' && t != 'r' && t != 'a' && t != '%') fail_undefined(a);
    bool left = flags.find('-') != std::string::npos;
    bool zero = flags.find('0') != std::string::npos && !left;
    std::string sign_flag = flags.find('+') != std::string::npos ? "+" : flags.find(' ') != std::string::npos ? " " : "";
    bool alt = flags.find('#') != std::string::npos;
    std::string sign, body;
    bool numeric = true;
    switch (t) {
      case 's': case 'r': case 'a': {
        numeric = false;
        body = t == 's' ? py_str(a) : t == 'r' ? py_repr(a) : py_ascii(a);
        if (markup && t == 's' && !(a.is_str() && a.str_data().markup)) body = html_escape(body);
        if (prec >= 0) body = body.substr(0, unicode::byte_offset(body, size_t(prec)));
        break;
      }
      case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': {
        Value n;
        if (int_like(a)) n = as_plain_int(a);
        else if (a.kind() == Kind::Float && (t == 'd' || t == 'i' || t == 'u')) {
          if (!std::isfinite(a.as_float()))
            throw_runtime_error(std::isnan(a.as_float()) ? "ValueError" : "OverflowError",
                                std::isnan(a.as_float()) ? "cannot convert float NaN to integer" : "cannot convert float infinity to integer");
          n = BigNum::from_double(a.as_float()).to_value();
        } else if (t == 'd' || t == 'i' || t == 'u') {
          throw_type_error(std::string("%") + t + " format: a real number is required, not " + type_name(a));
        } else {
          throw_type_error(std::string("%") + t + " format: an integer is required, not " + type_name(a));
        }
        Spec sp;
        sp.type = (t == 'i' || t == 'u') ? 'd' : t;
        sp.alt = alt;
        std::string s = format_int(n, sp);
        if (!s.empty() && s[0] == '-') { sign = "-"; s.erase(0, 1); } else sign = sign_flag;
        if (alt && (t == 'x' || t == 'X' || t == 'o')) { sign += s.substr(0, 2); s.erase(0, 2); }
        if (prec >= 0 && s.size() < size_t(prec)) {
          mem_reserve(size_t(prec));
          s.insert(0, size_t(prec) - s.size(), '0');
        }
        body = s;
        break;
      }
      case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': {
        double d;
        if (a.kind() == Kind::Float) d = a.as_float();
        else if (int_like(a)) d = int_to_double(a);
        else throw_type_error("must be real number, not " + type_name(a));
        body = c_format(std::fabs(d), t, prec < 0 ? 6 : prec, alt);
        sign = std::signbit(d) && !std::isnan(d) ? "-" : sign_flag;
        if (!std::isfinite(d)) zero = false;
        break;
      }
      case 'c': {
        numeric = false;
        if (a.is_str() && a.str_data().length == 1) body = a.as_str();
        else if (a.kind() == Kind::Int && a.as_int() >= 0 && a.as_int() <= 0x10FFFF) unicode::append_utf8(body, char32_t(a.as_int()));
        else if (a.kind() == Kind::Int) throw_runtime_error("OverflowError", "%c arg not in range(0x110000)");
        else throw_type_error("%c requires int or char");
        break;
      }
      default: {
        char buf[96];
        std::snprintf(buf, sizeof buf, "unsupported format character '%c' (0x%x) at index %zu", t, unsigned(static_cast<unsigned char>(t)), i - 1);
        value_error(buf);
      }
    }
    (void)start;
    size_t len = unicode::count_code_points(sign) + unicode::count_code_points(body);
    if (width > 0 && len < size_t(width)) {
      size_t n = size_t(width) - len;
      mem_reserve(out.size() + size_t(width) + sign.size() + body.size());
      if (left) out += sign + body + std::string(n, ' ');
      else if (zero && numeric) out += sign + std::string(n, '0') + body;
      else out += std::string(n, ' ') + sign + body;
    } else {
      out += sign + body;
    }
  }
  // Python treats any non-tuple, non-str subscriptable argument (dict, list)
  // as a mapping, and never complains about it being left unused.
  bool mapping_like = args.kind() == Kind::Dict || args.kind() == Kind::List;
  if (next < positional.size() && !mapping_like) throw_type_error("not all arguments converted during string formatting");
  if (markup) {
    auto d = std::make_shared<StrData>(std::move(out));
    d->markup = true;
    return Value::string(std::shared_ptr<const StrData>(std::move(d)));
  }
  return Value::string(std::move(out));
}

std::string str_format(RenderState& st, std::string_view fmt, const CallArgs& args) {
  std::string out;
  int auto_index = 0;
  bool used_auto = false, used_manual = false;
  auto lookup = [&](std::string_view field) -> Value {
    // field: arg_name ( '.' attr | '[' key ']' )*
    size_t i = 0;
    while (i < field.size() && field[i] != '.' && field[i] != '[') ++i;
    std::string_view name = field.substr(0, i);
    Value v;
    if (name.empty()) {
      if (used_manual) value_error("cannot switch from manual field specification to automatic field numbering");
      used_auto = true;
      size_t idx = size_t(auto_index++);
      if (idx >= args.args.size())
        throw_runtime_error("IndexError", "tuple index out of range");
      v = args.args[idx];
    } else if (name.find_first_not_of("0123456789") == std::string_view::npos) {
      if (used_auto) value_error("cannot switch from automatic field numbering to manual field specification");
      used_manual = true;
      size_t idx = std::stoul(std::string(name.substr(0, 9)));
      if (idx >= args.args.size())
        throw_runtime_error("IndexError", "tuple index out of range");
      v = args.args[idx];
    } else {
      const Value* kw = args.kwarg(name);
      if (!kw) throw_runtime_error("KeyError", "'" + std::string(name) + "'");
      v = *kw;
    }
    while (i < field.size()) {
      if (field[i] == '.') {
        size_t j = ++i;
        while (i < field.size() && field[i] != '.' && field[i] != '[') ++i;
        if (i == j) value_error("Empty attribute in format string");
        v = get_attr(st, v, field.substr(j, i - j));
      } else {
        size_t j = ++i;
        while (i < field.size() && field[i] != ']') ++i;
        if (i >= field.size()) value_error("Missing ']' in format string");
        std::string_view key = field.substr(j, i - j);
        ++i;
        Value k = key.find_first_not_of("0123456789") == std::string_view::npos && !key.empty()
                      ? Value::integer(std::stoll(std::string(key.substr(0, 18))))
                      : Value::string(std::string(key));
        v = get_item(st, v, k);
      }
    }
    return v;
  };
  for (size_t i = 0; i < fmt.size();) {
    char c = fmt[i];
    if (c == '}') {
      if (i + 1 < fmt.size() && fmt[i + 1] == '}') { out.push_back('}'); i += 2; continue; }
      value_error("Single '}' encountered in format string");
    }
    if (c != '{') { out.push_back(c); ++i; continue; }
    if (i + 1 < fmt.size() && fmt[i + 1] == '{') { out.push_back('{'); i += 2; continue; }
    // Find the matching '}' allowing one level of nested fields in the spec.
    size_t j = i + 1;
    int depth = 1;
    while (j < fmt.size()) {
      if (fmt[j] == '{') ++depth;
      else if (fmt[j] == '}' && --depth == 0) break;
      ++j;
    }
    if (j >= fmt.size()) value_error(depth > 1 ? "expected '}' before end of string" : "Single '{' encountered in format string");
    std::string_view inner = fmt.substr(i + 1, j - i - 1);
    i = j + 1;
    size_t colon = std::string_view::npos, bang = std::string_view::npos;
    int bracket = 0;
    for (size_t k = 0; k < inner.size(); ++k) {
      if (inner[k] == '[') ++bracket;
      else if (inner[k] == ']') --bracket;
      else if (!bracket && inner[k] == '!' && bang == std::string_view::npos && colon == std::string_view::npos) bang = k;
      else if (!bracket && inner[k] == ':') { colon = k; break; }
    }
    std::string_view field = inner.substr(0, std::min(bang, colon));
    char conv = 0;
    if (bang != std::string_view::npos) {
      size_t end = colon == std::string_view::npos ? inner.size() : colon;
      if (end - bang != 2) value_error("expected ':' after conversion specifier");
      conv = inner[bang + 1];
      if (conv != 'r' && conv != 's' && conv != 'a') value_error(std::string("Unknown conversion specifier ") + conv);
    }
    std::string spec;
    if (colon != std::string_view::npos) {
      std::string_view raw = inner.substr(colon + 1);
      if (raw.find('{') != std::string_view::npos) {
        CallArgs copy = args;
        spec = str_format(st, raw, copy);
      } else {
        spec = std::string(raw);
      }
    }
    Value v = lookup(field);
    if (conv == 'r') v = Value::string(py_repr(v));
    else if (conv == 's') v = Value::string(py_str(v));
    else if (conv == 'a') v = Value::string(py_ascii(v));
    out += format_value(v, spec);
  }
  return out;
}

}  // namespace jinja
