// Which sanitizer this code is compiled under, the same way for GCC (which defines
// __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__) and Clang (which answers __has_feature only):
// FRAMEPIPE_ASAN and FRAMEPIPE_TSAN are defined to 1, or not at all.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define FRAMEPIPE_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__)
#define FRAMEPIPE_TSAN 1
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(FRAMEPIPE_ASAN)
#define FRAMEPIPE_ASAN 1
#endif
#if __has_feature(thread_sanitizer) && !defined(FRAMEPIPE_TSAN)
#define FRAMEPIPE_TSAN 1
#endif
#endif
