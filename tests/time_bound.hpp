// A test's bound on how long something may take, scaled for slow builds.
#pragma once

#include <chrono>
#include <cstdlib>
#include <functional>
#include <thread>

namespace fp::test {

// `seconds` scaled by FRAMEPIPE_TEST_TIME_SCALE (default 1, never below 1): the sanitizer
// presets set it, because their builds run several times slower and ThreadSanitizer delivers
// a signal only when the receiving thread next enters one of its interceptors. Every bound a
// test puts on elapsed time goes through it, and so does every limit on a wait whose result
// is then compared with such a bound (a fixed limit would cut a scaled bound short). A
// duration that the program itself keeps to (a configured timeout, a backoff) is real time
// and is added unscaled.
inline double time_bound(double seconds) {
  static const double scale = [] {
    const char* text = std::getenv("FRAMEPIPE_TEST_TIME_SCALE");
    const double value = text ? std::strtod(text, nullptr) : 1.0;
    return value >= 1.0 ? value : 1.0;
  }();
  return seconds * scale;
}

// Polls `done` every `every` until it holds or time_bound(seconds) has passed; its last answer.
inline bool eventually(const std::function<bool()>& done, double seconds,
                       std::chrono::milliseconds every = std::chrono::milliseconds(20)) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(seconds));
  while (std::chrono::steady_clock::now() < limit) {
    if (done()) return true;
    std::this_thread::sleep_for(every);
  }
  return done();
}

}  // namespace fp::test
