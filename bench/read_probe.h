// The read bandwidth: the yardstick of every roofline ratio in bench/ (decode tokens/s x weight
// bytes per token, a streamed kernel's weight bytes/s). Shared by bench_speed_table,
// bench_kernels and bench_decode.
//
// A limit is the most the machine gives, so a probe is the best of several access patterns, not
// one: one sequential stream of 64-bit words (the only pattern until 30 Nov 2026), and the share
// split into 4 or 8 contiguous pieces read a 64-byte line of each in turn, each piece asked for a
// few lines ahead (prefetcht0). On the AVX2-only Zen 3 VM (2 cores) the single stream read
// 8.8-9.9 GB/s on 1 thread and 15-17 on 2, the interleaved ones 12.4-15.4 and 20-24, and the
// model's own decode had read 12.8 GB/s on 1 thread (1.5B F32), "134 % of the roofline" against
// the single stream. read_bandwidth() probes a buffer of the caller's; read_spans_bandwidth()
// the very bytes a decode reads, since on that VM the rate also depends on the memory read
// (docs/decode-speed.md "The read probe").
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <thread>
#include <vector>

#include "thread_time.h"

namespace ai00::bench {

struct ReadBandwidth {
  double gbps = 0;           // bytes / s / 1e9, the best pattern's best run
  const char* pattern = "";  // which pattern gave it
};

namespace read_probe_detail {

// One sequential stream of words, four independent accumulators.
inline uint64_t read_sequential(const uint64_t* p, size_t words) {
  uint64_t a = 0, b = 0, c = 0, d = 0;
  for (size_t i = 0; i + 4 <= words; i += 4) a ^= p[i], b += p[i + 1], c ^= p[i + 2], d += p[i + 3];
  return a ^ b ^ c ^ d;
}

// kStreams contiguous pieces, one 64-byte line of each in turn, each asked for kAhead bytes
// ahead; every word of every line is read (the last words % (8 * kStreams) words are not).
template <int kStreams, int kAhead>
uint64_t read_interleaved(const uint64_t* p, size_t words) {
  constexpr size_t kLine = 8;  // words per 64-byte line
  const size_t piece = words / kStreams / kLine * kLine;
  uint64_t acc[kStreams] = {};
  for (size_t o = 0; o < piece; o += kLine) {
    for (int s = 0; s < kStreams; ++s) {
      const uint64_t* l = p + static_cast<size_t>(s) * piece + o;
      __builtin_prefetch(l + kAhead / 8, 0, 3);
      acc[s] ^= (l[0] + l[1]) ^ (l[2] + l[3]) ^ (l[4] + l[5]) ^ (l[6] + l[7]);
    }
  }
  uint64_t r = 0;
  for (uint64_t a : acc) r ^= a;
  return r;
}

// A thread's share of a list of byte ranges, as whole 64-byte lines (a line never crosses a
// page, so reading a range's first and last lines whole cannot fault; a line split between two
// threads is read by both).
struct Lines {
  const uint64_t* first = nullptr;
  size_t words = 0;  // 8 per line
};

template <class Span>
std::vector<std::vector<Lines>> split_lines(const std::vector<Span>& spans, int threads,
                                            double& bytes) {
  bytes = 0;
  for (const Span& s : spans) bytes += static_cast<double>(s.bytes);
  std::vector<std::vector<Lines>> out(static_cast<size_t>(threads));
  if (bytes == 0) return out;
  const double share = bytes / threads;
  double done = 0;
  for (const Span& s : spans) {
    size_t off = 0;
    while (off < s.bytes) {
      const size_t t = std::min(static_cast<size_t>(done / share), out.size() - 1);
      size_t take = s.bytes - off;  // the last thread takes the rest
      if (t + 1 < out.size()) {
        const double room = share * static_cast<double>(t + 1) - done;
        take = std::min(take, std::max<size_t>(64, static_cast<size_t>(std::max(0.0, room))));
      }
      const uintptr_t b = reinterpret_cast<uintptr_t>(s.data + off) & ~uintptr_t{63};
      const uintptr_t e = (reinterpret_cast<uintptr_t>(s.data + off + take) + 63) & ~uintptr_t{63};
      out[t].push_back({reinterpret_cast<const uint64_t*>(b), (e - b) / 8});
      off += take;
      done += static_cast<double>(take);
    }
  }
  return out;
}

using Reader = uint64_t (*)(const uint64_t*, size_t);

struct Pattern {
  const char* name;
  Reader read;
  size_t streams;  // words past the last 8 * streams-word step are not read by `read`
};
constexpr Pattern kOneStream{"1 stream", read_sequential, 1};
constexpr Pattern kFourStreams{"4 streams, prefetch 1 KB", read_interleaved<4, 1024>, 4};
constexpr Pattern kEightStreams{"8 streams, prefetch 512 B", read_interleaved<8, 512>, 8};
// The decode kernels' own order on the 16-register x86 tables (docs/decode-speed.md "Decode in
// pieces"): a limit must read at least as well as the kernels it measures.
constexpr Pattern kFourNear{"4 streams, prefetch 256 B", read_interleaved<4, 256>, 4};

// Each pattern's best of 5 runs over the threads' shares (`parts`, `bytes` in all), the best
// pattern's rate. A share's ranges of under 4 KB are read as one stream. Wall time, or with
// cpu_time and one thread this thread's CPU time, which leaves out time spent waiting for a core
// on a shared machine.
inline ReadBandwidth best_pattern(const std::vector<std::vector<Lines>>& parts, double bytes,
                                  bool cpu_time, std::initializer_list<Pattern> patterns) {
  static volatile uint64_t g_sink = 0;  // keeps the reads
  const int threads = static_cast<int>(parts.size());
  std::vector<uint64_t> sums(parts.size());
  ReadBandwidth out;
  for (const Pattern& p : patterns) {
    auto run = [&](int t) {
      uint64_t acc = 0;
      for (const Lines& l : parts[static_cast<size_t>(t)]) {
        if (l.words < 512) {
          acc ^= read_sequential(l.first, l.words);
          continue;
        }
        const size_t done = l.words / (8 * p.streams) * (8 * p.streams);
        acc ^= p.read(l.first, l.words) ^ read_sequential(l.first + done, l.words - done);
      }
      sums[static_cast<size_t>(t)] ^= acc;
    };
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
      std::vector<std::thread> pool;
      const double c0 = thread_cpu_seconds();
      const auto t0 = std::chrono::steady_clock::now();
      for (int t = 1; t < threads; ++t) pool.emplace_back(run, t);
      run(0);
      for (std::thread& th : pool) th.join();
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, cpu_time && threads == 1 ? thread_cpu_seconds() - c0 : wall);
    }
    if (bytes / best / 1e9 > out.gbps) out = {bytes / best / 1e9, p.name};
  }
  for (uint64_t v : sums) g_sink = g_sink ^ v;
  return out;
}

