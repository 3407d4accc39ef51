// Jinja2 3.1 builtin filters (plus transformers' json.dumps-based tojson),
// reproducing their Python behaviour including argument names and errors.
#include "filters.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "bigint.h"
#include "callargs.h"
#include "errors.h"
#include "json.h"
#include "methods.h"
#include "operators.h"
#include "pyformat.h"
#include "strformat.h"
#include "unicode.h"

namespace jinja {

namespace {

using Args = CallArgs;

[[noreturn]] void filter_arg_error(const std::string& m) { throw_runtime_error("FilterArgumentError", m); }

std::string soft_str(const Value& v) { return py_str(v); }
Value str_v(std::string s) { return Value::string(std::move(s)); }
bool int_like(const Value& v) { return v.kind() == Kind::Int || v.kind() == Kind::BigInt || v.kind() == Kind::Bool; }

int64_t int_arg(const Value& v, const char* what) {
  if (v.kind() == Kind::Int) return v.as_int();
  if (v.kind() == Kind::Bool) return v.as_bool();
  throw_type_error(std::string("'") + type_name(v) + "' object cannot be interpreted as an integer" + (what ? "" : ""));
}

// Jinja2's make_attrgetter: "a.b.0" walks items (then attributes); digit
// parts become ints.
struct AttrGetter {
  std::vector<Value> path;
  bool identity = true;
  Value default_value;
  bool has_default = false;
  bool lower = false;  // ignore_case postprocess

