// Schoolbook arbitrary-precision arithmetic: template integers beyond int64
// are rare and small, so simplicity beats asymptotic speed here.
#include "bigint.h"

#include <cmath>
#include <cstdio>

#include "errors.h"

namespace jinja {

static constexpr uint32_t kBase = 1000000000u;
// Template integers never need more than a few thousand digits (Python
// cannot even print beyond 4300); refusing larger results bounds the time
// and memory of runaway loops.
static constexpr size_t kMaxLimbs = 2500;  // 22,500 decimal digits

static void trim(BigNum& n) {
  while (!n.limbs.empty() && n.limbs.back() == 0) n.limbs.pop_back();
  if (n.limbs.empty()) n.negative = false;
}

BigNum BigNum::from_int(int64_t v) {
  BigNum n;
  n.negative = v < 0;
  uint64_t m = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  while (m) { n.limbs.push_back(uint32_t(m % kBase)); m /= kBase; }
  return n;
}

BigNum BigNum::from_decimal(std::string_view d, bool negative) {
  BigNum n;
  n.negative = negative;
  for (size_t end = d.size(); end > 0;) {
    size_t start = end >= 9 ? end - 9 : 0;
    uint32_t limb = 0;
    for (size_t i = start; i < end; ++i) limb = limb * 10 + uint32_t(d[i] - '0');
    n.limbs.push_back(limb);
    end = start;
  }
  trim(n);
  return n;
}

BigNum BigNum::from_value(const Value& v) {
  if (v.kind() == Kind::BigInt) return from_decimal(v.as_bigint().digits, v.as_bigint().negative);
  if (v.kind() == Kind::Bool) return from_int(v.as_bool() ? 1 : 0);
  return from_int(v.as_int());
}

BigNum BigNum::from_double(double d) {
  // Exact conversion of an integral double: repeated division by 1e9 on
  // doubles is exact for the quotient's integer part via fmod.
  BigNum n;
  n.negative = d < 0;
  d = std::trunc(std::fabs(d));
  while (d >= 1) {
    double r = std::fmod(d, double(kBase));
    n.limbs.push_back(uint32_t(r));
    d = (d - r) / double(kBase);
  }
  trim(n);
  return n;
}

bool BigNum::fits_int64(int64_t& out) const {
  // |int64| < 9.3e18: at most three limbs with a top limb <= 9, which keeps
  // the magnitude below 1e19 and thus inside uint64.
  if (limbs.size() > 3 || (limbs.size() == 3 && limbs[2] > 9)) return false;
  uint64_t m = 0;
  for (size_t i = limbs.size(); i-- > 0;) m = m * kBase + limbs[i];
  if (!negative && m <= uint64_t(INT64_MAX)) { out = int64_t(m); return true; }
  if (negative && m <= uint64_t(INT64_MAX) + 1) { out = int64_t(0 - m); return true; }
  return false;
}

std::string BigNum::to_string() const {
  if (limbs.empty()) return "0";
  std::string s = negative ? "-" : "";
  char buf[16];
  std::snprintf(buf, sizeof buf, "%u", limbs.back());
  s += buf;
  for (size_t i = limbs.size() - 1; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%09u", limbs[i]);
    s += buf;
  }
  return s;
}

BigIntData BigNum::to_data() const {
  BigIntData d;
  d.negative = negative;
  d.digits = to_string();
  if (negative) d.digits.erase(0, 1);
  return d;
}

Value BigNum::to_value() const {
  int64_t i;
  if (fits_int64(i)) return Value::integer(i);
  return Value::big_integer(to_data());
}

double BigNum::to_double() const {
  // Correct rounding: let strtod round the exact decimal text.
  std::string s = to_string();
  double d = std::strtod(s.c_str(), nullptr);
  if (std::isinf(d)) throw_runtime_error("OverflowError", "int too large to convert to float");
  return d;
}

static int cmp_mag(const BigNum& a, const BigNum& b) {
  if (a.limbs.size() != b.limbs.size()) return a.limbs.size() < b.limbs.size() ? -1 : 1;
  for (size_t i = a.limbs.size(); i-- > 0;)
    if (a.limbs[i] != b.limbs[i]) return a.limbs[i] < b.limbs[i] ? -1 : 1;
  return 0;
}

int bignum_cmp(const BigNum& a, const BigNum& b) {
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  int m = cmp_mag(a, b);
  return a.negative ? -m : m;
}

static BigNum add_mag(const BigNum& a, const BigNum& b) {
  BigNum r;
  uint32_t carry = 0;
  size_t n = std::max(a.limbs.size(), b.limbs.size());
  for (size_t i = 0; i < n; ++i) {
    uint64_t s = uint64_t(carry) + (i < a.limbs.size() ? a.limbs[i] : 0) + (i < b.limbs.size() ? b.limbs[i] : 0);
    r.limbs.push_back(uint32_t(s % kBase));
    carry = uint32_t(s / kBase);
  }
  if (carry) r.limbs.push_back(carry);
  if (r.limbs.size() > kMaxLimbs) throw Error(ErrorKind::Limit, "OverflowError", "integer result too large");
  return r;
}

// |a| - |b| with |a| >= |b|.
static BigNum sub_mag(const BigNum& a, const BigNum& b) {
  BigNum r;
  int64_t borrow = 0;
  for (size_t i = 0; i < a.limbs.size(); ++i) {
    int64_t s = int64_t(a.limbs[i]) - borrow - (i < b.limbs.size() ? b.limbs[i] : 0);
    borrow = s < 0;
    if (s < 0) s += kBase;
    r.limbs.push_back(uint32_t(s));
  }
  trim(r);
  return r;
}

BigNum bignum_add(const BigNum& a, const BigNum& b) {
  BigNum r;
  if (a.negative == b.negative) {
    r = add_mag(a, b);
    r.negative = a.negative;
  } else if (cmp_mag(a, b) >= 0) {
    r = sub_mag(a, b);
    r.negative = a.negative;
  } else {
    r = sub_mag(b, a);
    r.negative = b.negative;
  }
  trim(r);
  return r;
}

BigNum bignum_sub(const BigNum& a, const BigNum& b) {
  BigNum nb = b;
  if (!nb.is_zero()) nb.negative = !nb.negative;
  return bignum_add(a, nb);
}

BigNum bignum_mul(const BigNum& a, const BigNum& b) {
  BigNum r;
  if (a.is_zero() || b.is_zero()) return r;
  if (a.limbs.size() + b.limbs.size() > kMaxLimbs + 1)
    throw Error(ErrorKind::Limit, "OverflowError", "integer result too large");
  std::vector<uint64_t> acc(a.limbs.size() + b.limbs.size() + 1, 0);
  for (size_t i = 0; i < a.limbs.size(); ++i) {
    uint64_t carry = 0;
    for (size_t j = 0; j < b.limbs.size(); ++j) {
      uint64_t cur = acc[i + j] + uint64_t(a.limbs[i]) * b.limbs[j] + carry;
      acc[i + j] = cur % kBase;
      carry = cur / kBase;
    }
    size_t k = i + b.limbs.size();
    while (carry) {
      uint64_t cur = acc[k] + carry;
      acc[k] = cur % kBase;
      carry = cur / kBase;
      ++k;
    }
  }
  for (uint64_t x : acc) r.limbs.push_back(uint32_t(x));
  r.negative = a.negative != b.negative;
  trim(r);
  return r;
}

// Truncating division of magnitudes by long division, one base-1e9 digit at
// a time with a binary search for each quotient digit.
static void divmod_mag(const BigNum& a, const BigNum& b, BigNum& q, BigNum& r) {
  q = BigNum();
  r = BigNum();
  q.limbs.assign(a.limbs.size(), 0);
  for (size_t i = a.limbs.size(); i-- > 0;) {
    r.limbs.insert(r.limbs.begin(), a.limbs[i]);
    trim(r);
    uint32_t lo = 0, hi = kBase - 1;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo + 1) / 2;
      BigNum t = bignum_mul(b, BigNum::from_int(mid));
      t.negative = false;
      if (cmp_mag(t, r) <= 0) lo = mid; else hi = mid - 1;
    }
    if (lo) {
      BigNum t = bignum_mul(b, BigNum::from_int(lo));
      t.negative = false;
      r = sub_mag(r, t);
    }
    q.limbs[i] = lo;
  }
  trim(q);
  trim(r);
}

