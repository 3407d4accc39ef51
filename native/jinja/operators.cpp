// Python semantics of arithmetic, comparison, truthiness, len, `in` and
// iteration over template values.
#include "operators.h"

#include <cmath>

#include "bigint.h"
#include "errors.h"
#include "pyformat.h"
#include "search.h"
#include "strformat.h"
#include "unicode.h"

namespace jinja {

std::string type_name(const Value& v) {
  switch (v.kind()) {
    case Kind::Undefined: return "Undefined";
    case Kind::None: return "NoneType";
    case Kind::Bool: return "bool";
    case Kind::Int: case Kind::BigInt: return "int";
    case Kind::Float: return "float";
    case Kind::Str: return v.str_data().markup ? "Markup" : "str";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
    case Kind::Function: return v.as_function().fn_kind == FunctionData::FnKind::Macro ? "Macro" : "builtin_function_or_method";
    case Kind::Object: return v.as_object().type_name();
  }
  return "object";
}

[[noreturn]] void fail_undefined(const Value& u) {
  const UndefinedData* d = u.undefined_data();
  if (!d) throw_undefined_error("None is undefined");
  if (d->error_type == "SecurityError") throw_security_error(d->message());
  throw_runtime_error(d->error_type, d->message());
}

bool truthy(const Value& v) {
  switch (v.kind()) {
    case Kind::Undefined: case Kind::None: return false;
    case Kind::Bool: return v.as_bool();
    case Kind::Int: return v.as_int() != 0;
    case Kind::BigInt: return true;
    case Kind::Float: return v.as_float() != 0.0;
    case Kind::Str: return !v.as_str().empty();
    case Kind::List: case Kind::Tuple: return !v.items().empty();
    case Kind::Dict: return v.as_dict().size() != 0;
    case Kind::Function: return true;
    case Kind::Object: return !v.as_object().iterable() || !v.as_object().elements().empty();
  }
  return false;
}

static bool int_like(const Value& v) { return v.kind() == Kind::Int || v.kind() == Kind::BigInt || v.kind() == Kind::Bool; }
static double to_double(const Value& v) { return v.kind() == Kind::Float ? v.as_float() : int_to_double(v); }

static const char* op_symbol(BinOp op) {
  switch (op) {
    case BinOp::Add: return "+";
    case BinOp::Sub: return "-";
    case BinOp::Mul: return "*";
    case BinOp::Div: return "/";
    case BinOp::FloorDiv: return "//";
    case BinOp::Mod: return "%";
    case BinOp::Pow: return "** or pow()";
  }
  return "?";
}

[[noreturn]] static void unsupported(BinOp op, const Value& a, const Value& b) {
  throw_type_error(std::string("unsupported operand type(s) for ") + op_symbol(op) + ": '" + type_name(a) + "' and '" +
                   type_name(b) + "'");
}

// Python's float floor division / modulo (same algorithm shape as float_divmod).
static void float_divmod(double a, double b, double& div, double& mod) {
  mod = std::fmod(a, b);
  div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) { mod += b; div -= 1.0; }
  } else {
    mod = std::copysign(0.0, b);
  }
  if (div != 0) {
    double fl = std::floor(div);
    if (div - fl > 0.5) fl += 1.0;
    div = fl;
  } else {
    div = std::copysign(0.0, a / b);
  }
}

static Value repeat(const Value& seq, const Value& count) {
  if (!int_like(count)) throw_type_error("can't multiply sequence by non-int of type '" + type_name(count) + "'");
  if (count.kind() == Kind::BigInt) {
    if (count.as_bigint().negative) return seq.is_str() ? Value::string("") : seq.kind() == Kind::List ? Value::list({}) : Value::tuple({});
    throw Error(ErrorKind::Limit, "OverflowError", "cannot fit 'int' into an index-sized integer");
  }
  int64_t n = count.kind() == Kind::Bool ? count.as_bool() : count.as_int();
  if (n < 0) n = 0;
  size_t unit = seq.is_str() ? seq.as_str().size() : seq.items().size();
  // The result is charged to the render's memory budget before it is built.
  size_t elem = seq.is_str() ? 1 : sizeof(Value);
  if (unit && size_t(n) > SIZE_MAX / unit / elem)
    throw Error(ErrorKind::Limit, "MemoryError", "repetition result is too large");
  mem_reserve(unit * size_t(n) * elem);
  if (seq.is_str()) {
    // Doubling copies: O(log n) appends instead of n.
    const std::string& s = seq.as_str();
    size_t total = unit * size_t(n);
    std::string out;
    out.reserve(total);
    if (total) out += s;
    while (out.size() < total) out.append(out, 0, std::min(out.size(), total - out.size()));
    const StrData& d = seq.str_data();
    return Value::string(make_str_data(std::move(out), d.ascii, d.length * size_t(n)));
  }
  std::vector<Value> out;
  out.reserve(unit * size_t(n));
  for (int64_t i = 0; i < n; ++i) out.insert(out.end(), seq.items().begin(), seq.items().end());
  return seq.kind() == Kind::List ? Value::list(std::move(out)) : Value::tuple(std::move(out));
}

