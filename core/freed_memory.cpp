#include "core/freed_memory.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fp {

void give_freed_memory_back() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace fp