void bignum_divmod(const BigNum& a, const BigNum& b, BigNum& q, BigNum& r) {
  BigNum am = a, bm = b;
  am.negative = bm.negative = false;
  divmod_mag(am, bm, q, r);
  bool neg = a.negative != b.negative;
  q.negative = neg && !q.is_zero();
  r.negative = a.negative && !r.is_zero();
  // Floor semantics: adjust when the remainder's sign differs from b's.
  if (!r.is_zero() && (r.negative != b.negative)) {
    q = bignum_sub(q, BigNum::from_int(1));
    r = bignum_add(r, b);
  }
}

// Overflow-checked int64 arithmetic (builtins where available, portable
// checks elsewhere).
static bool add_overflow(int64_t a, int64_t b, int64_t* r) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_add_overflow(a, b, r);
#else
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) return true;
  *r = a + b;
  return false;
#endif
}
static bool sub_overflow(int64_t a, int64_t b, int64_t* r) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_sub_overflow(a, b, r);
#else
  if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) return true;
  *r = a - b;
  return false;
#endif
}
static bool mul_overflow(int64_t a, int64_t b, int64_t* r) {
#if defined(__GNUC__) || defined(__clang__)
  return __builtin_mul_overflow(a, b, r);
#else
  if (a == 0 || b == 0) { *r = 0; return false; }
  if ((a == -1 && b == INT64_MIN) || (b == -1 && a == INT64_MIN)) return true;
  if (a > 0 ? (b > 0 ? a > INT64_MAX / b : b < INT64_MIN / a) : (b > 0 ? a < INT64_MIN / b : a < INT64_MAX / b)) return true;
  *r = a * b;
  return false;
#endif
}

