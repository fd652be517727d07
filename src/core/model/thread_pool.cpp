// std::thread pool of ThreadSanitizer builds (thread_pool.h).
#include "core/model/thread_pool.h"

namespace ai00::internal {

ThreadPool::ThreadPool(int n_workers) {
  for (int i = 0; i < n_workers; ++i) threads_.emplace_back([this] { worker(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void ThreadPool::work_on(Job& job) {
  for (;;) {
    const int64_t b = job.next.fetch_add(1);
    if (b >= job.n) return;
    std::exception_ptr error;
    try {
      (*job.body)(b);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(job.m);
    if (error && !job.error) job.error = error;
    if (++job.done == job.n) job.cv.notify_all();
  }
}

void ThreadPool::worker() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (stop_ && jobs_.empty()) return;
      job = jobs_.front();
      // Every block of the front job is claimed (or about to be): the next worker looks further.
      if (job->next.load() >= job->n) {
        jobs_.pop_front();
        continue;
      }
    }
    work_on(*job);
  }
}

void ThreadPool::run(int64_t n_blocks, const std::function<void(int64_t)>& body) {
  if (n_blocks <= 0) return;
  auto job = std::make_shared<Job>();
  job->body = &body;
  job->n = n_blocks;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(job);
  }
  cv_.notify_all();
  work_on(*job);
  std::unique_lock<std::mutex> lock(job->m);
  job->cv.wait(lock, [&] { return job->done == job->n; });
  if (job->error) std::rethrow_exception(job->error);
}

}  // namespace ai00::internal
