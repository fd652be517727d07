// A small std::thread pool behind Model::parallel_blocks for ThreadSanitizer builds
// (docs/model.md "Threads under ThreadSanitizer"). Debian's oneTBB is not instrumented, so TSan
// can neither see its synchronisation nor report races inside it: with AI00_SANITIZE_THREAD the
// model runs its parallel loops here instead, where every hand-off is a std::mutex /
// std::condition_variable / std::atomic that TSan understands. Same blocks, same results.
//
// Threading: run() may be called from any number of threads at once (a shared Model, many
// generators); each call queues one job, works on it itself and returns when all its blocks are
// done. The first exception thrown by a block is rethrown by run().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ai00::internal {

class ThreadPool {
 public:
  explicit ThreadPool(int n_workers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // body(b) for every b in [0, n_blocks), on the workers and the calling thread.
  void run(int64_t n_blocks, const std::function<void(int64_t)>& body);

 private:
  struct Job {
    const std::function<void(int64_t)>* body = nullptr;
    int64_t n = 0;
    std::atomic<int64_t> next{0};
    std::mutex m;
    std::condition_variable cv;
    int64_t done = 0;  // guarded by m
    std::exception_ptr error;
  };
  void worker();
  static void work_on(Job& job);

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> jobs_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace ai00::internal