Value make_markup(std::string s) {
  auto d = std::make_shared<StrData>(std::move(s));
  d->markup = true;
  return Value::string(std::shared_ptr<const StrData>(std::move(d)));
}

Value binary_op(BinOp op, const Value& a, const Value& b) {
  // str % undefined formats it (str's own % runs before Undefined.__rmod__).
  if (op == BinOp::Mod && a.is_str()) return percent_format(a, b);
  if (a.is_undefined()) fail_undefined(a);
  if (b.is_undefined()) fail_undefined(b);
  bool an = a.is_number(), bn = b.is_number();
  if (an && bn) {
    bool ints = int_like(a) && int_like(b);
    switch (op) {
      case BinOp::Add: return ints ? int_add(a, b) : Value::floating(to_double(a) + to_double(b));
      case BinOp::Sub: return ints ? int_sub(a, b) : Value::floating(to_double(a) - to_double(b));
      case BinOp::Mul: return ints ? int_mul(a, b) : Value::floating(to_double(a) * to_double(b));
      case BinOp::Div: {
        double y = to_double(b);
        if (y == 0) throw_runtime_error("ZeroDivisionError", ints ? "division by zero" : "float division by zero");
        return Value::floating(to_double(a) / y);
      }
      case BinOp::FloorDiv:
      case BinOp::Mod: {
        if (ints) {
          if (op == BinOp::Mod && int_cmp(b, Value::integer(0)) == 0)
            throw_runtime_error("ZeroDivisionError", "integer modulo by zero");
          return op == BinOp::FloorDiv ? int_floordiv(a, b) : int_mod(a, b);
        }
        double x = to_double(a), y = to_double(b);
        if (y == 0)
          throw_runtime_error("ZeroDivisionError", op == BinOp::FloorDiv ? "float floor division by zero" : "float modulo");
        double div, mod;
        float_divmod(x, y, div, mod);
        return Value::floating(op == BinOp::FloorDiv ? div : mod);
      }
      case BinOp::Pow: {
        if (ints && int_cmp(b, Value::integer(0)) >= 0) {
          if (b.kind() == Kind::BigInt) {
            int64_t base = a.kind() == Kind::Bool ? a.as_bool() : a.kind() == Kind::Int ? a.as_int() : 2;
            if (base == 0 || base == 1) return Value::integer(base);
            throw Error(ErrorKind::Limit, "OverflowError", "integer result too large");
          }
          int64_t e = b.kind() == Kind::Bool ? b.as_bool() : b.as_int();
          return int_pow(a, e);
        }
        double x = to_double(a), y = to_double(b);
        if (x == 0 && y < 0) throw_runtime_error("ZeroDivisionError", "0.0 cannot be raised to a negative power");
        if (x < 0 && std::floor(y) != y && std::isfinite(y))
          throw_runtime_error("TypeError", "complex results are not supported");
        double r = std::pow(x, y);
        if (std::isinf(r) && std::isfinite(x) && std::isfinite(y))
          throw_runtime_error("OverflowError", "(34, 'Numerical result out of range')");
        return Value::floating(r);
      }
    }
  }
  switch (op) {
    case BinOp::Add:
      if (a.is_str() && b.is_str()) {
        bool am = a.str_data().markup, bm = b.str_data().markup;
        if (am && !bm) return make_markup(a.as_str() + html_escape(b.as_str()));
        if (bm && !am) return make_markup(html_escape(a.as_str()) + b.as_str());
        std::string s;
        mem_reserve(a.as_str().size() + b.as_str().size());
        s.reserve(a.as_str().size() + b.as_str().size());
        s += a.as_str();
        s += b.as_str();
        if (am) return make_markup(std::move(s));
        // Code point counts add up, so the result needs no rescan.
        const StrData &x = a.str_data(), &y = b.str_data();
        return Value::string(make_str_data(std::move(s), x.ascii && y.ascii, x.length + y.length));
      }
      if (a.is_str()) throw_type_error("can only concatenate str (not \"" + type_name(b) + "\") to str");
      if (a.kind() == Kind::List || a.kind() == Kind::Tuple) {
        if (b.kind() != a.kind())
          throw_type_error("can only concatenate " + type_name(a) + " (not \"" + type_name(b) + "\") to " + type_name(a));
        mem_reserve((a.items().size() + b.items().size()) * sizeof(Value));
        std::vector<Value> out = a.items();
        out.insert(out.end(), b.items().begin(), b.items().end());
        return a.kind() == Kind::List ? Value::list(std::move(out)) : Value::tuple(std::move(out));
      }
      break;
    case BinOp::Mul:
      if (a.is_str() || a.is_sequence_like()) return repeat(a, b);
      if (b.is_str() || b.is_sequence_like()) return repeat(b, a);
      break;
    case BinOp::Mod:
      if (a.is_str()) return percent_format(a, b);
      break;
    default:
      break;
  }
  unsupported(op, a, b);
}

