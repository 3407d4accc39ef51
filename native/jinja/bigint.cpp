// Arbitrary-precision arithmetic on binary limbs: schoolbook addition,
// subtraction and multiplication (Karatsuba for large balanced operands),
// Knuth's Algorithm D for division. Work is charged to the render's step
// budget by limb operations and results to its memory budget, so big-integer
// loops end like any other runaway template.
#include "bigint.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "errors.h"
#include "pyformat.h"

namespace jinja {

namespace {

using Limbs = std::vector<uint32_t>;

void trim(Limbs& v) {
  while (!v.empty() && v.back() == 0) v.pop_back();
}

void trim(BigNum& n) {
  trim(n.limbs);
  if (n.limbs.empty()) n.negative = false;
}

int cmp_mag(const Limbs& a, const Limbs& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = a.size(); i-- > 0;)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

Limbs add_mag(const Limbs& a, const Limbs& b) {
  const Limbs& x = a.size() >= b.size() ? a : b;
  const Limbs& y = a.size() >= b.size() ? b : a;
  mem_reserve((x.size() + 1) * 4);
  work(x.size() / 16);
  Limbs r(x.size() + 1);
  uint64_t carry = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    uint64_t s = carry + x[i] + (i < y.size() ? y[i] : 0);
    r[i] = uint32_t(s);
    carry = s >> 32;
  }
  r[x.size()] = uint32_t(carry);
  trim(r);
  return r;
}

// |a| - |b| with |a| >= |b|.
Limbs sub_mag(const Limbs& a, const Limbs& b) {
  work(a.size() / 16);
  Limbs r(a.size());
  int64_t borrow = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    int64_t s = int64_t(a[i]) - borrow - (i < b.size() ? int64_t(b[i]) : 0);
    borrow = s < 0;
    r[i] = uint32_t(s);
  }
  trim(r);
  return r;
}

// Adds `carry` into r from limb k upwards (r must have room for it).
void propagate_carry(uint32_t* r, size_t k, uint64_t carry) {
  for (; carry; ++k) {
    uint64_t t = uint64_t(r[k]) + carry;
    r[k] = uint32_t(t);
    carry = t >> 32;
  }
}

// r[0..] += a * b (schoolbook); r must hold a.size() + b.size() limbs.
void mul_into(uint32_t* r, const uint32_t* a, size_t na, const uint32_t* b, size_t nb) {
  for (size_t i = 0; i < na; ++i) {
    uint64_t carry = 0, ai = a[i];
    if (ai == 0) continue;
    for (size_t j = 0; j < nb; ++j) {
      uint64_t t = ai * b[j] + r[i + j] + carry;
      r[i + j] = uint32_t(t);
      carry = t >> 32;
    }
    propagate_carry(r, i + nb, carry);
  }
}

constexpr size_t kKaratsuba = 48;  // limbs; below this schoolbook wins

// Adds b into a starting at limb `at` (a must be large enough).
void add_at(Limbs& a, const Limbs& b, size_t at) {
  uint64_t carry = 0;
  size_t i = 0;
  for (; i < b.size(); ++i) {
    uint64_t t = uint64_t(a[at + i]) + b[i] + carry;
    a[at + i] = uint32_t(t);
    carry = t >> 32;
  }
  propagate_carry(a.data(), at + i, carry);
}

Limbs mul_mag(const Limbs& a, const Limbs& b);

// Karatsuba on operands split at `h` limbs: a = a1*B^h + a0, b = b1*B^h + b0;
// a*b = z2*B^2h + (z1 - z2 - z0)*B^h + z0 with z1 = (a0+a1)(b0+b1).
Limbs karatsuba(const Limbs& a, const Limbs& b) {
  size_t h = std::max(a.size(), b.size()) / 2;
  auto lo = [h](const Limbs& x) { Limbs r(x.begin(), x.begin() + std::min(h, x.size())); trim(r); return r; };
  auto hi = [h](const Limbs& x) { return x.size() > h ? Limbs(x.begin() + h, x.end()) : Limbs(); };
  Limbs a0 = lo(a), a1 = hi(a), b0 = lo(b), b1 = hi(b);
  Limbs z0 = mul_mag(a0, b0), z2 = mul_mag(a1, b1);
  Limbs z1 = mul_mag(add_mag(a0, a1), add_mag(b0, b1));
  z1 = sub_mag(z1, z0);
  z1 = sub_mag(z1, z2);
  Limbs r(a.size() + b.size() + 1, 0);
  add_at(r, z0, 0);
  add_at(r, z1, h);
  add_at(r, z2, 2 * h);
  trim(r);
  return r;
}

