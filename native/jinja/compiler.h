// Compiler-specific spellings kept in one place so the engine builds with
// GCC, Clang (including clang-cl) and MSVC alike.
#pragma once

#include <bit>
#include <cstdint>

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#define JINJA_ALWAYS_INLINE __forceinline
#define JINJA_NOINLINE __declspec(noinline)
#else
#define JINJA_ALWAYS_INLINE inline __attribute__((always_inline))
#define JINJA_NOINLINE __attribute__((noinline))
#endif

// SSE2 is part of every x86-64 target; MSVC does not define __SSE2__.
#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#define JINJA_HAVE_SSE2 1
#endif

namespace jinja {

// An address inside the current stack frame, for measuring how much native
// stack a recursive walk has used. (The address of a local would not do:
// AddressSanitizer may move locals to a heap-allocated fake stack.)
JINJA_ALWAYS_INLINE const char* stack_position() {
#if defined(_MSC_VER) && !defined(__clang__)
  return static_cast<const char*>(_AddressOfReturnAddress());
#else
  return static_cast<const char*>(__builtin_frame_address(0));
#endif
}

}  // namespace jinja
