// A thread's scratch buffer for reading a JS string: grown to what a call
// needs, and let go after a call that grew it past `kKept` elements, so a
// thread keeps only a small one between calls.
#pragma once

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

}  // namespace nvc_addon
