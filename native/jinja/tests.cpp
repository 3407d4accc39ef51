// Jinja2 3.1 builtin tests (`x is name(args)`), Python semantics.
#include <cmath>

#include "callargs.h"
#include "errors.h"
#include "filters.h"
#include "operators.h"
#include "pyformat.h"
#include "unicode.h"

namespace jinja {

namespace {

using Args = CallArgs;

// Jinja2 tests are plain functions: missing/surplus arguments raise
// TypeError like Python's call.
const Value& one_arg(const char* name, Args& a) {
  size_t n = a.args.size() + a.kwargs.size();
  if (n != 1) throw_type_error(std::string(name) + " expected 2 arguments, got " + std::to_string(n + 1));
  return a.args.empty() ? a.kwargs[0].second : a.args[0];
}
void no_args(const char* name, Args& a) {
  size_t n = a.args.size() + a.kwargs.size();
  if (n) throw_type_error(std::string(name) + "() takes 1 positional argument but " + std::to_string(n + 1) + " were given");
}

bool t_defined(RenderState&, const Value& v, Args& a) { no_args("test_defined", a); return !v.is_undefined(); }
bool t_undefined(RenderState&, const Value& v, Args& a) { no_args("test_undefined", a); return v.is_undefined(); }
bool t_none(RenderState&, const Value& v, Args& a) { no_args("test_none", a); return v.is_none(); }
bool t_boolean(RenderState&, const Value& v, Args& a) { no_args("test_boolean", a); return v.kind() == Kind::Bool; }
bool t_false(RenderState&, const Value& v, Args& a) { no_args("test_false", a); return v.kind() == Kind::Bool && !v.as_bool(); }
bool t_true(RenderState&, const Value& v, Args& a) { no_args("test_true", a); return v.kind() == Kind::Bool && v.as_bool(); }
bool t_integer(RenderState&, const Value& v, Args& a) { no_args("test_integer", a); return v.is_int(); }
bool t_float(RenderState&, const Value& v, Args& a) { no_args("test_float", a); return v.kind() == Kind::Float; }
bool t_number(RenderState&, const Value& v, Args& a) { no_args("test_number", a); return v.is_number(); }
bool t_string(RenderState&, const Value& v, Args& a) { no_args("test_string", a); return v.is_str(); }
bool t_mapping(RenderState&, const Value& v, Args& a) { no_args("test_mapping", a); return v.kind() == Kind::Dict; }
bool t_escaped(RenderState&, const Value& v, Args& a) { no_args("test_escaped", a); return v.is_str() && v.str_data().markup; }

// Jinja2: len() and __getitem__ work. Undefined has both.
bool t_sequence(RenderState&, const Value& v, Args& a) {
  no_args("test_sequence", a);
  switch (v.kind()) {
    case Kind::Str: case Kind::List: case Kind::Tuple: case Kind::Dict: case Kind::Undefined: return true;
    case Kind::Object: return v.as_object().type_name() == "_GroupTuple" || v.as_object().type_name() == "range";
    default: return false;
  }
}

bool t_iterable(RenderState&, const Value& v, Args& a) {
  no_args("test_iterable", a);
  switch (v.kind()) {
    case Kind::Str: case Kind::List: case Kind::Tuple: case Kind::Dict: case Kind::Undefined: return true;
    case Kind::Object: return v.as_object().iterable();
    default: return false;
  }
}

bool t_callable(RenderState&, const Value& v, Args& a) {
  no_args("callable", a);
  switch (v.kind()) {
    case Kind::Function: case Kind::Undefined: return true;  // Undefined defines __call__
    case Kind::Object: return v.as_object().callable();
    default: return false;
  }
}

bool is_one(const Value& v) { return py_equal(v, Value::integer(1)); }

bool t_odd(RenderState&, const Value& v, Args& a) {
  no_args("test_odd", a);
  return is_one(binary_op(BinOp::Mod, v, Value::integer(2)));
}
bool t_even(RenderState&, const Value& v, Args& a) {
  no_args("test_even", a);
  return py_equal(binary_op(BinOp::Mod, v, Value::integer(2)), Value::integer(0));
}
bool t_divisibleby(RenderState&, const Value& v, Args& a) {
  ArgBinder b("test_divisibleby", a, {"num"});
  if (!b.has(0)) throw_type_error("test_divisibleby() missing 1 required positional argument: 'num'");
  return py_equal(binary_op(BinOp::Mod, v, *b.get(0)), Value::integer(0));
}

bool t_eq(RenderState&, const Value& v, Args& a) { return compare(CmpOp::Eq, v, one_arg("eq", a)); }
bool t_ne(RenderState&, const Value& v, Args& a) { return compare(CmpOp::Ne, v, one_arg("ne", a)); }
bool t_lt(RenderState&, const Value& v, Args& a) { return compare(CmpOp::Lt, v, one_arg("lt", a)); }
bool t_le(RenderState&, const Value& v, Args& a) { return compare(CmpOp::Le, v, one_arg("le", a)); }
bool t_gt(RenderState&, const Value& v, Args& a) { return compare(CmpOp::Gt, v, one_arg("gt", a)); }
bool t_ge(RenderState&, const Value& v, Args& a) { return compare(CmpOp::Ge, v, one_arg("ge", a)); }

bool t_in(RenderState&, const Value& v, Args& a) {
  ArgBinder b("test_in", a, {"seq"});
  if (!b.has(0)) throw_type_error("test_in() missing 1 required positional argument: 'seq'");
  return contains(*b.get(0), v);
}

// Python `is`: singletons and small cached ints are identical; other values
// only when they are the very same object.
bool t_sameas(RenderState&, const Value& v, Args& a) {
  ArgBinder b("test_sameas", a, {"other"});
  if (!b.has(0)) throw_type_error("test_sameas() missing 1 required positional argument: 'other'");
  const Value& o = *b.get(0);
  if (v.kind() != o.kind()) return false;
  switch (v.kind()) {
    case Kind::None: return true;
    case Kind::Bool: return v.as_bool() == o.as_bool();
    case Kind::Int: return v.as_int() == o.as_int() && v.as_int() >= -5 && v.as_int() <= 256;
    case Kind::Float: case Kind::BigInt: return false;
    case Kind::Str:
      return v.identity() == o.identity() || (v.as_str() == o.as_str() && v.str_data().length <= 1 && v.str_data().ascii);
    case Kind::Undefined: return v.identity() == o.identity() && v.identity() != nullptr;
    default: return v.identity() == o.identity();
  }
}

bool t_lower(RenderState&, const Value& v, Args& a) {
  no_args("test_lower", a);
  Value m = Value::string(py_str(v));
  std::string s = m.as_str();
  bool cased = false;
  for (size_t i = 0; i < s.size();) {
    uint16_t p = unicode::props(unicode::decode_next(s, i));
    if (p & (unicode::kUpper | unicode::kTitle)) return false;
    if (p & unicode::kLower) cased = true;
  }
  return cased;
}
bool t_upper(RenderState&, const Value& v, Args& a) {
  no_args("test_upper", a);
  std::string s = py_str(v);
  bool cased = false;
  for (size_t i = 0; i < s.size();) {
    uint16_t p = unicode::props(unicode::decode_next(s, i));
    if (p & (unicode::kLower | unicode::kTitle)) return false;
    if (p & unicode::kUpper) cased = true;
  }
  return cased;
}

bool t_filter(RenderState&, const Value& v, Args& a) {
  no_args("test_filter", a);
  return v.is_str() && find_filter(v.as_str()) != nullptr;
}
bool t_test(RenderState&, const Value& v, Args& a) {
  no_args("test_test", a);
  return v.is_str() && find_test(v.as_str()) != nullptr;
}

struct TestEntry { const char* name; TestFn fn; };
const TestEntry kTests[] = {
    {"!=", t_ne}, {"<", t_lt}, {"<=", t_le}, {"==", t_eq}, {">", t_gt}, {">=", t_ge},
    {"boolean", t_boolean}, {"callable", t_callable}, {"defined", t_defined}, {"divisibleby", t_divisibleby},
    {"eq", t_eq}, {"equalto", t_eq}, {"escaped", t_escaped}, {"even", t_even}, {"false", t_false},
    {"filter", t_filter}, {"float", t_float}, {"ge", t_ge}, {"greaterthan", t_gt}, {"gt", t_gt}, {"in", t_in},
    {"integer", t_integer}, {"iterable", t_iterable}, {"le", t_le}, {"lessthan", t_lt}, {"lower", t_lower},
    {"lt", t_lt}, {"mapping", t_mapping}, {"ne", t_ne}, {"none", t_none}, {"number", t_number}, {"odd", t_odd},
    {"sameas", t_sameas}, {"sequence", t_sequence}, {"string", t_string}, {"test", t_test}, {"true", t_true},
    {"undefined", t_undefined}, {"upper", t_upper},
};

}  // namespace

TestFn find_test(std::string_view name) {
  for (const auto& e : kTests)
    if (name == e.name) return e.fn;
  return nullptr;
}

}  // namespace jinja
