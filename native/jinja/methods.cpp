// Python methods of str, dict, list and tuple as seen through Jinja2's
// immutable sandbox. Indices and lengths are in code points.
#include "methods.h"

#include <algorithm>
#include <cstring>

#include "callargs.h"
#include "errors.h"
#include "operators.h"
#include "pyformat.h"
#include "search.h"
#include "strformat.h"
#include "unicode.h"

namespace jinja {

namespace {

using unicode::decode;
using unicode::encode;

// A set of method names with a constant-time reject. Every attribute read on
// a dict/str/list passes through here (getattr comes before the item lookup,
// as in Jinja2), and almost all of them ("role", "content", ...) are not
// methods: a bit per (first letter, length) pair rejects those without
// comparing bytes. All method names are lowercase ASCII, shorter than 32.
template <size_t N>
class NameSet {
 public:
  consteval NameSet(const std::string_view (&names)[N]) {
    for (size_t i = 0; i < N; ++i) {
      names_[i] = names[i];
      shape_[names[i][0] - 'a'] |= 1u << names[i].size();
    }
  }
  bool contains(std::string_view n) const {
    if (n.empty() || n.size() >= 32) return false;
    unsigned first = static_cast<unsigned char>(n[0]) - 'a';
    if (first >= 26 || !(shape_[first] >> n.size() & 1)) return false;
    for (std::string_view s : names_)
      if (s == n) return true;
    return false;
  }