  static AttrGetter make(const Value* attribute, bool lower_case, const Value* def = nullptr) {
    AttrGetter g;
    g.lower = lower_case;
    if (def && !def->is_none()) { g.default_value = *def; g.has_default = true; }
    if (!attribute || attribute->is_none()) return g;
    g.identity = false;
    if (attribute->is_str()) {
      const std::string& a = attribute->as_str();
      size_t start = 0;
      while (true) {
        size_t dot = a.find('.', start);
        std::string part = a.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (!part.empty() && part.find_first_not_of("0123456789") == std::string::npos && part.size() < 18)
          g.path.push_back(Value::integer(std::stoll(part)));
        else
          g.path.push_back(str_v(part));
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
    } else {
      g.path.push_back(*attribute);
    }
    return g;
  }

  Value operator()(RenderState& st, const Value& item) const {
    Value v = item;
    for (const Value& p : path) {
      v = get_item(st, v, p);
      if (has_default && v.is_undefined()) v = default_value;
    }
    if (lower && v.is_str()) v = str_v(unicode::py_lower(v.as_str()));
    return v;
  }
};

// make_multi_attrgetter: "a,b" -> list key; a single attribute still
// yields a one-element list (so keys compare like Python lists).
std::vector<AttrGetter> multi_getter(const Value* attribute, bool lower) {
  std::vector<AttrGetter> gs;
  if (attribute && attribute->is_str()) {
    const std::string& a = attribute->as_str();
    size_t start = 0;
    while (true) {
      size_t c = a.find(',', start);
      Value part = str_v(a.substr(start, c == std::string::npos ? std::string::npos : c - start));
      gs.push_back(AttrGetter::make(&part, lower));
      if (c == std::string::npos) break;
      start = c + 1;
    }
  } else {
    gs.push_back(AttrGetter::make(attribute, lower));
  }
  return gs;
}

// Python's sorted(): stable, only `<`, reverse keeps equal items in order.
void py_sort(std::vector<std::pair<Value, Value>>& keyed, bool reverse) {
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
    return reverse ? compare(CmpOp::Lt, b.first, a.first) : compare(CmpOp::Lt, a.first, b.first);
  });
}

bool flag(const ArgBinder& b, size_t i, bool def) { return b.has(i) ? truthy(*b.get(i)) : def; }

// ---------------------------------------------------------------- strings

Value f_upper(RenderState&, const Value& v, Args& a) { ArgBinder b("upper", a, {}); return str_v(unicode::py_upper(soft_str(v))); }
Value f_lower(RenderState&, const Value& v, Args& a) { ArgBinder b("lower", a, {}); return str_v(unicode::py_lower(soft_str(v))); }
Value f_capitalize(RenderState&, const Value& v, Args& a) { ArgBinder b("capitalize", a, {}); return str_v(unicode::py_capitalize(soft_str(v))); }

Value f_title(RenderState&, const Value& v, Args& a) {
  ArgBinder b("title", a, {});
  // Words start after runs of whitespace or one of -([{<; each piece is
  // first-char-upper + rest-lower (so "it's" -> "It's").
  std::string s = soft_str(v), out;
  auto u = unicode::decode(s);
  auto is_sep = [](char32_t c) { return unicode::is_space(c) || c == '-' || c == '(' || c == '{' || c == '[' || c == '<'; };
  size_t i = 0;
  while (i < u.size()) {
    size_t j = i;
    bool sep = is_sep(u[i]);
    while (j < u.size() && is_sep(u[j]) == sep) ++j;
    if (sep) {
      for (size_t k = i; k < j; ++k) unicode::append_utf8(out, u[k]);
    } else {
      unicode::append_mapped(out, u[i], unicode::CaseMap::Upper);
      out += unicode::py_lower(unicode::encode(u.data() + i + 1, j - i - 1));
    }
    i = j;
  }
  return str_v(std::move(out));
}

Value f_trim(RenderState&, const Value& v, Args& a) {
  if (v.is_str() && a.args.empty() && a.kwargs.empty() && v.str_data().ascii && !v.str_data().markup) {
    // The common `x | trim` on plain ASCII text: strip in place, and keep
    // the value itself when there is nothing to strip (as Python does).
    const std::string& s = v.as_str();
    size_t b = 0, e = s.size();
    while (b < e && unicode::is_space(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && unicode::is_space(static_cast<unsigned char>(s[e - 1]))) --e;
    if (b == 0 && e == s.size()) return v;
    return Value::string(make_str_data(s.substr(b, e - b), true, e - b));
  }
  ArgBinder b("trim", a, {"chars"});
  Value chars = b.value(0);
  if (!chars.is_none() && !chars.is_str()) throw_type_error("strip arg must be None or str");
  return str_v(str_strip(soft_str(v), &chars, true, true));
}

Value f_replace(RenderState&, const Value& v, Args& a) {
  ArgBinder b("replace", a, {"old", "new", "count"});
  if (!b.has(0) || !b.has(1)) throw_type_error("do_replace() missing required argument");
  std::string s = soft_str(v), old = soft_str(*b.get(0)), neu = soft_str(*b.get(1));
  Value count = b.value(2);
  CallArgs ca;
  ca.args = {str_v(old), str_v(neu)};
  if (!count.is_none()) ca.args.push_back(count);
  Value m;
  lookup_method(str_v(s), "replace", m);
  RenderState dummy;
  return m.as_function().fn(dummy, ca);
}

Value f_center(RenderState&, const Value& v, Args& a) {
  ArgBinder b("center", a, {"width"});
  Value m;
  lookup_method(str_v(soft_str(v)), "center", m);
  CallArgs ca;
  ca.args = {b.value(0, Value::integer(80))};
  RenderState dummy;
  return m.as_function().fn(dummy, ca);
}

Value f_indent(RenderState&, const Value& v, Args& a) {
  ArgBinder b("indent", a, {"width", "first", "blank"});
  Value w = b.value(0, Value::integer(4));
  std::string ind;
  if (w.is_str()) ind = w.as_str();
  else if (int_like(w)) {
    // " " * width, whatever its size, as Python builds it: charged first.
    int64_t n = std::max<int64_t>(0, int_arg(w, nullptr));
    mem_reserve(size_t(n));
    ind = std::string(size_t(n), ' ');
  }
  else throw_type_error("can't multiply sequence by non-int of type '" + type_name(w) + "'");
  bool first = flag(b, 1, false), blank = flag(b, 2, false);
  if (v.is_undefined()) fail_undefined(v);  // `s += "\n"` on an Undefined
  if (!v.is_str()) throw_type_error("unsupported operand type(s) for +=: '" + type_name(v) + "' and 'str'");
  Value m;
  lookup_method(str_v(v.as_str() + "\n"), "splitlines", m);
  CallArgs none;
  RenderState dummy;
  std::vector<Value> lines = m.as_function().fn(dummy, none).items();
  std::string rv;
  if (blank) {
    for (size_t i = 0; i < lines.size(); ++i) {
      mem_reserve(rv.size() + ind.size() + lines[i].as_str().size() + 1);
      if (i) rv += "\n" + ind;
      rv += lines[i].as_str();
    }
  } else {
    rv = lines.empty() ? "" : lines[0].as_str();
    if (lines.size() > 1) {
      rv += "\n";
      for (size_t i = 1; i < lines.size(); ++i) {
        mem_reserve(rv.size() + ind.size() + lines[i].as_str().size() + 1);
        if (i > 1) rv += "\n";
        if (!lines[i].as_str().empty()) rv += ind;
        rv += lines[i].as_str();
      }
    }
  }
  if (first) {
    mem_reserve(rv.size() + ind.size());
    rv = ind + rv;
  }
  return v.str_data().markup ? make_markup(std::move(rv)) : str_v(std::move(rv));
}

Value f_wordcount(RenderState&, const Value& v, Args& a) {
  ArgBinder b("wordcount", a, {});
  std::string s = soft_str(v);
  int64_t n = 0;
  bool in_word = false;
  for (size_t i = 0; i < s.size();) {
    char32_t c = unicode::decode_next(s, i);
    bool w = c == '_' || unicode::has(c, unicode::kAlpha | unicode::kDecimal | unicode::kDigit | unicode::kNumeric);
    if (w && !in_word) ++n;
    in_word = w;
  }
  return Value::integer(n);
}

Value f_truncate(RenderState&, const Value& v, Args& a) {
  ArgBinder b("truncate", a, {"length", "killwords", "end", "leeway"});
  std::string s = soft_str(v);
  int64_t length = int_arg(b.value(0, Value::integer(255)), nullptr);
  bool killwords = flag(b, 1, false);
  std::string end = soft_str(b.value(2, str_v("...")));
  Value lw = b.value(3);
  int64_t leeway = lw.is_none() ? 5 : int_arg(lw, nullptr);
  int64_t end_len = int64_t(unicode::count_code_points(end));
  if (length < end_len) throw_runtime_error("AssertionError", "expected length >= " + std::to_string(end_len) + ", got " + std::to_string(length));
  if (leeway < 0) throw_runtime_error("AssertionError", "expected leeway >= 0, got " + std::to_string(leeway));
  int64_t n = int64_t(unicode::count_code_points(s));
  if (n <= length + leeway) return str_v(s);
  std::string head = s.substr(0, unicode::byte_offset(s, size_t(length - end_len)));
  if (killwords) return str_v(head + end);
  size_t sp = head.rfind(' ');
  if (sp != std::string::npos) head = head.substr(0, sp);
  return str_v(head + end);
}

Value f_striptags(RenderState&, const Value& v, Args& a) {
  ArgBinder b("striptags", a, {});
  std::string s = soft_str(v);
  // Comments first, then tags, as markupsafe does.
  for (size_t start; (start = s.find("<!--")) != std::string::npos;) {
    size_t end = s.find("-->", start);
    if (end == std::string::npos) break;
    s.erase(start, end + 3 - start);
  }
  for (size_t start; (start = s.find('<')) != std::string::npos;) {
    size_t end = s.find('>', start);
    if (end == std::string::npos) break;
    s.erase(start, end + 1 - start);
  }
  std::vector<Value> words = str_split_whitespace(s, -1);
  std::string joined;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i) joined.push_back(' ');
    joined += words[i].as_str();
  }
  // html.unescape for the common entities (numeric and the XML five + nbsp).
  std::string out;
  for (size_t i = 0; i < joined.size();) {
    if (joined[i] != '&') { out.push_back(joined[i++]); continue; }
    size_t semi = joined.find(';', i);
    std::string ent = semi == std::string::npos ? "" : joined.substr(i + 1, semi - i - 1);
    const char* rep = nullptr;
    if (ent == "amp") rep = "&"; else if (ent == "lt") rep = "<"; else if (ent == "gt") rep = ">";
    else if (ent == "quot") rep = "\""; else if (ent == "apos") rep = "'"; else if (ent == "nbsp") rep = "\xc2\xa0";
    if (rep) { out += rep; i = semi + 1; continue; }
    if (ent.size() > 1 && ent[0] == '#') {
      bool hex = ent[1] == 'x' || ent[1] == 'X';
      std::string digits = ent.substr(hex ? 2 : 1);
      if (!digits.empty() && digits.size() < 8 &&
          digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") == std::string::npos) {
        unsigned long cp = std::stoul(digits, nullptr, hex ? 16 : 10);
        if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
        unicode::append_utf8(out, char32_t(cp));
        i = semi + 1;
        continue;
      }
    }
    out.push_back(joined[i++]);
  }
  return str_v(std::move(out));
}