Limbs mul_mag(const Limbs& a, const Limbs& b) {
  if (a.empty() || b.empty()) return {};
  mem_reserve((a.size() + b.size()) * 4);
  size_t small = std::min(a.size(), b.size()), large = std::max(a.size(), b.size());
  if (small >= kKaratsuba && large < 2 * small) return karatsuba(a, b);
  work(uint64_t(a.size()) * b.size() / 16);
  Limbs r(a.size() + b.size(), 0);
  mul_into(r.data(), a.data(), a.size(), b.data(), b.size());
  trim(r);
  return r;
}

// Divides by a single limb in place; returns the remainder.
uint32_t divmod_small(Limbs& a, uint32_t d) {
  uint64_t rem = 0;
  for (size_t i = a.size(); i-- > 0;) {
    uint64_t cur = (rem << 32) | a[i];
    a[i] = uint32_t(cur / d);
    rem = cur % d;
  }
  trim(a);
  return uint32_t(rem);
}

int clz32(uint32_t x) { return std::countl_zero(x); }

// Truncating division of magnitudes, Knuth's Algorithm D (TAOCP 4.3.1).
void divmod_mag(const Limbs& u, const Limbs& v, Limbs& q, Limbs& r) {
  if (cmp_mag(u, v) < 0) { q.clear(); r = u; return; }
  if (v.size() == 1) {
    q = u;
    uint32_t rem = divmod_small(q, v[0]);
    r.clear();
    if (rem) r.push_back(rem);
    return;
  }
  size_t n = v.size(), m = u.size() - v.size();
  work(uint64_t(n) * (m + 1) / 16);
  int s = clz32(v.back());
  // Normalise: shift so the divisor's top limb has its high bit set.
  Limbs vn(n), un(u.size() + 1);
  for (size_t i = n; i-- > 0;) vn[i] = (v[i] << s) | (s && i ? uint32_t(uint64_t(v[i - 1]) >> (32 - s)) : 0);
  un[u.size()] = s ? uint32_t(uint64_t(u.back()) >> (32 - s)) : 0;
  for (size_t i = u.size(); i-- > 0;) un[i] = (u[i] << s) | (s && i ? uint32_t(uint64_t(u[i - 1]) >> (32 - s)) : 0);
  q.assign(m + 1, 0);
  const uint64_t top = vn[n - 1], next = vn[n - 2];
  for (size_t j = m + 1; j-- > 0;) {
    uint64_t num = (uint64_t(un[j + n]) << 32) | un[j + n - 1];
    uint64_t qhat = num / top, rhat = num % top;
    while (qhat >> 32 || qhat * next > ((rhat << 32) | un[j + n - 2])) {
      --qhat;
      rhat += top;
      if (rhat >> 32) break;
    }
    // un[j..j+n] -= qhat * vn
    int64_t borrow = 0;
    uint64_t carry = 0;
    for (size_t i = 0; i < n; ++i) {
      uint64_t p = qhat * vn[i] + carry;
      carry = p >> 32;
      int64_t t = int64_t(un[i + j]) - borrow - int64_t(p & 0xffffffffu);
      un[i + j] = uint32_t(t);
      borrow = t < 0;
    }
    int64_t t = int64_t(un[j + n]) - borrow - int64_t(carry);
    un[j + n] = uint32_t(t);
    if (t < 0) {
      // qhat was one too large: add the divisor back.
      --qhat;
      uint64_t c = 0;
      for (size_t i = 0; i < n; ++i) {
        uint64_t sum = uint64_t(un[i + j]) + vn[i] + c;
        un[i + j] = uint32_t(sum);
        c = sum >> 32;
      }
      un[j + n] = uint32_t(uint64_t(un[j + n]) + c);
    }
    q[j] = uint32_t(qhat);
  }
  trim(q);
  r.assign(n, 0);
  for (size_t i = 0; i < n; ++i) r[i] = (un[i] >> s) | (s ? uint32_t(uint64_t(un[i + 1]) << (32 - s)) : 0);
  trim(r);
}

