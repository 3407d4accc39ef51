// Bump allocation for the values json_loads builds.
//
// A parsed template context is hundreds of small heap values (message dicts,
// their strings and lists) that are created together and die together when
// the render ends. Taking each value's shared_ptr control block from one
// chunked bump arena (std::allocate_shared with ArenaAllocator) replaces a
// malloc/free pair per value with a pointer bump and a counter update.
//
// Lifetime: the arena counts live allocations (plus its creator's
// reference) and frees its chunks when the count reaches zero, so a value
// that outlives the parse (kept by a template, returned by fromjson, ...)
// simply keeps the whole arena alive; nothing ever dangles. The count is
// atomic because values may be released on another thread than the one that
// parsed them (async renders); bumping itself only happens during the parse,
// on one thread.
#pragma once

#include <atomic>
#include <cstddef>

namespace jinja {

class Arena {
 public:
  // `first_chunk`: bytes of the first chunk (later chunks double, capped).
  static Arena* create(size_t first_chunk);
  Arena(const Arena&) = delete;
  Arena& operator=(const Arena&) = delete;

  void* allocate(size_t bytes, size_t align) {
    size_t p = (cur_ + align - 1) & ~(align - 1);
    if (p + bytes > end_) return allocate_slow(bytes, align);
    cur_ = p + bytes;
    return reinterpret_cast<void*>(p);
  }
  void retain() { refs_.fetch_add(1, std::memory_order_relaxed); }
  // Drops one reference; the last one frees the arena.
  void release() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy();
  }

 private:
  struct Chunk {
    Chunk* next;
  };
  explicit Arena(size_t first_chunk) : next_size_(first_chunk) {}
  ~Arena() = default;
  void* allocate_slow(size_t bytes, size_t align);
  void destroy();

  size_t cur_ = 0, end_ = 0;  // free space of the newest chunk
  size_t next_size_;
  Chunk* chunks_ = nullptr;
  std::atomic<size_t> refs_{1};  // the creator's reference
};

// Standard allocator over an Arena; every allocation holds a reference.
template <class T>
struct ArenaAllocator {
  using value_type = T;
  Arena* arena;

  explicit ArenaAllocator(Arena* a) : arena(a) {}
  template <class U>
  ArenaAllocator(const ArenaAllocator<U>& other) : arena(other.arena) {}

  T* allocate(size_t n) {
    void* p = arena->allocate(n * sizeof(T), alignof(T));
    arena->retain();
    return static_cast<T*>(p);
  }
  void deallocate(T*, size_t) { arena->release(); }

  template <class U>
  bool operator==(const ArenaAllocator<U>& other) const { return arena == other.arena; }
};

}  // namespace jinja