struct ByteRange {
  const uint8_t* data;
  size_t bytes;
};

}  // namespace read_probe_detail

// The read bandwidth of `buf` (make it far larger than the last-level cache, e.g. 512 MiB)
// split among `threads` threads: one stream, 4 pieces 1 KB or 256 B ahead or 8 pieces 512 B
// ahead, the best pattern's best of 5 runs.
inline ReadBandwidth read_bandwidth(const std::vector<uint64_t>& buf, int threads,
                                    bool cpu_time = false) {
  using namespace read_probe_detail;
  double bytes = 0;
  const std::vector<ByteRange> whole{
      {reinterpret_cast<const uint8_t*>(buf.data()), buf.size() * sizeof(uint64_t)}};
  const std::vector<std::vector<Lines>> parts = split_lines(whole, threads, bytes);
  return best_pattern(parts, bytes, cpu_time, {kOneStream, kFourStreams, kFourNear, kEightStreams});
}

// The read bandwidth of the bytes of `spans` (any type with `data` and `bytes`, e.g. the
// weights a decode token reads: core/model/rwkv7.h decode_weight_spans), split among `threads`
// threads by bytes: each range read as one stream or as 4 or 8 interleaved streams with
// prefetch (ranges under 4 KB as one stream), the best pattern's best of 5. On a VM the read rate
// depends on where the memory lies (docs/decode-speed.md "The read probe"), so a decode's own bytes
// are the fairest yardstick for that decode. cpu_time with one thread: this thread's CPU time.
template <class Span>
ReadBandwidth read_spans_bandwidth(const std::vector<Span>& spans, int threads,
                                   bool cpu_time = false) {
  using namespace read_probe_detail;
  double bytes = 0;
  const std::vector<std::vector<Lines>> parts = split_lines(spans, threads, bytes);
  return best_pattern(parts, bytes, cpu_time, {kOneStream, kFourNear, kEightStreams});
}

}  // namespace ai00::bench