Limbs shift_left(const Limbs& a, size_t bits) {
  if (a.empty()) return {};
  size_t words = bits / 32, sh = bits % 32;
  Limbs r(a.size() + words + 1, 0);
  for (size_t i = 0; i < a.size(); ++i) {
    uint64_t x = uint64_t(a[i]) << sh;
    r[i + words] |= uint32_t(x);
    r[i + words + 1] |= uint32_t(x >> 32);
  }
  trim(r);
  return r;
}

}  // namespace

BigNum BigNum::from_int(int64_t v) {
  BigNum n;
  n.negative = v < 0;
  uint64_t m = v < 0 ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  if (m) n.limbs.push_back(uint32_t(m));
  if (m >> 32) n.limbs.push_back(uint32_t(m >> 32));
  return n;
}

BigNum BigNum::from_decimal(std::string_view d, bool negative) {
  // Nine digits at a time: n = n * 10^9 + chunk.
  BigNum n;
  size_t i = 0, first = d.size() % 9 ? d.size() % 9 : 9;
  work(d.size() * d.size() / 1024);
  while (i < d.size()) {
    size_t len = i == 0 ? std::min(first, d.size()) : 9;
    uint32_t chunk = 0, scale = 1;
    for (size_t k = 0; k < len; ++k) { chunk = chunk * 10 + uint32_t(d[i + k] - '0'); scale *= 10; }
    uint64_t carry = chunk;
    for (auto& l : n.limbs) {
      uint64_t t = uint64_t(l) * scale + carry;
      l = uint32_t(t);
      carry = t >> 32;
    }
    if (carry) n.limbs.push_back(uint32_t(carry));
    i += len;
  }
  n.negative = negative;
  trim(n);
  return n;
}

BigNum BigNum::from_value(const Value& v) {
  if (v.kind() == Kind::BigInt) {
    BigNum n;
    n.negative = v.as_bigint().negative;
    n.limbs = v.as_bigint().mag;
    return n;
  }
  if (v.kind() == Kind::Bool) return from_int(v.as_bool() ? 1 : 0);
  return from_int(v.as_int());
}

BigNum BigNum::from_double(double d) {
  d = std::trunc(d);
  if (std::fabs(d) < 9.2e18) return from_int(int64_t(d));
  int e;
  double f = std::frexp(std::fabs(d), &e);  // |d| = f * 2^e, 0.5 <= f < 1
  uint64_t mant = uint64_t(std::ldexp(f, 53));  // exact: 53 significant bits
  BigNum n;
  n.limbs = shift_left({uint32_t(mant), uint32_t(mant >> 32)}, size_t(e - 53));
  n.negative = d < 0;
  trim(n);
  return n;
}

bool BigNum::fits_int64(int64_t& out) const {
  if (limbs.size() > 2) return false;
  uint64_t m = 0;
  for (size_t i = limbs.size(); i-- > 0;) m = (m << 32) | limbs[i];
  if (!negative && m <= uint64_t(INT64_MAX)) { out = int64_t(m); return true; }
  if (negative && m <= uint64_t(INT64_MAX) + 1) { out = int64_t(0 - m); return true; }
  return false;
}

size_t BigNum::bit_length() const {
  return limbs.empty() ? 0 : limbs.size() * 32 - size_t(clz32(limbs.back()));
}

std::string BigNum::to_string() const {
  if (limbs.empty()) return "0";
  // Peel nine decimal digits at a time off a copy (quadratic, as CPython's
  // own conversion; printing is capped at 4300 digits by the callers).
  work(limbs.size() * limbs.size() / 64);
  Limbs t = limbs;
  std::vector<uint32_t> chunks;
  while (!t.empty()) chunks.push_back(divmod_small(t, 1000000000u));
  std::string s = negative ? "-" : "";
  s += std::to_string(chunks.back());
  char buf[16];
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%09u", chunks[i]);
    s += buf;
  }
  return s;
}

std::string BigNum::to_digits(unsigned base) const {
  if (limbs.empty()) return "0";
  unsigned bits = base == 16 ? 4 : base == 8 ? 3 : 1;
  size_t total = bit_length();
  size_t ndig = (total + bits - 1) / bits;
  mem_reserve(ndig);
  std::string s(ndig, '0');
  for (size_t k = 0; k < ndig; ++k) {
    size_t pos = k * bits;
    uint64_t w = limbs[pos / 32] >> (pos % 32);
    if (pos % 32 + bits > 32 && pos / 32 + 1 < limbs.size()) w |= uint64_t(limbs[pos / 32 + 1]) << (32 - pos % 32);
    s[ndig - 1 - k] = "0123456789abcdef"[w & ((1u << bits) - 1)];
  }
  return s;
}

