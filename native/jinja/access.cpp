// Attribute/item lookup, slicing and calls with Jinja2's sandboxed rules.
#include <cmath>

#include "bigint.h"
#include "errors.h"
#include "methods.h"
#include "operators.h"
#include "pyformat.h"
#include "unicode.h"

namespace jinja {

namespace {

// Jinja2's object_type_repr: "None" for None, "<type> object" otherwise.
std::string object_type_repr(const Value& v) {
  if (v.is_none()) return "None";
  return type_name(v) + " object";
}

Value missing_attr(const Value& obj, std::string_view name) {
  // A dict's message is built only if an error needs it (see UndefinedData);
  // templates probe missing keys (`message['tool_calls']`) all the time.
  if (obj.kind() == Kind::Dict) return Value::missing_dict_key(name);
  std::string hint = "'" + object_type_repr(obj) + "' has no attribute '" + std::string(name) + "'";
  return Value::undefined(std::move(hint));
}

Value missing_item(const Value& obj, const Value& key) {
  if (key.is_str()) return missing_attr(obj, key.as_str());
  return Value::undefined(object_type_repr(obj) + " has no element " + py_repr(key));
}

// Every Python object has dunder attributes; the sandbox refuses them all.
bool is_dunder(std::string_view n) { return n.size() >= 4 && n.substr(0, 2) == "__" && n.substr(n.size() - 2) == "__"; }

// obj[key] with Python semantics; false on the TypeError/LookupError cases
// that Jinja2 turns into an undefined.
bool item_lookup(const Value& obj, const Value& key, Value& out) {
  switch (obj.kind()) {
    case Kind::Dict: {
      if (key.kind() == Kind::List || key.kind() == Kind::Dict) return false;  // unhashable -> TypeError
      const Value* v = obj.as_dict().find(key);
      if (!v) return false;
      out = *v;
      return true;
    }
    case Kind::List: case Kind::Tuple: case Kind::Str: {
      if (key.kind() != Kind::Int && key.kind() != Kind::Bool) return false;
      int64_t i = key.kind() == Kind::Bool ? key.as_bool() : key.as_int();
      if (obj.is_str()) {
        const StrData& sd = obj.str_data();
        int64_t n = int64_t(sd.length);
        if (i < 0) i += n;
        if (i < 0 || i >= n) return false;
        if (sd.ascii) { out = Value::string(std::string(1, sd.utf8[size_t(i)])); return true; }
        size_t b = unicode::byte_offset(sd.utf8, size_t(i)), e = b;
        unicode::decode_next(sd.utf8, e);
        out = Value::string(sd.utf8.substr(b, e - b));
        return true;
      }
      const auto& items = obj.items();
      int64_t n = int64_t(items.size());
      if (i < 0) i += n;
      if (i < 0 || i >= n) return false;
      out = items[size_t(i)];
      return true;
    }
    case Kind::Object: {
      // Named tuples (groupby results) and ranges are subscriptable.
      std::string tn = obj.as_object().type_name();
      if ((tn != "_GroupTuple" && tn != "range") || key.kind() != Kind::Int) return false;
      auto els = obj.as_object().elements();
      int64_t i = key.as_int();
      if (i < 0) i += int64_t(els.size());
      if (i < 0 || i >= int64_t(els.size())) return false;
      out = els[size_t(i)];
      return true;
    }
    default:
      return false;
  }
}

// Python getattr for our value kinds; false when there is no such attribute.
bool attr_lookup(RenderState& st, const Value& obj, std::string_view name, Value& out) {
  if (is_dunder(name)) { out = unsafe_undefined(obj, name); return true; }
  if (obj.kind() == Kind::Object) {
    Value v = obj.as_object().get_attr(st, name);
    if (v.is_undefined() && !v.undefined_data()) return false;
    // The sandbox refuses every attribute whose name starts with '_' once
    // getattr found it ({% set ns._x = 1 %}{{ ns._x }} prints nothing).
    out = !name.empty() && name[0] == '_' ? unsafe_undefined(obj, name) : v;
    return true;
  }
  if (lookup_method(obj, name, out)) return true;
  // Numbers expose a few data attributes templates might read.
  if (obj.is_int() || obj.kind() == Kind::Bool) {
    if (name == "real" || name == "numerator") { out = obj.kind() == Kind::Bool ? Value::integer(obj.as_bool()) : obj; return true; }
    if (name == "imag") { out = Value::integer(0); return true; }
    if (name == "denominator") { out = Value::integer(1); return true; }
  }
  if (obj.kind() == Kind::Float) {
    if (name == "real") { out = obj; return true; }
    if (name == "imag") { out = Value::floating(0.0); return true; }
  }
  return false;
}

}  // namespace

Value get_attr(RenderState& st, const Value& obj, std::string_view name) {
  if (obj.is_undefined()) fail_undefined(obj);
  // The hot case, `message.role`: a dict and a name that is neither a dunder
  // nor a dict method goes straight to the item (what attr_lookup would
  // conclude after its checks).
  if (obj.kind() == Kind::Dict && !is_dunder(name) && !is_dict_attribute(name)) {
    if (const Value* v = obj.as_dict().find_str(name)) return *v;
    return Value::missing_dict_key(name);
  }
  Value out;
  if (attr_lookup(st, obj, name, out)) return out;
  if (obj.kind() == Kind::Dict) {
    if (const Value* v = obj.as_dict().find_str(name)) return *v;
  }
  return missing_attr(obj, name);
}

Value get_python_attr(RenderState& st, const Value& obj, std::string_view name) {
  if (obj.is_undefined()) fail_undefined(obj);
  Value out;
  if (attr_lookup(st, obj, name, out)) return out;
  return missing_attr(obj, name);
}

Value get_item(RenderState& st, const Value& obj, const Value& key) {
  if (obj.is_undefined()) fail_undefined(obj);
  Value out;
  if (item_lookup(obj, key, out)) return out;
  if (key.is_str()) {
    if (attr_lookup(st, obj, key.as_str(), out)) return out;
  }
  return missing_item(obj, key);
}

Value slice(const Value& obj, const std::optional<Value>& start, const std::optional<Value>& stop,
            const std::optional<Value>& step) {
  if (obj.is_undefined()) fail_undefined(obj);
  auto idx = [](const std::optional<Value>& v, bool& ok) -> std::optional<int64_t> {
    if (!v || v->is_none()) return std::nullopt;
    if (v->kind() == Kind::Int) return v->as_int();
    if (v->kind() == Kind::Bool) return int64_t(v->as_bool());
    if (v->kind() == Kind::BigInt) return v->as_bigint().negative ? INT64_MIN / 4 : INT64_MAX / 4;
    ok = false;
    return std::nullopt;
  };
  bool ok = true;
  auto a = idx(start, ok), b = idx(stop, ok), c = idx(step, ok);
  auto slice_repr = [&]() {
    auto r = [](const std::optional<Value>& v) { return v ? py_repr(*v) : std::string("None"); };
    return "slice(" + r(start) + ", " + r(stop) + ", " + r(step) + ")";
  };
  bool seq = obj.is_str() || obj.is_sequence_like();
  if (!ok || !seq) return Value::undefined(object_type_repr(obj) + " has no element " + slice_repr());
  int64_t st = c.value_or(1);
  if (st == 0) throw_runtime_error("ValueError", "slice step cannot be zero");
  int64_t n = obj.is_str() ? int64_t(obj.str_data().length) : int64_t(obj.items().size());
  // PySlice_AdjustIndices
  int64_t lo, hi;
  auto norm = [&](std::optional<int64_t> v, int64_t def, bool is_start) {
    if (!v) return def;
    int64_t x = *v;
    if (x < 0) {
      x += n;
      if (x < 0) x = st < 0 ? -1 : 0;
    } else if (x >= n) {
      x = st < 0 ? n - 1 : n;
    }
    (void)is_start;
    return x;
  };
  lo = norm(a, st < 0 ? n - 1 : 0, true);
  hi = norm(b, st < 0 ? -1 : n, false);
  std::vector<size_t> picks;
  if (st > 0) for (int64_t i = lo; i < hi; i += st) picks.push_back(size_t(i));
  else for (int64_t i = lo; i > hi; i += st) picks.push_back(size_t(i));
  if (obj.is_str()) {
    const StrData& sd = obj.str_data();
    if (st == 1) {
      if (picks.empty()) return Value::string(std::string());
      size_t b0 = sd.ascii ? picks.front() : unicode::byte_offset(sd.utf8, picks.front());
      size_t b1 = sd.ascii ? picks.back() + 1 : unicode::byte_offset(sd.utf8, picks.back() + 1);
      return Value::string(sd.utf8.substr(b0, b1 - b0));
    }
    auto u = unicode::decode(sd.utf8);
    std::string out;
    for (size_t i : picks)
      if (i < u.size()) unicode::append_utf8(out, u[i]);
    return Value::string(std::move(out));
  }
  std::vector<Value> out;
  out.reserve(picks.size());
  for (size_t i : picks) out.push_back(obj.items()[i]);
  return obj.kind() == Kind::List ? Value::list(std::move(out)) : Value::tuple(std::move(out));
}

Value call_value(RenderState& st, const Value& callee, CallArgs& args) {
  switch (callee.kind()) {
    case Kind::Undefined: fail_undefined(callee);
    case Kind::Function: {
      st.tick();
      const FunctionData& f = callee.as_function();
      if (!f.fn) throw_type_error("'" + f.name + "' is not callable");
      return f.fn(st, args);
    }
    case Kind::Object:
      if (callee.as_object().callable()) {
        st.tick();
        return callee.as_object().call(st, args);
      }
      [[fallthrough]];
    default:
      throw_type_error("'" + type_name(callee) + "' object is not callable");
  }
}

}  // namespace jinja
