// This thread's CPU time, the benchmarks' clock for single-thread rates: it leaves out the time
// the thread waited for a core on a shared machine (it still counts memory stalls).
#pragma once
#include <ctime>

namespace ai00::bench {

// Seconds of CPU time this thread has run (CLOCK_THREAD_CPUTIME_ID).
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace ai00::bench