std::string url_quote(const std::string& s, bool for_qs) {
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '~' || (!for_qs && c == '/')) out.push_back(char(c));
    else if (for_qs && c == ' ') out.push_back('+');
    else { out.push_back('%'); out.push_back(hex[c >> 4]); out.push_back(hex[c & 15]); }
  }
  return out;
}

Value f_urlencode(RenderState&, const Value& v, Args& a) {
  ArgBinder b("urlencode", a, {});
  if (v.is_str()) return str_v(url_quote(v.as_str(), false));
  std::vector<std::pair<Value, Value>> pairs;
  if (v.kind() == Kind::Dict) {
    for (const auto& e : v.as_dict().entries()) pairs.push_back(e);
  } else if (v.kind() == Kind::List || v.kind() == Kind::Tuple || v.kind() == Kind::Object) {
    for (const Value& p : iterate(v)) {
      auto kv = iterate(p);
      if (kv.size() != 2) throw_runtime_error("ValueError", "too many values to unpack (expected 2)");
      pairs.emplace_back(kv[0], kv[1]);
    }
  } else {
    return str_v(url_quote(py_str(v), false));
  }
  std::string out;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (i) out.push_back('&');
    out += url_quote(py_str(pairs[i].first), true) + "=" + url_quote(py_str(pairs[i].second), true);
  }
  return str_v(std::move(out));
}

Value f_format(RenderState&, const Value& v, Args& a) {
  if (!a.args.empty() && !a.kwargs.empty()) filter_arg_error("can't handle positional and keyword arguments at the same time");
  Value fmt = v.is_str() ? v : str_v(soft_str(v));
  if (!a.kwargs.empty()) {
    auto d = std::make_shared<DictData>();
    for (auto& kv : a.kwargs) d->set(str_v(kv.first), kv.second);
    return percent_format(fmt, Value::dict(std::move(d)));
  }
  return percent_format(fmt, Value::tuple(std::vector<Value>(a.args.begin(), a.args.end())));
}

Value f_string(RenderState&, const Value& v, Args& a) {
  ArgBinder b("string", a, {});
  if (v.is_str()) return v;
  return str_v(py_str(v));
}

Value f_safe(RenderState&, const Value& v, Args& a) {
  ArgBinder b("safe", a, {});
  if (v.is_str() && v.str_data().markup) return v;
  return make_markup(py_str(v));
}

Value f_escape(RenderState&, const Value& v, Args& a) {
  ArgBinder b("escape", a, {});
  if (v.is_str() && v.str_data().markup) return v;
  return make_markup(html_escape(py_str(v)));
}

Value f_forceescape(RenderState&, const Value& v, Args& a) {
  ArgBinder b("forceescape", a, {});
  return make_markup(html_escape(py_str(v)));
}

