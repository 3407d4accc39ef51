// Global functions every template sees: Jinja2's defaults (range, dict,
// namespace, cycler, joiner, lipsum) plus transformers' raise_exception and
// strftime_now.
#include "globals.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

#include "bigint.h"
#include "callargs.h"
#include "errors.h"
#include "operators.h"
#include "pyformat.h"

namespace jinja {

namespace {

constexpr int64_t kMaxRange = 100000;  // the sandbox's MAX_RANGE

// range() arguments: Python ints (exact, any size) or bools.
Value as_index(const Value& v) {
  if (v.kind() == Kind::Int || v.kind() == Kind::BigInt) return v;
  if (v.kind() == Kind::Bool) return Value::integer(v.as_bool());
  throw_type_error("'" + type_name(v) + "' object cannot be interpreted as an integer");
}

// Python's range: start + k*step for k < count. The count is at most
// MAX_RANGE, so elements are computed from the index instead of by repeated
// addition (which would overflow int64 near its ends).
class RangeObject : public Object {
 public:
  RangeObject(Value a, Value b, Value s, uint64_t n) : start_(std::move(a)), stop_(std::move(b)), step_(std::move(s)), count_(n) {}
  std::string type_name() const override { return "range"; }
  bool iterable() const override { return true; }
  std::vector<Value> elements() const override {
    work(count_);
    std::vector<Value> out;
    out.reserve(count_);
    if (start_.kind() == Kind::Int && step_.kind() == Kind::Int) {
      // Each element lies between start and stop, so it fits int64;
      // start + k*step computed modulo 2^64 is therefore that element
      // exactly, whatever the intermediate product.
      const uint64_t x = uint64_t(start_.as_int()), st = uint64_t(step_.as_int());
      for (uint64_t k = 0; k < count_; ++k) out.push_back(Value::integer(int64_t(x + k * st)));
      return out;
    }
    Value x = start_;
    for (uint64_t k = 0; k < count_; ++k) {
      out.push_back(x);
      x = int_add(x, step_);
    }
    return out;
  }
  std::string repr() const override {
    std::string s = "range(" + py_repr(start_) + ", " + py_repr(stop_);
    if (!(step_.kind() == Kind::Int && step_.as_int() == 1)) s += ", " + py_repr(step_);
    return s + ")";
  }
  Value get_attr(RenderState&, std::string_view n) const override {
    if (n == "start") return start_;
    if (n == "stop") return stop_;
    if (n == "step") return step_;
    return Value();
  }