static bool both_small(const Value& a, const Value& b) {
  return a.kind() != Kind::BigInt && b.kind() != Kind::BigInt;
}
static int64_t small(const Value& v) { return v.kind() == Kind::Bool ? (v.as_bool() ? 1 : 0) : v.as_int(); }

Value int_add(const Value& a, const Value& b) {
  if (both_small(a, b)) {
    int64_t r;
    if (!add_overflow(small(a), small(b), &r)) return Value::integer(r);
  }
  return bignum_add(BigNum::from_value(a), BigNum::from_value(b)).to_value();
}

Value int_sub(const Value& a, const Value& b) {
  if (both_small(a, b)) {
    int64_t r;
    if (!sub_overflow(small(a), small(b), &r)) return Value::integer(r);
  }
  return bignum_sub(BigNum::from_value(a), BigNum::from_value(b)).to_value();
}

Value int_mul(const Value& a, const Value& b) {
  if (both_small(a, b)) {
    int64_t r;
    if (!mul_overflow(small(a), small(b), &r)) return Value::integer(r);
  }
  return bignum_mul(BigNum::from_value(a), BigNum::from_value(b)).to_value();
}

static bool is_zero_int(const Value& v) { return v.kind() != Kind::BigInt && small(v) == 0; }

Value int_floordiv(const Value& a, const Value& b) {
  if (is_zero_int(b)) throw_runtime_error("ZeroDivisionError", "integer division or modulo by zero");
  if (both_small(a, b) && !(small(a) == INT64_MIN && small(b) == -1)) {
    int64_t x = small(a), y = small(b), q = x / y;
    if ((x % y != 0) && ((x < 0) != (y < 0))) --q;
    return Value::integer(q);
  }
  BigNum q, r;
  bignum_divmod(BigNum::from_value(a), BigNum::from_value(b), q, r);
  return q.to_value();
}

Value int_mod(const Value& a, const Value& b) {
  if (is_zero_int(b)) throw_runtime_error("ZeroDivisionError", "integer division or modulo by zero");
  if (both_small(a, b)) {
    int64_t x = small(a), y = small(b);
    if (y == -1) return Value::integer(0);
    int64_t r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return Value::integer(r);
  }
  BigNum q, r;
  bignum_divmod(BigNum::from_value(a), BigNum::from_value(b), q, r);
  return r.to_value();
}

Value int_pow(const Value& a, int64_t e, size_t max_digits) {
  BigNum base = BigNum::from_value(a), result = BigNum::from_int(1);
  while (e > 0) {
    if (e & 1) result = bignum_mul(result, base);
    e >>= 1;
    if (e) base = bignum_mul(base, base);
    if (result.limbs.size() * 9 > max_digits || base.limbs.size() * 9 > max_digits * 2 + 18)
      throw Error(ErrorKind::Limit, "OverflowError", "integer result too large");
  }
  return result.to_value();
}

int int_cmp(const Value& a, const Value& b) {
  if (both_small(a, b)) return small(a) < small(b) ? -1 : small(a) > small(b) ? 1 : 0;
  return bignum_cmp(BigNum::from_value(a), BigNum::from_value(b));
}

double int_to_double(const Value& v) {
  if (v.kind() != Kind::BigInt) return double(small(v));
  return BigNum::from_value(v).to_double();
}

}  // namespace jinja