Value f_filesizeformat(RenderState&, const Value& v, Args& a) {
  ArgBinder b("filesizeformat", a, {"binary"});
  bool binary = flag(b, 0, false);
  double bytes;
  if (v.is_undefined()) fail_undefined(v);
  if (v.kind() == Kind::Float) bytes = v.as_float();
  else if (int_like(v)) bytes = int_to_double(v);
  else if (v.is_str()) {
    std::string t = str_strip(v.as_str(), nullptr, true, true);
    char* end = nullptr;
    bytes = std::strtod(t.c_str(), &end);
    if (t.empty() || *end) throw_runtime_error("ValueError", "could not convert string to float: " + py_repr(v));
  } else {
    throw_type_error("float() argument must be a string or a real number, not '" + type_name(v) + "'");
  }
  double base = binary ? 1024 : 1000;
  static const char* const bin[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"};
  static const char* const dec[] = {"kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
  if (bytes == 1) return str_v("1 Byte");
  if (bytes < base) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%lld Bytes", (long long)std::trunc(bytes));
    return str_v(buf);
  }
  double unit = base;
  int i = 0;
  for (; i < 8; ++i) {
    unit = std::pow(base, i + 2);
    if (bytes < unit) break;
  }
  if (i == 8) i = 7;
  {
    char buf[400];
    std::snprintf(buf, sizeof buf, "%.1f %s", base * bytes / unit, binary ? bin[i] : dec[i]);
    return str_v(buf);
  }
}

// ---------------------------------------------------------------- numbers

// Python first maps Unicode decimal digits to ASCII and Unicode spaces to
// ' ' before parsing numbers (int('٣٤') == 34).
std::string ascii_digits(const std::string& s) {
  if (unicode::is_ascii(s)) return s;
  std::string out;
  for (size_t i = 0; i < s.size();) {
    size_t start = i;
    char32_t c = unicode::decode_next(s, i);
    int d = unicode::decimal_value(c);
    if (d >= 0) out.push_back(char('0' + d));
    else if (unicode::is_space(c)) out.push_back(' ');
    else out.append(s, start, i - start);
  }
  return out;
}

// Python int(str, base): whitespace, sign, underscores between digits, 0x/0o/0b.
bool parse_py_int(std::string s, int base, Value& out) {
  s = str_strip(ascii_digits(s), nullptr, true, true);
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if ((base == 16 || base == 8 || base == 2 || base == 0) && i + 1 < s.size() && s[i] == '0') {
    char p = char(std::tolower(static_cast<unsigned char>(s[i + 1])));
    int pb = p == 'x' ? 16 : p == 'o' ? 8 : p == 'b' ? 2 : 0;
    if (pb && (base == 0 || base == pb)) { base = pb; i += 2; if (i < s.size() && s[i] == '_') ++i; }
  }
  if (base == 0) base = 10;
  if (base < 2 || base > 36) return false;
  BigNum acc, b = BigNum::from_int(base);
  bool any = false, last_us = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_') {
      if (!any || last_us) return false;
      last_us = true;
      continue;
    }
    int d = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'z') ? c - 'a' + 10 : (c >= 'A' && c <= 'Z') ? c - 'A' + 10 : 99;
    if (d >= base) return false;
    acc = bignum_add(bignum_mul(acc, b), BigNum::from_int(d));
    any = true;
    last_us = false;
    if (acc.limbs.size() > 500) return false;
  }
  if (!any || last_us) return false;
  if (neg && !acc.is_zero()) acc.negative = true;
  out = acc.to_value();
  return true;
}

// Python float(str): whitespace, underscores between digits, inf/nan words.
bool parse_py_float(const std::string& raw, double& out) {
  std::string s = str_strip(ascii_digits(raw), nullptr, true, true), t;
  if (s.empty()) return false;
  std::string low = unicode::py_lower(s);
  size_t k = (low[0] == '+' || low[0] == '-') ? 1 : 0;
  std::string word = low.substr(k);
  if (word == "inf" || word == "infinity" || word == "nan") {
    out = word == "nan" ? std::nan("") : HUGE_VAL;
    if (low[0] == '-') out = -out;
    return true;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '_') {
      if (i == 0 || i + 1 >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i - 1])) ||
          !std::isdigit(static_cast<unsigned char>(s[i + 1])))
        return false;
      continue;
    }
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) return false;
    t.push_back(c);
  }
  // Validate the shape strictly: [sign] digits [. digits] [e [sign] digits]
  size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  size_t d0 = i;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  size_t nd = i - d0;
  if (i < t.size() && t[i] == '.') {
    ++i;
    size_t f0 = i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    nd += i - f0;
  }
  if (nd == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    size_t e0 = i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    if (i == e0) return false;
  }
  if (i != t.size()) return false;
  out = std::strtod(t.c_str(), nullptr);
  return true;
}

Value f_int(RenderState&, const Value& v, Args& a) {
  ArgBinder b("int", a, {"default", "base"});
  Value def = b.value(0, Value::integer(0));
  Value base_v = b.value(1, Value::integer(10));
  if (v.is_undefined()) fail_undefined(v);  // Undefined.__int__ raises
  if (v.is_str()) {
    Value out;
    int base = int(int_arg(base_v, nullptr));
    if (parse_py_int(v.as_str(), base, out)) return out;
    double d;
    // The fallback int(float(s)) catches OverflowError too: "inf" gives the default.
    if (parse_py_float(v.as_str(), d) && std::isfinite(d)) return BigNum::from_double(d).to_value();
    return def;
  }
  if (int_like(v)) return v.kind() == Kind::Bool ? Value::integer(v.as_bool()) : v;
  if (v.kind() == Kind::Float) {
    // int(inf) raises OverflowError, which do_int does not catch; int(nan)
    // raises ValueError, which makes it return the default.
    if (std::isnan(v.as_float())) return def;
    if (std::isinf(v.as_float())) throw_runtime_error("OverflowError", "cannot convert float infinity to integer");
    return BigNum::from_double(v.as_float()).to_value();
  }
  return def;
}

Value f_float(RenderState&, const Value& v, Args& a) {
  ArgBinder b("float", a, {"default"});
  Value def = b.value(0, Value::floating(0.0));
  if (v.is_undefined()) fail_undefined(v);  // Undefined.__float__ raises
  if (v.kind() == Kind::Float) return v;
  if (int_like(v)) return Value::floating(int_to_double(v));
  if (v.is_str()) {
    double d;
    if (parse_py_float(v.as_str(), d)) return Value::floating(d);
  }
  return def;
}