Value negate(const Value& v) {
  switch (v.kind()) {
    case Kind::Undefined: fail_undefined(v);
    case Kind::Bool: return Value::integer(v.as_bool() ? -1 : 0);
    case Kind::Int: case Kind::BigInt: return int_sub(Value::integer(0), v);
    case Kind::Float: return Value::floating(-v.as_float());
    default: throw_type_error("bad operand type for unary -: '" + type_name(v) + "'");
  }
}

Value unary_plus(const Value& v) {
  switch (v.kind()) {
    case Kind::Undefined: fail_undefined(v);
    case Kind::Bool: return Value::integer(v.as_bool() ? 1 : 0);
    case Kind::Int: case Kind::BigInt: case Kind::Float: return v;
    default: throw_type_error("bad operand type for unary +: '" + type_name(v) + "'");
  }
}

Value concat(const Value& a, const Value& b) {
  std::string s;
  append_py_str(s, a);
  append_py_str(s, b);
  return Value::string(std::move(s));
}

// Exact comparison of an int (Int/BigInt/Bool) with a finite or infinite double.
static int cmp_int_float(const Value& i, double f) {
  if (std::isinf(f)) return f > 0 ? -1 : 1;
  if (i.kind() != Kind::BigInt) {
    int64_t x = i.kind() == Kind::Bool ? i.as_bool() : i.as_int();
    if (x > -(int64_t(1) << 53) && x < (int64_t(1) << 53)) {
      double d = double(x);
      return d < f ? -1 : d > f ? 1 : 0;
    }
  }
  double t = std::trunc(f);
  int c = bignum_cmp(BigNum::from_value(i), BigNum::from_double(t));
  if (c != 0) return c;
  double frac = f - t;
  return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

// Numeric three-way compare; returns 2 when unordered (NaN involved).
static int num_cmp(const Value& a, const Value& b) {
  bool af = a.kind() == Kind::Float, bf = b.kind() == Kind::Float;
  if (!af && !bf) return int_cmp(a, b);
  if (af && bf) {
    double x = a.as_float(), y = b.as_float();
    if (std::isnan(x) || std::isnan(y)) return 2;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  if (af) {
    if (std::isnan(a.as_float())) return 2;
    return -cmp_int_float(b, a.as_float());
  }
  if (std::isnan(b.as_float())) return 2;
  return cmp_int_float(a, b.as_float());
}

bool py_equal(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) return num_cmp(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Kind::Undefined: case Kind::None: return true;
    case Kind::Str: return a.identity() == b.identity() || a.as_str() == b.as_str();
    case Kind::List: case Kind::Tuple: {
      const auto &x = a.items(), &y = b.items();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (!py_equal(x[i], y[i])) return false;
      return true;
    }
    case Kind::Dict: {
      const auto &x = a.as_dict(), &y = b.as_dict();
      if (x.size() != y.size()) return false;
      for (const auto& e : x.entries()) {
        const Value* o = y.find(e.first);
        if (!o || !py_equal(e.second, *o)) return false;
      }
      return true;
    }
    default:
      return a.identity() == b.identity();
  }
}

static const char* cmp_symbol(CmpOp op) {
  switch (op) {
    case CmpOp::Lt: return "<";
    case CmpOp::Le: return "<=";
    case CmpOp::Gt: return ">";
    case CmpOp::Ge: return ">=";
    default: return "==";
  }
}

// Three-way ordering for <, <=, >, >=; 2 means unordered (NaN).
static int order(CmpOp op, const Value& a, const Value& b) {
  if (a.is_undefined()) fail_undefined(a);
  if (b.is_undefined()) fail_undefined(b);
  if (a.is_number() && b.is_number()) return num_cmp(a, b);
  if (a.is_str() && b.is_str()) {
    int c = a.as_str().compare(b.as_str());  // UTF-8 byte order == code point order
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if ((a.kind() == Kind::List || a.kind() == Kind::Tuple) && a.kind() == b.kind()) {
    const auto &x = a.items(), &y = b.items();
    size_t n = std::min(x.size(), y.size());
    for (size_t i = 0; i < n; ++i)
      if (!py_equal(x[i], y[i])) return order(op, x[i], y[i]);
    return x.size() < y.size() ? -1 : x.size() > y.size() ? 1 : 0;
  }
  throw_type_error(std::string("'") + cmp_symbol(op) + "' not supported between instances of '" + type_name(a) +
                   "' and '" + type_name(b) + "'");
}

bool compare(CmpOp op, const Value& a, const Value& b) {
  switch (op) {
    case CmpOp::Eq: return py_equal(a, b);
    case CmpOp::Ne: return !py_equal(a, b);
    default: break;
  }
  int c = order(op, a, b);
  if (c == 2) return false;
  switch (op) {
    case CmpOp::Lt: return c < 0;
    case CmpOp::Le: return c <= 0;
    case CmpOp::Gt: return c > 0;
    case CmpOp::Ge: return c >= 0;
    default: return false;
  }
}

bool contains(const Value& container, const Value& item) {
  switch (container.kind()) {
    case Kind::Str:
      if (!item.is_str()) {
        throw_type_error("'in <string>' requires string as left operand, not " + type_name(item));
      }
      return linear_find<char>(container.as_str(), item.as_str()) != std::string::npos;
    case Kind::List: case Kind::Tuple:
      work(container.items().size());
      for (const Value& v : container.items())
        if (py_equal(v, item)) return true;
      return false;
    case Kind::Dict:
      return container.as_dict().find(item) != nullptr;
    case Kind::Undefined:
      return false;  // jinja2.Undefined iterates as empty
    case Kind::Object:
      if (container.as_object().iterable()) {
        auto elements = container.as_object().elements();
        work(elements.size());
        for (const Value& v : elements)
          if (py_equal(v, item)) return true;
        return false;
      }
      [[fallthrough]];
    default:
      throw_type_error("argument of type '" + type_name(container) + "' is not iterable");
  }
}

std::vector<Value> iterate(const Value& v) {
  switch (v.kind()) {
    case Kind::Undefined: return {};
    case Kind::List: case Kind::Tuple: work(v.items().size()); return v.items();
    case Kind::Dict: {
      work(v.as_dict().size());
      std::vector<Value> keys;
      keys.reserve(v.as_dict().size());
      for (const auto& e : v.as_dict().entries()) keys.push_back(e.first);
      return keys;
    }
    case Kind::Str: {
      std::vector<Value> out;
      const std::string& s = v.as_str();
      work(s.size());
      mem_reserve(v.str_data().length * (sizeof(Value) + sizeof(StrData)));
      out.reserve(v.str_data().length);
      for (size_t i = 0; i < s.size();) {
        size_t start = i;
        if (static_cast<unsigned char>(s[i]) < 0x80) ++i; else unicode::decode_next(s, i);
        out.push_back(Value::string(s.substr(start, i - start)));
      }
      return out;
    }
    case Kind::Object:
      if (v.as_object().iterable()) return v.as_object().elements();
      [[fallthrough]];
    default:
      throw_type_error("'" + type_name(v) + "' object is not iterable");
  }
}

size_t py_len(const Value& v) {
  switch (v.kind()) {
    case Kind::Undefined: return 0;
    case Kind::Str: return v.str_data().length;
    case Kind::List: case Kind::Tuple: return v.items().size();
    case Kind::Dict: return v.as_dict().size();
    case Kind::Object:
      if (v.as_object().iterable()) return v.as_object().elements().size();
      [[fallthrough]];
    default:
      throw_type_error("object of type '" + type_name(v) + "' has no len()");
  }
}

}  // namespace jinja
