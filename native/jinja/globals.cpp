// Global functions every template sees: Jinja2's defaults (range, dict,
// namespace, cycler, joiner, lipsum) plus transformers' raise_exception and
// strftime_now.
#include "globals.h"

#include <clocale>
#include <cstring>
#include <ctime>

#include "callargs.h"
#include "errors.h"
#include "operators.h"
#include "pyformat.h"

namespace jinja {

namespace {

constexpr int64_t kMaxRange = 100000;  // the sandbox's MAX_RANGE

int64_t as_index(const Value& v) {
  if (v.kind() == Kind::Int) return v.as_int();
  if (v.kind() == Kind::Bool) return v.as_bool();
  if (v.kind() == Kind::BigInt) throw_runtime_error("OverflowError", "Python int too large to convert to C ssize_t");
  throw_type_error("'" + type_name(v) + "' object cannot be interpreted as an integer");
}

class RangeObject : public Object {
 public:
  RangeObject(int64_t a, int64_t b, int64_t s) : start_(a), stop_(b), step_(s) {}
  std::string type_name() const override { return "range"; }
  bool iterable() const override { return true; }
  std::vector<Value> elements() const override {
    std::vector<Value> out;
    if (step_ > 0) for (int64_t i = start_; i < stop_; i += step_) out.push_back(Value::integer(i));
    else for (int64_t i = start_; i > stop_; i += step_) out.push_back(Value::integer(i));
    return out;
  }
  std::string repr() const override {
    std::string s = "range(" + std::to_string(start_) + ", " + std::to_string(stop_);
    if (step_ != 1) s += ", " + std::to_string(step_);
    return s + ")";
  }
  Value get_attr(RenderState&, std::string_view n) const override {
    if (n == "start") return Value::integer(start_);
    if (n == "stop") return Value::integer(stop_);
    if (n == "step") return Value::integer(step_);
    return Value();
  }

 private:
  int64_t start_, stop_, step_;
};

Value fn_range(RenderState& st, CallArgs& a) {
  if (!a.kwargs.empty()) throw_type_error("range() takes no keyword arguments");
  if (a.args.empty()) throw_type_error("range expected at least 1 argument, got 0");
  if (a.args.size() > 3) throw_type_error("range expected at most 3 arguments, got " + std::to_string(a.args.size()));
  int64_t start = 0, stop, step = 1;
  if (a.args.size() == 1) {
    stop = as_index(a.args[0]);
  } else {
    start = as_index(a.args[0]);
    stop = as_index(a.args[1]);
    if (a.args.size() == 3) step = as_index(a.args[2]);
  }
  if (step == 0) throw_runtime_error("ValueError", "range() arg 3 must not be zero");
  __int128 n = 0;
  if (step > 0 && stop > start) n = ((__int128)stop - start + step - 1) / step;
  if (step < 0 && stop < start) n = ((__int128)start - stop - step - 1) / -(__int128)step;
  if (n > kMaxRange || n > (__int128)st.limits.max_collection)
    throw_runtime_error("OverflowError", "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000).");
  return Value::object(std::make_shared<RangeObject>(start, stop, step));
}

Value fn_dict(RenderState&, CallArgs& a) {
  auto d = std::make_shared<DictData>();
  if (a.args.size() > 1) throw_type_error("dict expected at most 1 argument, got " + std::to_string(a.args.size()));
  if (a.args.size() == 1) {
    const Value& src = a.args[0];
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
  std::string repr() const override {
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

Value fn_namespace(RenderState&, CallArgs& a) {
  auto ns = std::make_shared<Namespace>();
  CallArgs copy = a;
  RenderState dummy;
  Value init = fn_dict(dummy, copy);
  for (const auto& e : init.as_dict().entries()) {
    if (!e.first.is_str()) throw_type_error("keywords must be strings");
    ns->attrs_.set(e.first, e.second);
  }
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

std::string py_strftime(const std::string& fmt, const DateTime& t) {
  // Python substitutes %f, %z and %Z itself (naive datetimes: empty offsets)
  // and hands the rest to the C library's strftime in the C locale.
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
  std::tm tm{};
  tm.tm_year = t.year - 1900;
  tm.tm_mon = t.month - 1;
  tm.tm_mday = t.day;
  tm.tm_hour = t.hour;
  tm.tm_min = t.minute;
  tm.tm_sec = t.second;
  int64_t days = days_from_civil(t.year, unsigned(t.month), unsigned(t.day));
  tm.tm_wday = int(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  tm.tm_yday = int(days - days_from_civil(t.year, 1, 1));
  tm.tm_isdst = -1;
  static locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t(0));
  std::string out(c_fmt.size() * 4 + 64, '\0');
  for (int attempt = 0; attempt < 8; ++attempt) {
    size_t n = strftime_l(out.data(), out.size(), c_fmt.c_str(), &tm, c_locale);
    if (n > 0 || c_fmt.empty()) { out.resize(n); return out; }
    out.resize(out.size() * 4);
  }
  return std::string();
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
      return Value::object(std::make_shared<Cycler>(a.args));
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