Value f_abs(RenderState&, const Value& v, Args& a) {
  ArgBinder b("abs", a, {});
  if (v.kind() == Kind::Float) return Value::floating(std::fabs(v.as_float()));
  if (int_like(v)) return int_cmp(v, Value::integer(0)) < 0 ? negate(v) : (v.kind() == Kind::Bool ? Value::integer(v.as_bool()) : v);
  throw_type_error("bad operand type for abs(): '" + type_name(v) + "'");
}

Value f_round(RenderState&, const Value& v, Args& a) {
  ArgBinder b("round", a, {"precision", "method"});
  int64_t prec = int_arg(b.value(0, Value::integer(0)), nullptr);
  std::string method = soft_str(b.value(1, str_v("common")));
  if (method != "common" && method != "ceil" && method != "floor") filter_arg_error("method must be common, ceil or floor");
  if (!v.is_number()) throw_type_error("type " + type_name(v) + " doesn't define __round__ method");
  if (method == "common") {
    if (int_like(v)) {
      if (prec >= 0) return v.kind() == Kind::Bool ? Value::integer(v.as_bool()) : v;
      // round half to even at 10**-prec
      Value p = Value::integer(1);
      for (int64_t i = 0; i < -prec && i < 30; ++i) p = int_mul(p, Value::integer(10));
      Value q = int_floordiv(v, p), r = int_mod(v, p);
      Value twice = int_mul(r, Value::integer(2));
      int c = int_cmp(twice, p);
      if (c > 0 || (c == 0 && int_cmp(int_mod(q, Value::integer(2)), Value::integer(1)) == 0)) q = int_add(q, Value::integer(1));
      return int_mul(q, p);
    }
    double x = v.as_float();
    if (!std::isfinite(x)) return v;
    if (prec > 300) return v;
    if (prec >= 0) {
      // printf rounds the exact binary value half-to-even like Python's round().
      char buf[400];
      std::snprintf(buf, sizeof buf, "%.*f", int(prec), x);
      double r = std::strtod(buf, nullptr);
      if (r == 0) r = std::copysign(0.0, x);
      return Value::floating(r);
    }
    if (prec < -308) return Value::floating(std::copysign(0.0, x));
    double p = std::pow(10.0, double(-prec));
    double y = x / p, r = std::nearbyint(y);
    return Value::floating(std::copysign(r * p, x));
  }
  double x = int_like(v) ? int_to_double(v) : v.as_float();
  double p = std::pow(10.0, double(prec));
  double r = method == "ceil" ? std::ceil(x * p) : std::floor(x * p);
  return Value::floating(r / p);
}

// ---------------------------------------------------------------- sequences

Value f_length(RenderState&, const Value& v, Args& a) {
  ArgBinder b("length", a, {});
  return Value::integer(int64_t(py_len(v)));
}

Value f_list(RenderState&, const Value& v, Args& a) {
  ArgBinder b("list", a, {});
  return Value::list(iterate(v));
}

Value f_first(RenderState&, const Value& v, Args& a) {
  ArgBinder b("first", a, {});
  if (v.is_str()) {
    if (v.as_str().empty()) return Value::undefined("No first item, sequence was empty.");
    size_t i = 0;
    unicode::decode_next(v.as_str(), i);
    return str_v(v.as_str().substr(0, i));
  }
  if (v.kind() == Kind::List || v.kind() == Kind::Tuple) {
    if (v.items().empty()) return Value::undefined("No first item, sequence was empty.");
    return v.items().front();
  }
  auto items = iterate(v);
  if (items.empty()) return Value::undefined("No first item, sequence was empty.");
  return items.front();
}

Value f_last(RenderState&, const Value& v, Args& a) {
  ArgBinder b("last", a, {});
  if (v.kind() == Kind::Object && !v.as_object().iterable()) throw_type_error("'" + type_name(v) + "' object is not reversible");
  if (!(v.is_str() || v.is_sequence_like() || v.kind() == Kind::Dict || v.is_undefined() || v.kind() == Kind::Object))
    throw_type_error("'" + type_name(v) + "' object is not reversible");
  auto items = iterate(v);
  if (items.empty()) return Value::undefined("No last item, sequence was empty.");
  return items.back();
}

Value f_join(RenderState& st, const Value& v, Args& a) {
  ArgBinder b("join", a, {"d", "attribute"});
  std::string d = soft_str(b.value(0, str_v("")));
  AttrGetter g = AttrGetter::make(b.get(1), false);
  auto items = iterate(v);
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) {
      mem_reserve(out.size() + d.size());
      out += d;
    }
    append_py_str(out, g.identity ? items[i] : g(st, items[i]));
    st.tick();
  }
  mem_reserve(out.size());
  return str_v(std::move(out));
}

Value f_reverse(RenderState&, const Value& v, Args& a) {
  ArgBinder b("reverse", a, {});
  if (v.is_str()) {
    auto u = unicode::decode(v.as_str());
    std::reverse(u.begin(), u.end());
    return str_v(unicode::encode(u));
  }
  if (!(v.is_sequence_like() || v.kind() == Kind::Dict || v.is_undefined() || (v.kind() == Kind::Object && v.as_object().iterable())))
    filter_arg_error("argument must be iterable");
  auto items = iterate(v);
  std::reverse(items.begin(), items.end());
  return Value::list(std::move(items));
}