 private:
  std::string_view names_[N] = {};
  uint32_t shape_[26] = {};
};

constexpr std::string_view kStrMethodNames[] = {
    "capitalize", "casefold", "center", "count", "encode", "endswith", "expandtabs", "find", "format",
    "format_map", "index", "isalnum", "isalpha", "isascii", "isdecimal", "isdigit", "isidentifier", "islower",
    "isnumeric", "isprintable", "isspace", "istitle", "isupper", "join", "ljust", "lower", "lstrip", "maketrans",
    "partition", "removeprefix", "removesuffix", "replace", "rfind", "rindex", "rjust", "rpartition", "rsplit",
    "rstrip", "split", "splitlines", "startswith", "strip", "swapcase", "title", "translate", "upper", "zfill"};
constexpr std::string_view kDictSafeNames[] = {"copy", "fromkeys", "get", "items", "keys", "values"};
constexpr std::string_view kDictUnsafeNames[] = {"clear", "pop", "popitem", "setdefault", "update"};
constexpr std::string_view kListSafeNames[] = {"copy", "count", "index"};
constexpr std::string_view kListUnsafeNames[] = {"append", "clear", "extend", "insert", "pop", "remove", "reverse", "sort"};
constexpr std::string_view kTupleSafeNames[] = {"count", "index"};
// Safe and unsafe dict methods together: one test per dict attribute read.
constexpr std::string_view kDictAttrNames[] = {"copy", "fromkeys", "get", "items", "keys", "values",
                                               "clear", "pop", "popitem", "setdefault", "update"};

constexpr NameSet kStrMethods(kStrMethodNames);
constexpr NameSet kDictSafe(kDictSafeNames);
constexpr NameSet kDictUnsafe(kDictUnsafeNames);
constexpr NameSet kListSafe(kListSafeNames);
constexpr NameSet kListUnsafe(kListUnsafeNames);
constexpr NameSet kTupleSafe(kTupleSafeNames);
constexpr NameSet kDictAttrs(kDictAttrNames);

template <size_t N>
bool in(const NameSet<N>& names, std::string_view n) { return names.contains(n); }

Value str_value(std::string s) { return Value::string(std::move(s)); }

int64_t index_arg(const Value& v) {
  if (v.kind() == Kind::Int) return v.as_int();
  if (v.kind() == Kind::Bool) return v.as_bool();
  if (v.kind() == Kind::BigInt) return v.as_bigint().negative ? INT64_MIN / 2 : INT64_MAX / 2;
  throw_type_error("slice indices must be integers or None or have an __index__ method");
}

// Python's ADJUST_INDICES for optional start/end arguments (code points).
void adjust(const CallArgs& a, size_t first, size_t len, int64_t& start, int64_t& end) {
  start = 0;
  end = int64_t(len);
  if (a.args.size() > first && !a.args[first].is_none()) start = index_arg(a.args[first]);
  if (a.args.size() > first + 1 && !a.args[first + 1].is_none()) end = index_arg(a.args[first + 1]);
  int64_t n = int64_t(len);
  if (end > n) end = n;
  else if (end < 0) { end += n; if (end < 0) end = 0; }
  if (start < 0) { start += n; if (start < 0) start = 0; }
}

const std::string& need_str(const Value& v, const char* what) {
  if (!v.is_str()) throw_type_error(std::string(what) + ", not " + type_name(v));
  return v.as_str();
}

std::u32string to_u32(std::string_view s) {
  auto v = decode(s);
  return std::u32string(v.begin(), v.end());
}
std::string from_u32(std::u32string_view s) { return encode(s.data(), s.size()); }

// find/rfind/index/rindex/count on code points.
int64_t find_impl(const std::u32string& hay, const std::u32string& needle, int64_t start, int64_t end, bool reverse) {
  if (start > end || end - start < int64_t(needle.size())) {
    if (needle.empty() && start <= end) return reverse ? end : start;
    return -1;
  }
  std::u32string_view window(hay.data() + start, size_t(end - start));
  size_t p = reverse ? linear_rfind<char32_t>(window, needle) : linear_find<char32_t>(window, needle);
  return p == std::u32string_view::npos ? -1 : int64_t(p) + start;
}

bool is_line_break(char32_t c) {
  return c == '\n' || c == '\r' || c == 0x0b || c == 0x0c || c == 0x1c || c == 0x1d || c == 0x1e || c == 0x85 ||
         c == 0x2028 || c == 0x2029;
}

Value split_impl(const std::string& s, const Value& sep, int64_t maxsplit, bool reverse) {
  if (sep.is_none()) {
    if (!reverse) return Value::list(str_split_whitespace(s, maxsplit));
    // rsplit on whitespace: scan from the right.
    auto u = to_u32(s);
    std::vector<Value> parts;
    int64_t i = int64_t(u.size()) - 1;
    while (i >= 0) {
      while (i >= 0 && unicode::is_space(u[size_t(i)])) --i;
      if (i < 0) break;
      if (maxsplit >= 0 && int64_t(parts.size()) == maxsplit) {
        parts.push_back(str_value(from_u32(std::u32string_view(u.data(), size_t(i) + 1))));
        break;
      }
      int64_t j = i;
      while (j >= 0 && !unicode::is_space(u[size_t(j)])) --j;
      parts.push_back(str_value(from_u32(std::u32string_view(u.data() + j + 1, size_t(i - j)))));
      i = j;
    }
    std::reverse(parts.begin(), parts.end());
    return Value::list(std::move(parts));
  }
  const std::string& sp = need_str(sep, "must be str or None");
  if (sp.empty()) throw_runtime_error("ValueError", "empty separator");
  std::vector<Value> parts;
  if (!reverse) {
    size_t pos = 0;
    while (maxsplit < 0 || int64_t(parts.size()) < maxsplit) {
      size_t f = linear_find<char>(s, sp, pos);
      if (f == std::string::npos) break;
      parts.push_back(str_value(s.substr(pos, f - pos)));
      pos = f + sp.size();
    }
    parts.push_back(str_value(s.substr(pos)));
  } else {
    size_t end = s.size();
    while (maxsplit < 0 || int64_t(parts.size()) < maxsplit) {
      if (end < sp.size()) break;
      size_t f = s.rfind(sp, end - sp.size());
      if (f == std::string::npos) break;
      parts.push_back(str_value(s.substr(f + sp.size(), end - f - sp.size())));
      end = f;
    }
    parts.push_back(str_value(s.substr(0, end)));
    std::reverse(parts.begin(), parts.end());
  }
  return Value::list(std::move(parts));
}

char32_t fill_char(const CallArgs& a, size_t i) {
  if (a.args.size() <= i) return U' ';
  const Value& f = a.args[i];
  if (!f.is_str()) throw_type_error("The fill character must be a unicode character, not " + type_name(f));
  if (f.str_data().length != 1) throw_type_error("The fill character must be exactly one character long");
  size_t k = 0;
  return unicode::decode_next(f.as_str(), k);
}

int64_t width_arg(const CallArgs& a, const char* fn) {
  if (a.args.empty()) throw_type_error(std::string(fn) + " expected at least 1 argument, got 0");
  const Value& w = a.args[0];
  if (w.kind() == Kind::Int) {
    if (w.as_int() > 10'000'000) throw Error(ErrorKind::Limit, "MemoryError", "padded width is too large");
    return w.as_int();
  }
  if (w.kind() == Kind::Bool) return w.as_bool();
  throw_type_error("'" + type_name(w) + "' object cannot be interpreted as an integer");
}

std::string repeat_cp(char32_t c, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) unicode::append_utf8(out, c);
  return out;
}

bool all_cp(const std::string& s, uint16_t flags) {
  if (s.empty()) return false;
  for (size_t i = 0; i < s.size();)
    if (!(unicode::props(unicode::decode_next(s, i)) & flags)) return false;
  return true;
}

// Python's isupper/islower: some cased char, and none of the opposite case.
bool case_test(const std::string& s, bool upper) {
  bool cased = false;
  for (size_t i = 0; i < s.size();) {
    char32_t c = unicode::decode_next(s, i);
    uint16_t p = unicode::props(c);
    if (upper ? (p & (unicode::kLower | unicode::kTitle)) : (p & (unicode::kUpper | unicode::kTitle))) return false;
    if (p & (upper ? unicode::kUpper : unicode::kLower)) cased = true;
  }
  return cased;
}

bool is_title(const std::string& s) {
  bool cased = false, prev = false;
  for (size_t i = 0; i < s.size();) {
    uint16_t p = unicode::props(unicode::decode_next(s, i));
    if (p & (unicode::kUpper | unicode::kTitle)) {
      if (prev) return false;
      prev = cased = true;
    } else if (p & unicode::kLower) {
      if (!prev) return false;
      prev = cased = true;
    } else {
      prev = false;
    }
  }
  return cased;
}

Value tuple_of_str(std::initializer_list<std::string> parts) {
  std::vector<Value> v;
  for (const auto& p : parts) v.push_back(str_value(p));
  return Value::tuple(std::move(v));
}

bool affix_match(const std::string& s, size_t len_cp, const Value& what, const CallArgs& a, bool ends, const char* fn) {
  int64_t start, end;
  adjust(a, 1, len_cp, start, end);
  auto test = [&](const Value& p) {
    if (!p.is_str())
      throw_type_error(std::string(fn) + " first arg must be str or a tuple of str, not " + type_name(p));
    if (start > int64_t(len_cp)) return false;
    if (end < start) return p.as_str().empty() && false;
    size_t b0 = unicode::byte_offset(s, size_t(start)), b1 = unicode::byte_offset(s, size_t(end));
    std::string_view w(s.data() + b0, b1 - b0);
    const std::string& x = p.as_str();
    if (x.size() > w.size()) return false;
    return ends ? w.substr(w.size() - x.size()) == x : w.substr(0, x.size()) == x;
  };
  if (what.kind() == Kind::Tuple) {
    for (const Value& p : what.items())
      if (test(p)) return true;
    return false;
  }
  if (!what.is_str())
    throw_type_error(std::string(fn) + " first arg must be str or a tuple of str, not " + type_name(what));
  return test(what);
}

Value call_str_method(RenderState& st, const Value& self, const std::string& name, CallArgs& a) {
  const std::string& s = self.as_str();
  size_t len = self.str_data().length;
  const char* fn = name.c_str();
  if (name == "format") return str_value(str_format(st, s, a));
  if (name == "format_map") {
    // The sandbox formats format_map(m) as format(**m): fields name keys.
    arg_count(name, a, 1, 1);
    if (a.args[0].kind() != Kind::Dict) throw_type_error("format_map() argument must be a mapping, not " + type_name(a.args[0]));
    CallArgs kw;
    for (const auto& e : a.args[0].as_dict().entries())
      if (e.first.is_str()) kw.kwargs.emplace_back(e.first.as_str(), e.second);
    return str_value(str_format(st, s, kw));
  }
  if (name == "split" || name == "rsplit") {
    ArgBinder b(name, a, {"sep", "maxsplit"});
    Value ms = b.value(1, Value::integer(-1));
    return split_impl(s, b.value(0), index_arg(ms), name == "rsplit");
  }
  if (name == "splitlines") {
    ArgBinder b(name, a, {"keepends"});
    bool keep = truthy(b.value(0, Value::boolean(false)));
    auto u = to_u32(s);
    std::vector<Value> out;
    size_t i = 0;
    while (i < u.size()) {
      size_t j = i;
      while (j < u.size() && !is_line_break(u[j])) ++j;
      size_t eol = j;
      if (j < u.size()) {
        if (u[j] == '\r' && j + 1 < u.size() && u[j + 1] == '\n') j += 2; else ++j;
      }
      out.push_back(str_value(from_u32(std::u32string_view(u.data() + i, (keep ? j : eol) - i))));
      i = j;
    }
    return Value::list(std::move(out));
  }
  no_kwargs(name, a);
  if (name == "strip" || name == "lstrip" || name == "rstrip") {
    arg_count(name, a, 0, 1);
    const Value* chars = a.args.empty() ? nullptr : &a.args[0];
    if (chars && !chars->is_none() && !chars->is_str()) throw_type_error(name + " arg must be None or str");
    return str_value(str_strip(s, chars, name != "rstrip", name != "lstrip"));
  }
  if (name == "upper") { arg_count(name, a, 0, 0); return str_value(unicode::py_upper(s)); }
  if (name == "lower") { arg_count(name, a, 0, 0); return str_value(unicode::py_lower(s)); }
  if (name == "title") { arg_count(name, a, 0, 0); return str_value(unicode::py_title(s)); }
  if (name == "capitalize") { arg_count(name, a, 0, 0); return str_value(unicode::py_capitalize(s)); }
  if (name == "swapcase") { arg_count(name, a, 0, 0); return str_value(unicode::py_swapcase(s)); }
  if (name == "casefold") { arg_count(name, a, 0, 0); return str_value(unicode::py_casefold(s)); }
  if (name == "startswith" || name == "endswith") {
    arg_count(name, a, 1, 3);
    return Value::boolean(affix_match(s, len, a.args[0], a, name == "endswith", fn));
  }
  if (name == "replace") {
    arg_count(name, a, 2, 3);
    const std::string& old = need_str(a.args[0], "replace() argument 1 must be str");
    const std::string& neu = need_str(a.args[1], "replace() argument 2 must be str");
    int64_t count = a.args.size() > 2 ? index_arg(a.args[2]) : -1;
    std::string out;
    if (old.empty()) {
      auto u = decode(s);
      int64_t done = 0;
      for (size_t i = 0; i <= u.size(); ++i) {
        if (count < 0 || done < count) { mem_reserve(out.size() + neu.size()); out += neu; ++done; }
        if (i < u.size()) unicode::append_utf8(out, u[i]);
      }
      return str_value(std::move(out));
    }
    size_t pos = 0;
    int64_t done = 0;
    while (count < 0 || done < count) {
      size_t f = linear_find<char>(s, old, pos);
      if (f == std::string::npos) break;
      out.append(s, pos, f - pos);
      out += neu;
      pos = f + old.size();
      ++done;
      mem_reserve(out.size());
    }
    out.append(s, pos, std::string::npos);
    return str_value(std::move(out));
  }
  if (name == "find" || name == "rfind" || name == "index" || name == "rindex" || name == "count") {
    arg_count(name, a, 1, 3);
    const std::string& sub = need_str(a.args[0], "must be str");
    int64_t start, end;
    adjust(a, 1, len, start, end);
    work(s.size() / 16);
    auto hay = to_u32(s);
    auto needle = to_u32(sub);
    if (name == "count") {
      if (start > end) return Value::integer(0);
      if (needle.empty()) return Value::integer(end - start + 1);
      int64_t n = 0;
      for (int64_t p = start; p + int64_t(needle.size()) <= end;) {
        int64_t f = find_impl(hay, needle, p, end, false);
        if (f < 0) break;
        ++n;
        p = f + int64_t(needle.size());
      }
      return Value::integer(n);
    }
    bool rev = name[0] == 'r';
    int64_t r = find_impl(hay, needle, start, end, rev);
    if (r < 0 && (name == "index" || name == "rindex")) throw_runtime_error("ValueError", "substring not found");
    return Value::integer(r);
  }
  if (name == "join") {
    arg_count(name, a, 1, 1);
    std::vector<Value> items = iterate(a.args[0]);
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
      if (!items[i].is_str())
        throw_type_error("sequence item " + std::to_string(i) + ": expected str instance, " + type_name(items[i]) + " found");
      mem_reserve(out.size() + s.size() + items[i].as_str().size());
      if (i) out += s;
      out += items[i].as_str();
    }
    return str_value(std::move(out));
  }
  if (name == "zfill") {
    arg_count(name, a, 1, 1);
    int64_t w = width_arg(a, fn);
    if (w <= int64_t(len)) return self;
    mem_reserve(size_t(w) + s.size());
    std::string out = s;
    size_t at = (!s.empty() && (s[0] == '+' || s[0] == '-')) ? 1 : 0;
    out.insert(at, size_t(w - int64_t(len)), '0');
    return str_value(std::move(out));
  }
  if (name == "center" || name == "ljust" || name == "rjust") {
    arg_count(name, a, 1, 2);
    int64_t w = width_arg(a, fn);
    char32_t f = fill_char(a, 1);
    if (w <= int64_t(len)) return self;
    size_t marg = size_t(w - int64_t(len));
    mem_reserve(marg * (f < 0x80 ? 1 : f < 0x800 ? 2 : f < 0x10000 ? 3 : 4) + s.size());
    size_t left = name == "ljust" ? 0 : name == "rjust" ? marg : marg / 2 + (marg & size_t(w) & 1);
    return str_value(repeat_cp(f, left) + s + repeat_cp(f, marg - left));
  }
  if (name == "isdigit") return Value::boolean(all_cp(s, unicode::kDigit));
  if (name == "isdecimal") return Value::boolean(all_cp(s, unicode::kDecimal));
  if (name == "isnumeric") return Value::boolean(all_cp(s, unicode::kNumeric));
  if (name == "isalpha") return Value::boolean(all_cp(s, unicode::kAlpha));
  if (name == "isalnum") return Value::boolean(all_cp(s, unicode::kAlpha | unicode::kDecimal | unicode::kDigit | unicode::kNumeric));
  if (name == "isspace") return Value::boolean(all_cp(s, unicode::kSpace));
  if (name == "isprintable") {
    for (size_t i = 0; i < s.size();)
      if (!unicode::is_printable(unicode::decode_next(s, i))) return Value::boolean(false);
    return Value::boolean(true);
  }
  if (name == "isascii") return Value::boolean(self.str_data().ascii);
  if (name == "isupper") return Value::boolean(case_test(s, true));
  if (name == "islower") return Value::boolean(case_test(s, false));
  if (name == "istitle") return Value::boolean(is_title(s));
  if (name == "isidentifier") {
    if (s.empty()) return Value::boolean(false);
    size_t i = 0;
    if (!unicode::has(unicode::decode_next(s, i), unicode::kIdStart)) return Value::boolean(false);
    while (i < s.size())
      if (!unicode::has(unicode::decode_next(s, i), unicode::kIdContinue)) return Value::boolean(false);
    return Value::boolean(true);
  }
  if (name == "partition" || name == "rpartition") {
    arg_count(name, a, 1, 1);
    const std::string& sep = need_str(a.args[0], "must be str");
    if (sep.empty()) throw_runtime_error("ValueError", "empty separator");
    size_t f = name == "partition" ? linear_find<char>(s, sep) : linear_rfind<char>(s, sep);
    if (f == std::string::npos)
      return name == "partition" ? tuple_of_str({s, "", ""}) : tuple_of_str({"", "", s});
    return tuple_of_str({s.substr(0, f), sep, s.substr(f + sep.size())});
  }
  if (name == "removeprefix" || name == "removesuffix") {
    arg_count(name, a, 1, 1);
    const std::string& x = need_str(a.args[0], (name + "() argument must be str").c_str());
    if (name == "removeprefix" && s.compare(0, x.size(), x) == 0) return str_value(s.substr(x.size()));
    if (name == "removesuffix" && !x.empty() && s.size() >= x.size() && s.compare(s.size() - x.size(), x.size(), x) == 0)
      return str_value(s.substr(0, s.size() - x.size()));
    return self;
  }
  if (name == "expandtabs") {
    arg_count(name, a, 0, 1);
    int64_t tab = a.args.empty() ? 8 : index_arg(a.args[0]);
    std::string out;
    size_t col = 0;
    for (size_t i = 0; i < s.size();) {
      char32_t c = unicode::decode_next(s, i);
      if (c == '\t') {
        if (tab > 0) {
          size_t n = size_t(tab) - col % size_t(tab);
          mem_reserve(out.size() + n);
          out.append(n, ' ');
          col += n;
        }
      } else {
        unicode::append_utf8(out, c);
        col = (c == '\n' || c == '\r') ? 0 : col + 1;
      }
    }
    return str_value(std::move(out));
  }
  throw_type_error("str." + name + "() is not supported in templates");
}

