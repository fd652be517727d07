// The prefix-cache handle of the C ABI, shared with the generator binding (which passes the
// cache to GenerateOptions::prefix_cache).
#pragma once

#include <memory>

#include "abi_internal.h"
#include "core/model/prefix_cache.h"

// Shared by any number of threads: the cache is thread-safe and the error slot locks.
struct ai00_prefix_cache {
  std::shared_ptr<ai00::internal::PrefixCache> cache;
  mutable ai00::internal::abi::ErrorSlot error;
};