Value f_sort(RenderState& st, const Value& v, Args& a) {
  ArgBinder b("sort", a, {"reverse", "case_sensitive", "attribute"});
  bool reverse = flag(b, 0, false), cs = flag(b, 1, false);
  auto gs = multi_getter(b.get(2), !cs);
  std::vector<std::pair<Value, Value>> keyed;
  for (const Value& item : iterate(v)) {
    st.tick();
    std::vector<Value> key;
    for (const auto& g : gs) key.push_back(g(st, item));
    keyed.emplace_back(Value::list(std::move(key)), item);
  }
  py_sort(keyed, reverse);
  std::vector<Value> out;
  for (auto& k : keyed) out.push_back(k.second);
  return Value::list(std::move(out));
}

Value f_dictsort(RenderState& st, const Value& v, Args& a) {
  ArgBinder b("dictsort", a, {"case_sensitive", "by", "reverse"});
  bool cs = flag(b, 0, false), reverse = flag(b, 2, false);
  Value by = b.value(1, str_v("key"));
  int pos;
  if (by.is_str() && by.as_str() == "key") pos = 0;
  else if (by.is_str() && by.as_str() == "value") pos = 1;
  else filter_arg_error("You can only sort by either \"key\" or \"value\"");
  if (v.is_undefined()) fail_undefined(v);
  if (v.kind() != Kind::Dict) throw_runtime_error("AttributeError", "'" + type_name(v) + "' object has no attribute 'items'");
  std::vector<std::pair<Value, Value>> keyed;
  for (const auto& e : v.as_dict().entries()) {
    st.tick();
    Value k = pos == 0 ? e.first : e.second;
    if (!cs && k.is_str()) k = str_v(unicode::py_lower(k.as_str()));
    keyed.emplace_back(k, Value::tuple({e.first, e.second}));
  }
  py_sort(keyed, reverse);
  std::vector<Value> out;
  for (auto& k : keyed) out.push_back(k.second);
  return Value::list(std::move(out));
}

Value f_items(RenderState&, const Value& v, Args& a) {
  ArgBinder b("items", a, {});
  if (v.is_undefined()) return Value::list({});
  if (v.kind() != Kind::Dict) throw_type_error("Can only get item pairs from a mapping.");
  std::vector<Value> out;
  for (const auto& e : v.as_dict().entries()) out.push_back(Value::tuple({e.first, e.second}));
  return Value::list(std::move(out));
}

Value f_unique(RenderState& st, const Value& v, Args& a) {
  ArgBinder b("unique", a, {"case_sensitive", "attribute"});
  bool cs = flag(b, 0, false);
  AttrGetter g = AttrGetter::make(b.get(1), !cs);
  std::vector<Value> seen, out;
  for (const Value& item : iterate(v)) {
    st.tick();
    Value key = g(st, item);
    if (key.kind() == Kind::List || key.kind() == Kind::Dict) throw_type_error("unhashable type: '" + type_name(key) + "'");
    bool dup = false;
    for (const Value& s : seen)
      if (py_equal(s, key)) { dup = true; break; }
    if (!dup) { seen.push_back(key); out.push_back(item); }
  }
  return Value::list(std::move(out));
}

Value min_max(RenderState& st, const Value& v, Args& a, bool is_max, const char* name) {
  ArgBinder b(name, a, {"case_sensitive", "attribute"});
  bool cs = flag(b, 0, false);
  AttrGetter g = AttrGetter::make(b.get(1), !cs);
  auto items = iterate(v);
  if (items.empty()) return Value::undefined("No aggregated item, sequence was empty.");
  size_t best = 0;
  Value best_key = g(st, items[0]);
  for (size_t i = 1; i < items.size(); ++i) {
    st.tick();
    Value k = g(st, items[i]);
    if (is_max ? compare(CmpOp::Gt, k, best_key) : compare(CmpOp::Lt, k, best_key)) { best = i; best_key = k; }
  }
  return items[best];
}
Value f_min(RenderState& st, const Value& v, Args& a) { return min_max(st, v, a, false, "min"); }
Value f_max(RenderState& st, const Value& v, Args& a) { return min_max(st, v, a, true, "max"); }

Value f_sum(RenderState& st, const Value& v, Args& a) {
  ArgBinder b("sum", a, {"attribute", "start"});
  AttrGetter g = AttrGetter::make(b.get(0), false);
  Value acc = b.value(1, Value::integer(0));
  if (acc.is_str()) throw_type_error("sum() can't sum strings [use ''.join(seq) instead]");
  for (const Value& item : iterate(v)) {
    st.tick();
    acc = binary_op(BinOp::Add, acc, g.identity ? item : g(st, item));
  }
  return acc;
}

Value f_batch(RenderState&, const Value& v, Args& a) {
  ArgBinder b("batch", a, {"linecount", "fill_with"});
  if (!b.has(0)) throw_type_error("do_batch() missing 1 required positional argument: 'linecount'");
  int64_t n = int_arg(*b.get(0), nullptr);
  Value fill = b.value(1);
  if (n > 0 && !fill.is_none()) mem_reserve(size_t(n) * sizeof(Value));  // the last batch is filled up to n
  std::vector<Value> out, cur;
  for (const Value& item : iterate(v)) {
    if (int64_t(cur.size()) == n) { out.push_back(Value::list(std::move(cur))); cur.clear(); }
    cur.push_back(item);
  }
  if (!cur.empty()) {
    if (!fill.is_none())
      while (int64_t(cur.size()) < n) cur.push_back(fill);
    out.push_back(Value::list(std::move(cur)));
  }
  return Value::list(std::move(out));
}