 private:
  Value start_, stop_, step_;
  uint64_t count_;
};

Value fn_range(RenderState& st, CallArgs& a) {
  if (!a.kwargs.empty()) throw_type_error("range() takes no keyword arguments");
  if (a.args.empty()) throw_type_error("range expected at least 1 argument, got 0");
  if (a.args.size() > 3) throw_type_error("range expected at most 3 arguments, got " + std::to_string(a.args.size()));
  Value start = Value::integer(0), stop, step = Value::integer(1);
  if (a.args.size() == 1) {
    stop = as_index(a.args[0]);
  } else {
    start = as_index(a.args[0]);
    stop = as_index(a.args[1]);
    if (a.args.size() == 3) step = as_index(a.args[2]);
  }
  int step_sign = int_cmp(step, Value::integer(0));
  if (step_sign == 0) throw_runtime_error("ValueError", "range() arg 3 must not be zero");
  // len(range) = ceil((stop - start) / step) when positive, computed exactly:
  // the sandbox's safe_range calls len() first (OverflowError past ssize_t)
  // and then refuses more than MAX_RANGE elements.
  Value span = step_sign > 0 ? int_sub(stop, start) : int_sub(start, stop);
  Value mag = step_sign > 0 ? step : int_sub(Value::integer(0), step);
  uint64_t n = 0;
  if (int_cmp(span, Value::integer(0)) > 0) {
    Value len = int_floordiv(int_add(span, int_sub(mag, Value::integer(1))), mag);
    if (len.kind() != Kind::Int) throw_runtime_error("OverflowError", "Python int too large to convert to C ssize_t");
    n = uint64_t(len.as_int());
  }
  if (n > uint64_t(kMaxRange) || n > uint64_t(st.limits.max_collection))
    throw_runtime_error("OverflowError", "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  return Value::object(std::make_shared<RangeObject>(std::move(start), std::move(stop), std::move(step), n));
}

// Fills `out` as dict(*args, **kwargs) would.
void fill_dict(DictData& out, const CallArgs& a) {
  DictData* d = &out;
  if (a.args.size() > 1) throw_type_error("dict expected at most 1 argument, got " + std::to_string(a.args.size()));
  if (a.args.size() == 1) {
    const Value& src = a.args[0];
    if (src.is_undefined()) fail_undefined(src);  // dict() probes .keys, which raises
    if (src.kind() == Kind::Dict) {
      for (const auto& e : src.as_dict().entries()) d->set(e.first, e.second);
    } else {
      size_t i = 0;
      for (const Value& p : iterate(src)) {
        auto kv = iterate(p);
        if (kv.size() != 2)
          throw_runtime_error("ValueError", "dictionary update sequence element #" + std::to_string(i) + " has length " +
                                                std::to_string(kv.size()) + "; 2 is required");
        d->set(kv[0], kv[1]);
        ++i;
      }
    }
  }
  for (auto& kv : a.kwargs) d->set(Value::string(kv.first), kv.second);
}

Value fn_dict(RenderState&, CallArgs& a) {
  auto d = std::make_shared<DictData>();
  fill_dict(*d, a);
  return Value::dict(std::move(d));
}

class Namespace : public Object {
 public:
  std::string type_name() const override { return "Namespace"; }
  Value get_attr(RenderState&, std::string_view name) const override {
    const Value* v = attrs_.find_str(name);
    return v ? *v : Value();
  }
  bool set_attr(std::string_view name, Value value) override {
    attrs_.set(Value::string(std::string(name)), std::move(value));
    return true;
  }
  size_t nesting() const override { return attrs_.depth(); }
  void drop_refs() override { attrs_.clear(); }
  std::string repr() const override {
    // Python prints the attribute dict's repr; the marker sits at that dict.
    ReprEnter enter(&attrs_);
    if (enter.recursive()) return "<Namespace {...}>";
    std::string s = "<Namespace {";
    bool first = true;
    for (const auto& e : attrs_.entries()) {
      if (!first) s += ", ";
      first = false;
      append_py_repr(s, e.first);
      s += ": ";
      append_py_repr(s, e.second);
    }
    return s + "}>";
  }
  DictData attrs_;
};

// namespace(...) takes dict()'s arguments; the attributes are filled in
// place (no intermediate dict), then checked for non-str keys in order.
Value fn_namespace(RenderState& st, CallArgs& a) {
  auto ns = std::make_shared<Namespace>();
  st.mutable_objects.push_back(ns);
  fill_dict(ns->attrs_, a);
  for (const auto& e : ns->attrs_.entries())
    if (!e.first.is_str()) throw_type_error("keywords must be strings");
  return Value::object(ns);
}

Value make_builtin(std::string name, std::string repr, NativeFn fn) {
  auto f = std::make_shared<FunctionData>();
  f->name = std::move(name);
  f->repr = std::move(repr);
  f->fn = std::move(fn);
  return Value::function(std::move(f));
}

class Cycler : public Object {
 public:
  explicit Cycler(std::vector<Value> items) : items_(std::move(items)) {}
  std::string type_name() const override { return "Cycler"; }
  std::string repr() const override { return "<jinja2.utils.Cycler object at 0x7f0000000000>"; }
  Value get_attr(RenderState&, std::string_view n) const override {
    if (n == "current") return items_[pos_];
    auto self = const_cast<Cycler*>(this);
    if (n == "next" || n == "__next__")
      return make_builtin("next", "<bound method Cycler.next of <jinja2.utils.Cycler object at 0x7f0000000000>>",
                          [self](RenderState&, CallArgs& a) {
                            arg_count("next", a, 0, 0);
                            Value v = self->items_[self->pos_];
                            self->pos_ = (self->pos_ + 1) % self->items_.size();
                            return v;
                          });
    if (n == "reset")
      return make_builtin("reset", "<bound method Cycler.reset of <jinja2.utils.Cycler object at 0x7f0000000000>>",
                          [self](RenderState&, CallArgs& a) {
                            arg_count("reset", a, 0, 0);
                            self->pos_ = 0;
                            return Value::none();
                          });
    if (n == "items") return Value::tuple(items_);
    return Value();
  }

 private:
  std::vector<Value> items_;
  size_t pos_ = 0;
};

class Joiner : public Object {
 public:
  explicit Joiner(std::string sep) : sep_(std::move(sep)) {}
  std::string type_name() const override { return "Joiner"; }
  std::string repr() const override { return "<jinja2.utils.Joiner object at 0x7f0000000000>"; }
  bool callable() const override { return true; }
  Value call(RenderState&, CallArgs& a) override {
    arg_count("__call__", a, 0, 0);
    if (!used_) { used_ = true; return Value::string(""); }
    return Value::string(sep_);
  }

 private:
  std::string sep_;
  bool used_ = false;
};

// Days since 1970-01-01 of a proleptic Gregorian date.
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = unsigned(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + int64_t(doe) - 719468;
}

}  // namespace

namespace {

const char* const kDays[] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};
const char* const kMonths[] = {"January", "February", "March", "April", "May", "June", "July",
                               "August", "September", "October", "November", "December"};

struct Broken {
  int64_t year;
  int month, day, hour, minute, second, wday, yday;  // wday 0 = Sunday, yday 0-based
};

// ISO 8601 week-numbering year and week.
void iso_week(const Broken& b, int64_t& iso_year, int& week) {
  int wday_mon = (b.wday + 6) % 7;  // 0 = Monday
  int64_t y = b.year;
  int w = (b.yday - wday_mon + 10) / 7;
  auto weeks_in = [](int64_t year) {
    int64_t jan1 = days_from_civil(year, 1, 1);
    int jan1_wday = int(((jan1 % 7) + 11) % 7);  // 0 = Sunday
    bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return (jan1_wday == 4 || (leap && jan1_wday == 3)) ? 53 : 52;
  };
  if (w < 1) {
    --y;
    w = weeks_in(y);
  } else if (w > weeks_in(y)) {
    ++y;
    w = 1;
  }
  iso_year = y;
  week = w;
}

void emit_number(std::string& out, int64_t v, int width, char pad, char flag) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  if (flag == '-') width = 0;
  char p = flag == '_' ? ' ' : flag == '0' ? '0' : pad;
  if (v < 0) out.push_back('-');
  for (int i = int(digits.size()) + (v < 0); i < width; ++i) out.push_back(p);
  out += digits;
}

void emit_text(std::string& out, std::string text, int width, char flag, bool upper) {
  if (upper) for (char& c : text) c = char(std::toupper(static_cast<unsigned char>(c)));
  for (int i = int(text.size()); i < width; ++i) out.push_back(flag == '0' ? '0' : ' ');
  out += text;
}

void format_into(std::string& out, const std::string& fmt, const Broken& b, int depth);

void directive(std::string& out, char c, const Broken& b, char flag, int width, bool upper, bool swap, int depth) {
  auto num = [&](int64_t v, int w, char pad = '0') { emit_number(out, v, std::max(w, width), pad, flag); };
  auto text = [&](const std::string& t) { emit_text(out, t, width, flag, upper || swap); };
  auto sub = [&](const char* f) { if (depth < 3) format_into(out, f, b, depth + 1); };
  int hour12 = b.hour % 12 == 0 ? 12 : b.hour % 12;
  switch (c) {
    case 'a': text(std::string(kDays[b.wday], 3)); break;
    case 'A': text(kDays[b.wday]); break;
    case 'b': case 'h': text(std::string(kMonths[b.month - 1], 3)); break;
    case 'B': text(kMonths[b.month - 1]); break;
    case 'c': sub("%a %b %e %H:%M:%S %Y"); break;
    case 'C': num(b.year / 100, 2); break;
    case 'd': num(b.day, 2); break;
    case 'D': case 'x': sub("%m/%d/%y"); break;
    case 'e': num(b.day, 2, ' '); break;
    case 'F': sub("%Y-%m-%d"); break;
    case 'g': case 'G': case 'V': {
      int64_t iy;
      int wk;
      iso_week(b, iy, wk);
      if (c == 'V') num(wk, 2);
      else if (c == 'g') num(((iy % 100) + 100) % 100, 2);
      else num(iy, 1);
      break;
    }
    case 'H': num(b.hour, 2); break;
    case 'I': num(hour12, 2); break;
    case 'j': num(b.yday + 1, 3); break;
    case 'k': num(b.hour, 2, ' '); break;
    case 'l': num(hour12, 2, ' '); break;
    case 'm': num(b.month, 2); break;
    case 'M': num(b.minute, 2); break;
    case 'n': out.push_back('\n'); break;
    case 'p': emit_text(out, b.hour < 12 ? (swap ? "am" : "AM") : (swap ? "pm" : "PM"), width, flag, false); break;
    case 'P': emit_text(out, b.hour < 12 ? "am" : "pm", width, flag, upper); break;
    case 'r': sub("%I:%M:%S %p"); break;
    case 'R': sub("%H:%M"); break;
    case 's': num(days_from_civil(b.year, unsigned(b.month), unsigned(b.day)) * 86400 + b.hour * 3600 + b.minute * 60 + b.second, 1); break;
    case 'S': num(b.second, 2); break;
    case 't': out.push_back('\t'); break;
    case 'T': case 'X': sub("%H:%M:%S"); break;
    case 'u': num(b.wday == 0 ? 7 : b.wday, 1); break;
    case 'U': num((b.yday + 7 - b.wday) / 7, 2); break;
    case 'w': num(b.wday, 1); break;
    case 'W': num((b.yday + 7 - (b.wday + 6) % 7) / 7, 2); break;
    case 'y': num(((b.year % 100) + 100) % 100, 2); break;
    case 'Y': num(b.year, 1); break;
    case '%': out.push_back('%'); break;
    default: break;
  }
}

// strftime in the C locale with glibc's directive set and flags (_ - 0 ^ #,
// field width, E/O modifiers ignored); Python on Linux defers to glibc.
void format_into(std::string& out, const std::string& fmt, const Broken& b, int depth) {
  for (size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%' || i + 1 >= fmt.size()) { out.push_back(fmt[i]); continue; }
    size_t start = i++;
    char flag = 0;
    bool upper = false, swap = false;
    while (i < fmt.size() && (fmt[i] == '_' || fmt[i] == '-' || fmt[i] == '0' || fmt[i] == '^' || fmt[i] == '#')) {
      if (fmt[i] == '^') upper = true;
      else if (fmt[i] == '#') swap = true;
      else flag = fmt[i];
      ++i;
    }
    int width = 0;
    while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') width = std::min(width * 10 + (fmt[i++] - '0'), 4096);
    while (i < fmt.size() && (fmt[i] == 'E' || fmt[i] == 'O')) ++i;
    if (i >= fmt.size()) { out.append(fmt, start, std::string::npos); break; }
    char c = fmt[i];
    if (!std::strchr("aAbhBcCdDxeFgGVHIjklmMnpPrRsStTXuUwWyY%", c)) {
      out.append(fmt, start, i - start + 1);  // unknown: copied verbatim like glibc
      continue;
    }
    directive(out, c, b, flag, width, upper, swap, depth);
  }
}

}  // namespace

