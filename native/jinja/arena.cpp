// Chunk management of the bump arena (see arena.h).
#include "arena.h"

#include <algorithm>
#include <new>

namespace jinja {

namespace {
constexpr size_t kMaxChunk = size_t(1) << 20;  // growth stops here: big contexts get 1 MiB chunks
constexpr size_t kHeader = (sizeof(void*) + alignof(std::max_align_t) - 1) & ~(alignof(std::max_align_t) - 1);
}  // namespace

Arena* Arena::create(size_t first_chunk) { return new Arena(std::clamp<size_t>(first_chunk, 1024, kMaxChunk)); }

void* Arena::allocate_slow(size_t bytes, size_t align) {
  // A request bigger than the chunk size gets a chunk of its own size.
  size_t size = std::max(next_size_, bytes + align + kHeader);
  next_size_ = std::min(next_size_ * 2, kMaxChunk);
  auto* chunk = static_cast<Chunk*>(::operator new(size));
  chunk->next = chunks_;
  chunks_ = chunk;
  cur_ = reinterpret_cast<size_t>(chunk) + kHeader;
  end_ = reinterpret_cast<size_t>(chunk) + size;
  return allocate(bytes, align);
}

void Arena::destroy() {
  for (Chunk* c = chunks_; c;) {
    Chunk* next = c->next;
    ::operator delete(c);
    c = next;
  }
  delete this;
}

}  // namespace jinja