Value f_slice(RenderState&, const Value& v, Args& a) {
  ArgBinder b("slice", a, {"slices", "fill_with"});
  if (!b.has(0)) throw_type_error("do_slice() missing 1 required positional argument: 'slices'");
  int64_t slices = int_arg(*b.get(0), nullptr);
  Value fill = b.value(1);
  auto seq = iterate(v);
  int64_t length = int64_t(seq.size());
  if (slices == 0) throw_runtime_error("ZeroDivisionError", "integer division or modulo by zero");
  if (slices < 0) return Value::list({});
  mem_reserve(size_t(slices) * (sizeof(Value) + sizeof(ListData)));  // one list per slice
  int64_t per = length / slices, extra = length % slices, offset = 0;
  std::vector<Value> out;
  for (int64_t k = 0; k < slices; ++k) {
    int64_t start = offset + k * per;
    if (k < extra) ++offset;
    int64_t end = offset + (k + 1) * per;
    std::vector<Value> tmp(seq.begin() + std::min(start, length), seq.begin() + std::min(std::max(end, start), length));
    if (!fill.is_none() && k >= extra) tmp.push_back(fill);
    out.push_back(Value::list(std::move(tmp)));
  }
  return Value::list(std::move(out));
}

class GroupTuple : public Object {
 public:
  GroupTuple(Value g, Value l) : grouper_(std::move(g)), list_(std::move(l)) {}
  std::string type_name() const override { return "_GroupTuple"; }
  Value get_attr(RenderState&, std::string_view n) const override {
    if (n == "grouper") return grouper_;
    if (n == "list") return list_;
    if (n == "count" || n == "index") {
      Value m;
      lookup_method(Value::tuple({grouper_, list_}), n, m);
      return m;
    }
    return Value();
  }
  bool iterable() const override { return true; }
  std::vector<Value> elements() const override { return {grouper_, list_}; }
  std::string repr() const override { return py_repr(Value::tuple({grouper_, list_})); }

 private:
  Value grouper_, list_;
};

Value f_groupby(RenderState& st, const Value& v, Args& a) {
  ArgBinder b("groupby", a, {"attribute", "default", "case_sensitive"});
  if (!b.has(0)) throw_type_error("do_groupby() missing 1 required positional argument: 'attribute'");
  bool cs = flag(b, 2, false);
  AttrGetter key = AttrGetter::make(b.get(0), !cs, b.get(1));
  AttrGetter out_key = AttrGetter::make(b.get(0), false, b.get(1));
  std::vector<std::pair<Value, Value>> keyed;
  for (const Value& item : iterate(v)) keyed.emplace_back(key(st, item), item);
  py_sort(keyed, false);
  std::vector<Value> out;
  for (size_t i = 0; i < keyed.size();) {
    size_t j = i;
    std::vector<Value> group;
    while (j < keyed.size() && py_equal(keyed[j].first, keyed[i].first)) group.push_back(keyed[j++].second);
    Value g = cs ? keyed[i].first : out_key(st, group.front());
    out.push_back(Value::object(std::make_shared<GroupTuple>(g, Value::list(std::move(group)))));
    i = j;
  }
  return Value::list(std::move(out));
}

// ---------------------------------------------------------------- higher order

Value f_map(RenderState& st, const Value& v, Args& a) {
  auto items = iterate(v);
  std::vector<Value> out;
  out.reserve(items.size());
  if (a.args.empty()) {
    const Value* attr = a.kwarg("attribute");
    const Value* def = a.kwarg("default");
    for (const auto& kv : a.kwargs)
      if (kv.first != "attribute" && kv.first != "default")
        filter_arg_error("Unexpected keyword argument '" + kv.first + "'");
    if (!attr) filter_arg_error("map requires a filter argument");
    AttrGetter g = AttrGetter::make(attr, false, def);
    for (const Value& it : items) out.push_back(g(st, it));
    return Value::list(std::move(out));
  }
  std::string name = soft_str(a.args[0]);
  FilterFn f = find_filter(name);
  if (!f) throw_runtime_error("TemplateRuntimeError", "No filter named '" + name + "'.");
  CallArgs sub;
  sub.args.assign(a.args.begin() + 1, a.args.end());
  sub.kwargs = a.kwargs;
  for (const Value& it : items) {
    st.tick();
    CallArgs c = sub;
    out.push_back(f(st, it, c));
  }
  return Value::list(std::move(out));
}

Value select_impl(RenderState& st, const Value& v, Args& a, bool attr_mode, bool keep_true) {
  auto items = iterate(v);
  size_t off = 0;
  Value attr;
  if (attr_mode) {
    if (a.args.empty()) throw_type_error("Missing parameter for attribute name");
    attr = a.args[0];
    off = 1;
  }
  AttrGetter g = AttrGetter::make(attr_mode ? &attr : nullptr, false);
  TestFn test = nullptr;
  CallArgs sub;
  if (a.args.size() > off) {
    std::string name = soft_str(a.args[off]);
    test = find_test(name);
    if (!test) throw_runtime_error("TemplateRuntimeError", "No test named '" + name + "'.");
    sub.args.assign(a.args.begin() + long(off) + 1, a.args.end());
    sub.kwargs = a.kwargs;
  }
  std::vector<Value> out;
  for (const Value& it : items) {
    st.tick();
    Value x = attr_mode ? g(st, it) : it;
    bool r;
    if (test) {
      CallArgs c = sub;
      r = test(st, x, c);
    } else {
      r = truthy(x);
    }
    if (r == keep_true) out.push_back(it);
  }
  return Value::list(std::move(out));
}
Value f_select(RenderState& st, const Value& v, Args& a) { return select_impl(st, v, a, false, true); }
Value f_reject(RenderState& st, const Value& v, Args& a) { return select_impl(st, v, a, false, false); }
Value f_selectattr(RenderState& st, const Value& v, Args& a) { return select_impl(st, v, a, true, true); }
Value f_rejectattr(RenderState& st, const Value& v, Args& a) { return select_impl(st, v, a, true, false); }

