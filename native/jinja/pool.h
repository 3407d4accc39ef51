// Per-thread caches of small blocks for short-lived value nodes.
//
// A render creates and drops hundreds of str values (filter results,
// concatenations, macro output); each is one shared_ptr control block of the
// same size, and every parsed dict an entry array of a few slots. glibc's
// per-thread cache holds only a few blocks per size, so bursts of frees fall
// through to the slower general paths. The pool keeps freed blocks on a
// per-thread list per 64-byte size class (bounded) and reuses them; a block
// may be freed on any thread, it just joins that thread's list.
//
// Thread exit: the list head is a trivially destructible thread_local (it
// stays usable while other thread_locals are destroyed); a separate guard
// object flushes the list at thread exit and marks it closed, after which
// freed blocks go straight back to operator delete.
#pragma once

#include <cstddef>
#include <new>

// Under AddressSanitizer a cached block is poisoned past its list link, so a
// use after free through a stale pointer is still reported.
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define JINJA_POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define JINJA_POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define JINJA_POOL_POISON(p, n) ((void)(p), (void)(n))
#define JINJA_POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace jinja {

template <size_t Size>
class BlockCache {
 public:
  static void* get() {
    State& s = state;
    if (s.head) {
      Node* n = s.head;
      JINJA_POOL_UNPOISON(n, Size);
      s.head = n->next;
      --s.count;
      return n;
    }
    return ::operator new(Size);
  }
  static void put(void* p) {
    State& s = state;
    if (s.closed || s.count >= kMaxBlocks) {
      ::operator delete(p);
      return;
    }
    if (!s.guarded) {
      s.guarded = true;
      static thread_local Guard guard;  // constructed once per thread; flushes at exit
      (void)guard;
    }
    Node* n = static_cast<Node*>(p);
    n->next = s.head;
    JINJA_POOL_POISON(reinterpret_cast<char*>(p) + sizeof(Node), Size - sizeof(Node));
    s.head = n;
    ++s.count;
  }

 private:
  static constexpr size_t kMaxBlocks = (256u << 10) / Size;  // an idle thread keeps at most 256 KiB per size
  struct Node {
    Node* next;
  };
  struct State {
    Node* head;
    size_t count;
    bool guarded, closed;
  };
  struct Guard {
    ~Guard() {
      State& s = state;
      s.closed = true;
      while (s.head) {
        Node* n = s.head;
        JINJA_POOL_UNPOISON(n, Size);
        s.head = n->next;
        ::operator delete(n);
      }
      s.count = 0;
    }
  };
  static_assert(Size >= sizeof(Node));
  static inline thread_local State state{};
};

// Blocks of up to kPoolMaxBytes come from the cache of their 64-byte size
// class; bigger ones from operator new.
constexpr size_t kPoolMaxBytes = 512;

inline void* pool_allocate(size_t bytes) {
  switch ((bytes + 63) / 64) {
    case 0: case 1: return BlockCache<64>::get();
    case 2: return BlockCache<128>::get();
    case 3: return BlockCache<192>::get();
    case 4: return BlockCache<256>::get();
    case 5: return BlockCache<320>::get();
    case 6: return BlockCache<384>::get();
    case 7: return BlockCache<448>::get();
    case 8: return BlockCache<512>::get();
    default: return ::operator new(bytes);
  }
}

inline void pool_free(void* p, size_t bytes) {
  switch ((bytes + 63) / 64) {
    case 0: case 1: return BlockCache<64>::put(p);
    case 2: return BlockCache<128>::put(p);
    case 3: return BlockCache<192>::put(p);
    case 4: return BlockCache<256>::put(p);
    case 5: return BlockCache<320>::put(p);
    case 6: return BlockCache<384>::put(p);
    case 7: return BlockCache<448>::put(p);
    case 8: return BlockCache<512>::put(p);
    default: return ::operator delete(p);
  }
}

// Standard allocator over the pool (str value nodes, dict entry arrays).
template <class T>
struct PoolAllocator {
  using value_type = T;
  PoolAllocator() = default;
  template <class U>
  PoolAllocator(const PoolAllocator<U>&) {}

  T* allocate(size_t n) { return static_cast<T*>(pool_allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { pool_free(p, n * sizeof(T)); }
  template <class U>
  bool operator==(const PoolAllocator<U>&) const { return true; }
};

}  // namespace jinja