Value call_dict_method(const Value& self, const std::string& name, CallArgs& a) {
  no_kwargs(name, a);
  const DictData& d = self.as_dict();
  if (name == "items" || name == "keys" || name == "values") {
    arg_count(name, a, 0, 0);
    return make_dict_view(self, name == "items" ? 0 : name == "keys" ? 1 : 2);
  }
  if (name == "get") {
    arg_count("get", a, 1, 2);
    const Value* v = d.find(a.args[0]);
    if (v) return *v;
    return a.args.size() > 1 ? a.args[1] : Value::none();
  }
  if (name == "copy") {
    arg_count(name, a, 0, 0);
    auto c = std::make_shared<DictData>(d);
    return Value::dict(std::move(c));
  }
  throw_type_error("dict." + name + "() is not supported in templates");
}

Value call_seq_method(const Value& self, const std::string& name, CallArgs& a) {
  no_kwargs(name, a);
  const auto& items = self.items();
  if (name == "copy") {
    arg_count(name, a, 0, 0);
    return Value::list(items);
  }
  if (name == "count") {
    arg_count(name, a, 1, 1);
    int64_t n = 0;
    for (const Value& v : items) n += py_equal(v, a.args[0]);
    return Value::integer(n);
  }
  if (name == "index") {
    arg_count(name, a, 1, 3);
    int64_t start, end;
    adjust(a, 1, items.size(), start, end);
    for (int64_t i = start; i < end; ++i)
      if (py_equal(items[size_t(i)], a.args[0])) return Value::integer(i);
    if (self.kind() == Kind::Tuple) throw_runtime_error("ValueError", "tuple.index(x): x not in tuple");
    throw_runtime_error("ValueError", py_repr(a.args[0]) + " is not in list");
  }
  throw_type_error(type_name(self) + "." + name + "() is not supported in templates");
}