std::string py_strftime(const std::string& fmt, const DateTime& t) {
  // Python substitutes %f, %z and %Z itself (naive datetimes: empty offsets)
  // and hands the rest to the platform strftime; we implement glibc's.
  std::string c_fmt;
  for (size_t i = 0; i < fmt.size(); ++i) {
    char c = fmt[i];
    if (c != '%' || i + 1 >= fmt.size()) { c_fmt.push_back(c); continue; }
    char n = fmt[++i];
    if (n == 'f') {
      char buf[16];
      std::snprintf(buf, sizeof buf, "%06d", t.microsecond);
      c_fmt += buf;
    } else if (n == 'z' || n == 'Z') {
      // naive datetime: nothing
    } else {
      c_fmt.push_back('%');
      c_fmt.push_back(n);
    }
  }
  Broken b{t.year, t.month, t.day, t.hour, t.minute, t.second, 0, 0};
  if (b.month < 1 || b.month > 12) b.month = 1;
  int64_t days = days_from_civil(t.year, unsigned(b.month), unsigned(t.day));
  b.wday = int(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  b.yday = int(days - days_from_civil(t.year, 1, 1));
  std::string out;
  format_into(out, c_fmt, b, 0);
  return out;
}

const DictData& default_globals() {
  static const DictData* globals = [] {
    auto* d = new DictData();
    auto add = [&](const char* name, std::string repr, NativeFn fn) {
      d->set(Value::string(name), make_builtin(name, std::move(repr), std::move(fn)));
    };
    add("range", "<class 'range'>", fn_range);
    add("dict", "<class 'dict'>", fn_dict);
    add("namespace", "<class 'jinja2.utils.Namespace'>", fn_namespace);
    add("cycler", "<class 'jinja2.utils.Cycler'>", [](RenderState&, CallArgs& a) {
      no_kwargs("Cycler", a);
      if (a.args.empty()) throw_runtime_error("RuntimeError", "at least one item has to be provided");
      return Value::object(std::make_shared<Cycler>(std::vector<Value>(a.args.begin(), a.args.end())));
    });
    add("joiner", "<class 'jinja2.utils.Joiner'>", [](RenderState&, CallArgs& a) {
      ArgBinder b("Joiner", a, {"sep"});
      return Value::object(std::make_shared<Joiner>(py_str(b.value(0, Value::string(", ")))));
    });
    add("lipsum", "<function generate_lorem_ipsum at 0x7f0000000000>", [](RenderState&, CallArgs&) -> Value {
      throw_runtime_error("TemplateRuntimeError", "lipsum() is not supported (its output is random)");
    });
    add("raise_exception", "<function raise_exception at 0x7f0000000000>", [](RenderState&, CallArgs& a) -> Value {
      ArgBinder b("raise_exception", a, {"message"});
      if (!b.has(0)) throw_type_error("raise_exception() missing 1 required positional argument: 'message'");
      throw Error(ErrorKind::Raised, "TemplateError", py_str(*b.get(0)));
    });
    add("strftime_now", "<function strftime_now at 0x7f0000000000>", [](RenderState& st, CallArgs& a) -> Value {
      ArgBinder b("strftime_now", a, {"format"});
      if (!b.has(0)) throw_type_error("strftime_now() missing 1 required positional argument: 'format'");
      const Value& f = *b.get(0);
      if (!f.is_str()) throw_type_error("strftime() argument 1 must be str, not " + type_name(f));
      return Value::string(py_strftime(f.as_str(), st.now));
    });
    d->freeze();
    return d;
  }();
  return *globals;
}

}  // namespace jinja
