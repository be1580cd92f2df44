#include "core/freed_memory.hpp"

#include "core/sanitizers.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// A sanitizer's allocator takes malloc's place, and glibc's heap is then never used:
// malloc_trim would be the first call into it, and glibc sets its heap up lazily and
// without a lock, so two streams ending at once each took the main arena as their own
// (the second thread to exit aborted, or mtrim read a null bin). Under a sanitizer there is
// nothing of glibc's to give back.
namespace fp {

void give_freed_memory_back() {
#if defined(__GLIBC__) && !defined(FRAMEPIPE_ASAN) && !defined(FRAMEPIPE_TSAN)
  malloc_trim(0);
#endif
}

}  // namespace fp
