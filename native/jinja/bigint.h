// Arbitrary-precision integers for Python int semantics beyond int64.
// Magnitudes are binary (base 2^32 limbs, little endian): arithmetic never
// goes through decimal text, which is produced only for printing (and, as in
// Python, refused past 4300 digits).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "value.h"

namespace jinja {

struct BigNum {
  bool negative = false;
  std::vector<uint32_t> limbs;  // base 2^32, no trailing zero limbs; empty == 0

  static BigNum from_int(int64_t v);
  static BigNum from_decimal(std::string_view digits, bool negative);  // digits only
  static BigNum from_value(const Value& v);  // Int, BigInt or Bool
  static BigNum from_double(double d);        // d must be finite (truncates), exact
  bool is_zero() const { return limbs.empty(); }
  bool fits_int64(int64_t& out) const;
  size_t bit_length() const;
  std::string to_string() const;          // decimal, any size
  std::string to_digits(unsigned base) const;  // magnitude in base 2, 8 or 16 (lowercase)
  double to_double() const;  // correctly rounded; OverflowError when out of range
  Value to_value() const;    // Int when it fits, else BigInt
  BigIntData to_data() const;
};

int bignum_cmp(const BigNum& a, const BigNum& b);
BigNum bignum_add(const BigNum& a, const BigNum& b);
BigNum bignum_sub(const BigNum& a, const BigNum& b);
BigNum bignum_mul(const BigNum& a, const BigNum& b);
// Floor division and modulo (Python semantics); b must be non-zero.
void bignum_divmod(const BigNum& a, const BigNum& b, BigNum& q, BigNum& r);
// Decimal text of a Python int with Python 3.11's 4300-digit guard
// (ValueError past it).
std::string int_decimal(const Value& v);
// Python-exact int ops on Int/BigInt/Bool values (result normalised).
Value int_add(const Value& a, const Value& b);
Value int_sub(const Value& a, const Value& b);
Value int_mul(const Value& a, const Value& b);
Value int_floordiv(const Value& a, const Value& b);  // ZeroDivisionError
Value int_mod(const Value& a, const Value& b);
Value int_pow(const Value& a, int64_t exponent);
int int_cmp(const Value& a, const Value& b);
double int_to_double(const Value& v);  // OverflowError "int too large to convert to float"

}  // namespace jinja