double BigNum::to_double() const {
  size_t bl = bit_length();
  if (bl <= 64) {
    uint64_t m = 0;
    for (size_t i = limbs.size(); i-- > 0;) m = (m << 32) | limbs[i];
    double d = double(m);
    return negative ? -d : d;
  }
  if (bl > 1024) throw_runtime_error("OverflowError", "int too large to convert to float");
  // The top 64 bits, with every bit below folded into the lowest one
  // (sticky), round to 53 bits exactly as the full value would.
  size_t shift = bl - 64;
  uint64_t top = 0;
  for (int k = 63; k >= 0; --k) {
    size_t bit = shift + size_t(k);
    top = (top << 1) | ((limbs[bit / 32] >> (bit % 32)) & 1u);
  }
  bool sticky = false;
  for (size_t i = 0; i < shift / 32 && !sticky; ++i) sticky = limbs[i] != 0;
  if (!sticky && shift % 32) sticky = (limbs[shift / 32] & ((1u << (shift % 32)) - 1)) != 0;
  if (sticky) top |= 1;
  double d = std::ldexp(double(top), int(shift));
  if (std::isinf(d)) throw_runtime_error("OverflowError", "int too large to convert to float");
  return negative ? -d : d;
}

BigIntData BigNum::to_data() const {
  BigIntData d;
  d.negative = negative;
  d.mag = limbs;
  return d;
}

Value BigNum::to_value() const {
  int64_t i;
  if (fits_int64(i)) return Value::integer(i);
  return Value::big_integer(to_data());
}

int bignum_cmp(const BigNum& a, const BigNum& b) {
  if (a.negative != b.negative) return a.negative ? -1 : 1;
  int m = cmp_mag(a.limbs, b.limbs);
  return a.negative ? -m : m;
}

BigNum bignum_add(const BigNum& a, const BigNum& b) {
  BigNum r;
  if (a.negative == b.negative) {
    r.limbs = add_mag(a.limbs, b.limbs);
    r.negative = a.negative;
  } else if (cmp_mag(a.limbs, b.limbs) >= 0) {
    r.limbs = sub_mag(a.limbs, b.limbs);
    r.negative = a.negative;
  } else {
    r.limbs = sub_mag(b.limbs, a.limbs);
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
  r.limbs = mul_mag(a.limbs, b.limbs);
  r.negative = a.negative != b.negative;
  trim(r);
  return r;
}

void bignum_divmod(const BigNum& a, const BigNum& b, BigNum& q, BigNum& r) {
  q = BigNum();
  r = BigNum();
  divmod_mag(a.limbs, b.limbs, q.limbs, r.limbs);
  q.negative = a.negative != b.negative;
  r.negative = a.negative;
  trim(q);
  trim(r);
  // Floor semantics: adjust when the remainder's sign differs from b's.
  if (!r.is_zero() && (r.negative != b.negative)) {
    q = bignum_sub(q, BigNum::from_int(1));
    r = bignum_add(r, b);
  }
}

std::string int_decimal(const Value& v) {
  if (v.kind() != Kind::BigInt) return std::to_string(v.kind() == Kind::Bool ? int64_t(v.as_bool()) : v.as_int());
  BigNum n = BigNum::from_value(v);
  // 2^14300 > 10^4304: longer magnitudes certainly exceed the limit.
  if (n.bit_length() > 14300) throw_int_digits_limit();
  std::string s = n.to_string();
  if (s.size() - (n.negative ? 1 : 0) > 4300) throw_int_digits_limit();
  return s;
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

Value int_pow(const Value& a, int64_t e) {
  BigNum base = BigNum::from_value(a), result = BigNum::from_int(1);
  // The result has about bit_length(a) * e bits: refuse what cannot fit the
  // memory budget before computing any of it.
  size_t bits = base.bit_length();
  if (bits > 1 && e > 0) {
    if (uint64_t(e) > (uint64_t(1) << 60) / bits) mem_reserve(SIZE_MAX / 2);
    mem_reserve(size_t((bits - 1) * uint64_t(e) / 8));
  }
  while (e > 0) {
    if (e & 1) result = bignum_mul(result, base);
    e >>= 1;
    if (e) base = bignum_mul(base, base);
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