Value bound(const Value& self, std::string_view name) {
  auto fd = std::make_shared<FunctionData>();
  fd->fn_kind = FunctionData::FnKind::BoundMethod;
  fd->name = std::string(name);
  fd->repr = "<built-in method " + fd->name + " of " + type_name(self) + " object at 0x7f0000000000>";
  std::string n = fd->name;
  fd->fn = [self, n](RenderState& st, CallArgs& a) -> Value {
    switch (self.kind()) {
      case Kind::Str: return call_str_method(st, self, n, a);
      case Kind::Dict: return call_dict_method(self, n, a);
      default: return call_seq_method(self, n, a);
    }
  };
  return Value::function(std::move(fd));
}

class DictView : public Object {
 public:
  DictView(Value dict, int which) : dict_(std::move(dict)), which_(which) {}
  std::string type_name() const override { return which_ == 0 ? "dict_items" : which_ == 1 ? "dict_keys" : "dict_values"; }
  bool iterable() const override { return true; }
  std::vector<Value> elements() const override {
    std::vector<Value> out;
    out.reserve(dict_.as_dict().size());
    for (const auto& e : dict_.as_dict().entries()) {
      if (which_ == 0) out.push_back(Value::tuple({e.first, e.second}));
      else out.push_back(which_ == 1 ? e.first : e.second);
    }
    return out;
  }
  std::string repr() const override {
    std::string s = type_name() + "([";
    bool first = true;
    for (const Value& v : elements()) {
      if (!first) s += ", ";
      first = false;
      append_py_repr(s, v);
    }
    return s + "])";
  }

