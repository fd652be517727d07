//! `ai00_prefix_cache`: States after token prefixes, shared by generators (docs/prefix-cache.md).
use crate::{check, copy_cstr, sys, Model, Result};
use std::sync::Arc;

pub(crate) struct CacheHandle(pub(crate) *mut sys::ai00_prefix_cache);

// Every ai00_prefix_cache function is thread-safe (header: "Any number of threads and
// generators may use one cache at once"), so the handle may be shared and sent.
unsafe impl Send for CacheHandle {}
unsafe impl Sync for CacheHandle {}

impl Drop for CacheHandle {
    fn drop(&mut self) {
        unsafe { sys::ai00_prefix_cache_free(self.0) };
    }
}

/// Settings of a [`PrefixCache`] (`ai00_prefix_cache_params`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PrefixCacheParams {
    /// Bound of the entries' bytes (default 256 MiB).
    pub max_bytes: u64,
    /// Store States as bf16: half the bytes, a hit within bf16 rounding of a full prefill.
    pub compress_bf16: bool,
}

impl Default for PrefixCacheParams {
    fn default() -> Self {
        let mut raw = sys::ai00_prefix_cache_params {
            struct_size: std::mem::size_of::<sys::ai00_prefix_cache_params>() as u32,
            max_bytes: 0,
            compress_bf16: 0,
        };
        unsafe { sys::ai00_prefix_cache_params_default(&mut raw) };
        PrefixCacheParams { max_bytes: raw.max_bytes, compress_bf16: raw.compress_bf16 != 0 }
    }
}

/// Counters of a cache since it was made (`ai00_prefix_cache_stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PrefixCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub hit_tokens: u64,
    pub inserts: u64,
    pub evictions: u64,
    pub entries: u64,
    pub bytes: u64,
    pub max_bytes: u64,
    /// Memory set aside for later entries ([`PrefixCache::reserve`], and an evicted entry's
    /// memory on its way to the insert that takes it), counted against `max_bytes`.
    pub spare_bytes: u64,
}

/// A prefix-state cache. `Send + Sync` because every function of `ai00_prefix_cache` is
/// thread-safe; `Clone` shares the same cache (an `Arc`). Set it in
/// [`crate::GenerateParams::prefix_cache`]: each generator keeps its own clone of the `Arc`, so
/// the cache is freed only after the last generator using it (the header's ownership rule).
#[derive(Clone)]
pub struct PrefixCache {
    pub(crate) handle: Arc<CacheHandle>,
}

impl PrefixCache {
    /// A new, empty cache.
    pub fn new(params: &PrefixCacheParams) -> Result<PrefixCache> {
        let raw = sys::ai00_prefix_cache_params {
            struct_size: std::mem::size_of::<sys::ai00_prefix_cache_params>() as u32,
            max_bytes: params.max_bytes,
            compress_bf16: params.compress_bf16 as i32,
        };
        let mut c = std::ptr::null_mut();
        check(unsafe { sys::ai00_prefix_cache_new(&mut c, &raw) })?;
        Ok(PrefixCache { handle: Arc::new(CacheHandle(c)) })
    }

    pub(crate) fn raw(&self) -> *mut sys::ai00_prefix_cache {
        self.handle.0
    }

    /// The counters.
    pub fn stats(&self) -> Result<PrefixCacheStats> {
        let mut s: sys::ai00_prefix_cache_stats = unsafe { std::mem::zeroed() };
        s.struct_size = std::mem::size_of::<sys::ai00_prefix_cache_stats>() as u32;
        check(unsafe { sys::ai00_prefix_cache_stats_get(&mut s, self.raw()) })?;
        Ok(PrefixCacheStats { hits: s.hits, misses: s.misses, hit_tokens: s.hit_tokens,
                              inserts: s.inserts, evictions: s.evictions, entries: s.entries,
                              bytes: s.bytes, max_bytes: s.max_bytes,
                              spare_bytes: s.spare_bytes })
    }

    /// Drops every entry and the memory set aside (the counters other than entries, bytes and
    /// spare_bytes are kept).
    pub fn clear(&self) -> Result<()> {
        check(unsafe { sys::ai00_prefix_cache_clear(self.raw()) })
    }

    /// Sets memory aside now for `entries` more entries of `model` (allocated and written, so
    /// its pages are in), for a loop that must not wait on fresh pages when a generator stores a
    /// State later. Later inserts of that model take this memory first. It counts against
    /// `max_bytes` ([`PrefixCacheStats::spare_bytes`]); returns how many entries were set aside,
    /// fewer when the bound is reached (0 entries: 0).
    pub fn reserve(&self, model: &Model, entries: usize) -> Result<usize> {
        let mut n = 0usize;
        check(unsafe { sys::ai00_prefix_cache_reserve(&mut n, self.raw(), model.raw(), entries) })?;
        Ok(n)
    }

    /// Stores the State after `tokens` fed to the zero state; returns the tokens that ran
    /// through the model (0 when all were cached).
    pub fn warm(&self, model: &Model, tokens: &[u32]) -> Result<usize> {
        let mut n = 0usize;
        check(unsafe {
            sys::ai00_prefix_cache_warm(&mut n, self.raw(), model.raw(), tokens.as_ptr(),
                                        tokens.len())
        })?;
        Ok(n)
    }

    /// [`PrefixCache::warm`] on the model's encoding of `text`.
    pub fn warm_text(&self, model: &Model, text: &str) -> Result<usize> {
        let mut n = 0usize;
        check(unsafe {
            sys::ai00_prefix_cache_warm_text(&mut n, self.raw(), model.raw(),
                                             text.as_ptr() as *const _, text.len())
        })?;
        Ok(n)
    }

    /// The message of the last failed call on the cache (shared between threads: the
    /// [`crate::Error`] a call returns is its own).
    pub fn last_error(&self) -> String {
        unsafe { copy_cstr(sys::ai00_prefix_cache_last_error(self.raw())) }
    }
}
