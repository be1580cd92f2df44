#include "core/freed_memory.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// A sanitizer's allocator takes malloc's place, and glibc's heap is then never used:
// malloc_trim would be the first call into it, and glibc sets its heap up lazily and
// without a lock, so two streams ending at once each took the main arena as their own
// (the second thread to exit aborted, or mtrim read a null bin). Under a sanitizer there is
// nothing of glibc's to give back.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FRAMEPIPE_SANITIZER_ALLOCATOR 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FRAMEPIPE_SANITIZER_ALLOCATOR 1
#endif

namespace fp {

void give_freed_memory_back() {
#if defined(__GLIBC__) && !defined(FRAMEPIPE_SANITIZER_ALLOCATOR)
  malloc_trim(0);
#endif
}

}  // namespace fp