 private:
  Value dict_;
  int which_;
};

}  // namespace

Value make_dict_view(const Value& dict, int which) { return Value::object(std::make_shared<DictView>(dict, which)); }

Value unsafe_undefined(const Value& obj, std::string_view name) {
  return Value::undefined("access to attribute '" + std::string(name) + "' of '" + type_name(obj) + "' object is unsafe.",
                          "SecurityError");
}

std::vector<Value> str_split_whitespace(std::string_view s, int64_t maxsplit) {
  std::vector<Value> parts;
  size_t i = 0;
  auto space_at = [&](size_t at, size_t& next) {
    next = at;
    char32_t c = unicode::decode_next(s, next);
    return unicode::is_space(c);
  };
  size_t next;
  while (i < s.size()) {
    while (i < s.size() && space_at(i, next)) i = next;
    if (i >= s.size()) break;
    if (maxsplit >= 0 && int64_t(parts.size()) == maxsplit) {
      // The remainder is kept verbatim, trailing whitespace included.
      parts.push_back(Value::string(std::string(s.substr(i))));
      return parts;
    }
    size_t j = i;
    while (j < s.size() && !space_at(j, next)) j = next;
    parts.push_back(Value::string(std::string(s.substr(i, j - i))));
    i = j;
  }
  return parts;
}