Value f_attr(RenderState& st, const Value& v, Args& a) {
  ArgBinder b("attr", a, {"name"});
  if (!b.has(0)) throw_type_error("do_attr() missing 1 required positional argument: 'name'");
  std::string name = soft_str(*b.get(0));
  // getattr(Undefined, '__x') raises AttributeError, which do_attr turns
  // into a fresh undefined; other names fail with the undefined's error.
  if (v.is_undefined() && name.compare(0, 2, "__") == 0)
    return Value::undefined("'" + type_name(v) + "' object has no attribute '" + name + "'");
  return get_python_attr(st, v, name);
}

Value f_default(RenderState&, const Value& v, Args& a) {
  ArgBinder b("default", a, {"default_value", "boolean"});
  Value def = b.value(0, str_v(""));
  bool boolean = flag(b, 1, false);
  if (v.is_undefined() || (boolean && !truthy(v))) return def;
  return v;
}

Value f_tojson(RenderState&, const Value& v, Args& a) {
  ArgBinder b("tojson", a, {"ensure_ascii", "indent", "separators", "sort_keys"});
  JsonDumpsOptions o;
  o.ensure_ascii = flag(b, 0, false);
  o.sort_keys = flag(b, 3, false);
  Value indent = b.value(1);
  if (indent.is_str()) o.indent = indent.as_str();
  else if (int_like(indent)) {
    int64_t n = std::max<int64_t>(0, int_arg(indent, nullptr));
    mem_reserve(size_t(n));  // json.dumps builds " " * indent
    o.indent = std::string(size_t(n), ' ');
  }
  else if (!indent.is_none()) throw_type_error("can't multiply sequence by non-int of type '" + type_name(indent) + "'");
  Value seps = b.value(2);
  if (!seps.is_none()) {
    auto parts = iterate(seps);
    if (parts.size() != 2)
      throw_runtime_error("ValueError", parts.size() < 2 ? "not enough values to unpack (expected 2, got " + std::to_string(parts.size()) + ")"
                                                         : "too many values to unpack (expected 2)");
    o.item_separator = soft_str(parts[0]);
    o.key_separator = soft_str(parts[1]);
  }
  return json_dumps_value(v, o);
}

Value f_xmlattr(RenderState&, const Value& v, Args& a) {
  ArgBinder b("xmlattr", a, {"autospace"});
  bool autospace = flag(b, 0, true);
  if (v.is_undefined()) fail_undefined(v);
  if (v.kind() != Kind::Dict) throw_runtime_error("AttributeError", "'" + type_name(v) + "' object has no attribute 'items'");
  std::string out;
  for (const auto& e : v.as_dict().entries()) {
    if (e.second.is_none() || e.second.is_undefined()) continue;
    std::string key = py_str(e.first);
    // Jinja2 rejects whitespace, '/', '>' and '=' in attribute names.
    for (size_t i = 0; i < key.size();) {
      char32_t c = unicode::decode_next(key, i);
      if (unicode::is_space(c) || c == '/' || c == '>' || c == '=')
        throw_runtime_error("ValueError", "Invalid character in attribute name: " + py_repr(e.first));
    }
    if (!out.empty()) out.push_back(' ');
    out += html_escape(key) + "=\"" + html_escape(py_str(e.second)) + "\"";
  }
  if (autospace && !out.empty()) out.insert(out.begin(), ' ');
  return str_v(std::move(out));  // Markup only under autoescape, which transformers leaves off
}

Value f_pprint(RenderState&, const Value& v, Args& a) {
  ArgBinder b("pprint", a, {});
  return str_v(py_repr(v));
}

Value f_random(RenderState&, const Value&, Args&) {
  throw_runtime_error("TemplateRuntimeError", "the random filter is not supported (renders must be deterministic)");
}

struct FilterEntry { const char* name; FilterFn fn; };
const FilterEntry kFilters[] = {
    {"abs", f_abs}, {"attr", f_attr}, {"batch", f_batch}, {"capitalize", f_capitalize}, {"center", f_center},
    {"count", f_length}, {"d", f_default}, {"default", f_default}, {"dictsort", f_dictsort}, {"e", f_escape},
    {"escape", f_escape}, {"filesizeformat", f_filesizeformat}, {"first", f_first}, {"float", f_float},
    {"forceescape", f_forceescape}, {"format", f_format}, {"groupby", f_groupby}, {"indent", f_indent},
    {"int", f_int}, {"items", f_items}, {"join", f_join}, {"last", f_last}, {"length", f_length},
    {"list", f_list}, {"lower", f_lower}, {"map", f_map}, {"max", f_max}, {"min", f_min}, {"pprint", f_pprint},
    {"random", f_random}, {"reject", f_reject}, {"rejectattr", f_rejectattr}, {"replace", f_replace},
    {"reverse", f_reverse}, {"round", f_round}, {"safe", f_safe}, {"select", f_select},
    {"selectattr", f_selectattr}, {"slice", f_slice}, {"sort", f_sort}, {"string", f_string},
    {"striptags", f_striptags}, {"sum", f_sum}, {"title", f_title}, {"tojson", f_tojson}, {"trim", f_trim},
    {"truncate", f_truncate}, {"unique", f_unique}, {"upper", f_upper}, {"urlencode", f_urlencode},
    {"wordcount", f_wordcount}, {"xmlattr", f_xmlattr},
};

}  // namespace

FilterFn find_filter(std::string_view name) {
  for (const auto& e : kFilters)
    if (name == e.name) return e.fn;
  return nullptr;
}

}  // namespace jinja
