// A thread's scratch buffer for reading a JS string: grown to what a call
// needs, and let go after a call that grew it past `kKept` elements, so a
// thread keeps only a small one between calls.
#pragma once

#include <node_api.h>

#include <algorithm>
#include <cstddef>
#include <memory>

namespace nvc_addon {

template <typename T, size_t kKept>
class Scratch {
 public:
  // Room for `n` elements (std::bad_alloc where there is none; the buffer
  // is then empty).
  T* get(size_t n) {
    if (size_ < n) {
      data_.reset();
      size_ = 0;
      data_.reset(new T[n]);
      size_ = n;
    }
    return data_.get();
  }
  // Room for `n` elements with the first `keep` kept (keep <= what the
  // buffer held; std::bad_alloc where there is no room: the buffer is then
  // as it was).
  T* grow(size_t n, size_t keep) {
    if (size_ < n) {
      std::unique_ptr<T[]> bigger(new T[n]);
      if (keep > 0) std::copy(data_.get(), data_.get() + keep, bigger.get());
      data_ = std::move(bigger);
      size_ = n;
    }
    return data_.get();
  }
  size_t size() const { return size_; }
  // After the call: lets go of a buffer grown past kKept.
  void trim() {
    if (size_ > kKept) {
      data_.reset();
      size_ = 0;
    }
  }

 private:
  std::unique_ptr<T[]> data_;
  size_t size_ = 0;
};

// The UTF-16 units of the JS string `v`, copied into `scratch`, and their
// count in `n`; null where the string cannot be read (std::bad_alloc where
// there is no room for them).
template <size_t kKept>
const char16_t* read_utf16(napi_env env, napi_value v, Scratch<char16_t, kKept>& scratch, size_t& n) {
  if (napi_get_value_string_utf16(env, v, nullptr, 0, &n) != napi_ok) return nullptr;
  char16_t* buf = scratch.get(n + 1);
  size_t got = 0;
  return napi_get_value_string_utf16(env, v, buf, n + 1, &got) == napi_ok && got == n ? buf : nullptr;
}

}  // namespace nvc_addon