std::string str_strip(std::string_view s, const Value* chars, bool left, bool right) {
  std::vector<char32_t> set;
  bool ws = !chars || chars->is_none();
  if (!ws) set = decode(chars->as_str());
  auto strip_it = [&](char32_t c) {
    return ws ? unicode::is_space(c) : std::find(set.begin(), set.end(), c) != set.end();
  };
  // Walk code points from each end without decoding the middle.
  size_t b = 0, e = s.size();
  if (left) {
    while (b < e) {
      size_t next = b;
      if (!strip_it(unicode::decode_next(s, next))) break;
      b = next;
    }
  }
  if (right) {
    while (e > b) {
      size_t start = e - 1;
      while (start > b && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
      size_t next = start;
      char32_t c = unicode::decode_next(s, next);
      if (next != e) start = e - 1, c = 0xFFFD;  // malformed tail: treat the byte alone
      if (!strip_it(c)) break;
      e = start;
    }
  }
  return std::string(s.substr(b, e - b));
}

bool is_dict_attribute(std::string_view name) { return in(kDictAttrs, name); }

bool lookup_method(const Value& obj, std::string_view name, Value& out) {
  switch (obj.kind()) {
    case Kind::Str:
      if (!in(kStrMethods, name)) return false;
      out = bound(obj, name);
      return true;
    case Kind::Dict:
      if (in(kDictUnsafe, name)) { out = unsafe_undefined(obj, name); return true; }
      if (!in(kDictSafe, name)) return false;
      out = bound(obj, name);
      return true;
    case Kind::List:
      if (in(kListUnsafe, name)) { out = unsafe_undefined(obj, name); return true; }
      if (!in(kListSafe, name)) return false;
      out = bound(obj, name);
      return true;
    case Kind::Tuple:
      if (!in(kTupleSafe, name)) return false;
      out = bound(obj, name);
      return true;
    default:
      return false;
  }
}

bool call_method_direct(RenderState& st, const Value& obj, std::string_view name, CallArgs& args, Value& out) {
  switch (obj.kind()) {
    case Kind::Str:
      if (!in(kStrMethods, name)) return false;
      out = call_str_method(st, obj, std::string(name), args);
      return true;
    case Kind::Dict:
      if (!in(kDictSafe, name)) return false;
      out = call_dict_method(obj, std::string(name), args);
      return true;
    case Kind::List:
      if (!in(kListSafe, name)) return false;
      out = call_seq_method(obj, std::string(name), args);
      return true;
    case Kind::Tuple:
      if (!in(kTupleSafe, name)) return false;
      out = call_seq_method(obj, std::string(name), args);
      return true;
    default:
      return false;
  }
}

}  // namespace jinja
