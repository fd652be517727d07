package ai00

// #include <stdlib.h>
// #include <ai00/ai00.h>
import "C"

import (
	"runtime"
	"sync"
	"unsafe"
)

// PrefixCacheOptions are the settings of a PrefixCache (ai00_prefix_cache_params); nil means
// the defaults.
type PrefixCacheOptions struct {
	MaxBytes     uint64 // bound of the entries' bytes; 0 means the default (256 MiB)
	CompressBF16 bool   // store States as bf16 (half the bytes; a hit is then within rounding)
}

// PrefixCacheStats are a cache's counters since it was made.
type PrefixCacheStats struct {
	Hits, Misses, HitTokens, Inserts, Evictions, Entries, Bytes, MaxBytes uint64
	// SpareBytes is the memory set aside for later entries (Reserve, and an evicted entry's
	// memory on its way to the insert that takes it), counted against MaxBytes.
	SpareBytes uint64
}

// PrefixCache keeps the States after token prefixes (system prompt, persona) so that a
// generator on a pristine State (new or reset) whose prompt starts with one skips its prefill
// (docs/prefix-cache.md). Set it in GenerateParams.PrefixCache. Every method is safe from any
// number of goroutines at once, as the header says of every ai00_prefix_cache function. The
// library frees a cache only after every generator using it: Close while some are open waits
// for the last one's Close.
type PrefixCache struct {
	mu      sync.Mutex
	ptr     *C.ai00_prefix_cache
	users   int  // open generators using the cache
	closing bool // Close was called while users > 0
}

// NewPrefixCache is a new, empty cache.
func NewPrefixCache(opts *PrefixCacheOptions) (*PrefixCache, error) {
	var p C.ai00_prefix_cache_params
	p.struct_size = C.sizeof_ai00_prefix_cache_params
	if err := call(func() C.ai00_status { return C.ai00_prefix_cache_params_default(&p) }); err != nil {
		return nil, err
	}
	if opts != nil {
		if opts.MaxBytes != 0 {
			p.max_bytes = C.uint64_t(opts.MaxBytes)
		}
		if opts.CompressBF16 {
			p.compress_bf16 = 1
		}
	}
	var c *C.ai00_prefix_cache
	if err := call(func() C.ai00_status { return C.ai00_prefix_cache_new(&c, &p) }); err != nil {
		return nil, err
	}
	pc := &PrefixCache{ptr: c}
	runtime.SetFinalizer(pc, (*PrefixCache).Close)
	return pc, nil
}

// Close frees the cache, or once the last generator using it is closed. Idempotent.
func (c *PrefixCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users > 0 {
		c.closing = true
		return nil
	}
	c.free()
	return nil
}

func (c *PrefixCache) free() {
	if c.ptr != nil {
		C.ai00_prefix_cache_free(c.ptr)
		c.ptr = nil
		runtime.SetFinalizer(c, nil)
	}
}

// retain registers a generator using the cache; release unregisters it.
func (c *PrefixCache) retain() (*C.ai00_prefix_cache, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ptr == nil || c.closing {
		return nil, closedError("prefix cache")
	}
	c.users++
	return c.ptr, nil
}

func (c *PrefixCache) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.users--
	if c.users == 0 && c.closing {
		c.free()
	}
}

func (c *PrefixCache) raw() (*C.ai00_prefix_cache, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ptr == nil || c.closing {
		return nil, closedError("prefix cache")
	}
	return c.ptr, nil
}

// Stats are the counters (hits, misses, hit tokens, inserts, evictions, entries, bytes, spare
// bytes).
func (c *PrefixCache) Stats() (PrefixCacheStats, error) {
	p, err := c.raw()
	if err != nil {
		return PrefixCacheStats{}, err
	}
	var s C.ai00_prefix_cache_stats
	s.struct_size = C.sizeof_ai00_prefix_cache_stats
	if err := call(func() C.ai00_status { return C.ai00_prefix_cache_stats_get(&s, p) }); err != nil {
		return PrefixCacheStats{}, err
	}
	return PrefixCacheStats{uint64(s.hits), uint64(s.misses), uint64(s.hit_tokens), uint64(s.inserts),
		uint64(s.evictions), uint64(s.entries), uint64(s.bytes), uint64(s.max_bytes),
		uint64(s.spare_bytes)}, nil
}

// Clear drops every entry and the memory set aside (the counters other than Entries, Bytes and
// SpareBytes are kept).
func (c *PrefixCache) Clear() error {
	p, err := c.raw()
	if err != nil {
		return err
	}
	return call(func() C.ai00_status { return C.ai00_prefix_cache_clear(p) })
}

// rawWith is the cache's handle and m's, or the error of a closed one.
func (c *PrefixCache) rawWith(m *Model) (*C.ai00_prefix_cache, *C.ai00_model, error) {
	p, err := c.raw()
	if err != nil {
		return nil, nil, err
	}
	mp, err := m.raw()
	if err != nil {
		return nil, nil, err
	}
	return p, mp, nil
}

// Reserve sets memory aside now for entries more entries of m (allocated and written, so its
// pages are in), for a loop that must not wait on fresh pages when a generator stores a State
// later; later inserts of that model take this memory first. It counts against MaxBytes
// (Stats().SpareBytes). It returns how many entries were set aside: fewer when the bound is
// reached, 0 for 0 entries. Negative entries are ErrInvalidArgument.
func (c *PrefixCache) Reserve(m *Model, entries int) (int, error) {
	p, mp, err := c.rawWith(m)
	if err != nil {
		return 0, err
	}
	if entries < 0 {
		return 0, &Error{Status: ErrInvalidArgument, Message: "entries is negative"}
	}
	var out C.size_t
	err = call(func() C.ai00_status { return C.ai00_prefix_cache_reserve(&out, p, mp, C.size_t(entries)) })
	return int(out), err
}

// Warm stores the State after tokens fed to the zero state; it returns how many tokens ran
// through the model (0 when all were cached).
func (c *PrefixCache) Warm(m *Model, tokens []uint32) (int, error) {
	p, mp, err := c.rawWith(m)
	if err != nil {
		return 0, err
	}
	t, n := tokensPtr(tokens)
	var out C.size_t
	err = call(func() C.ai00_status { return C.ai00_prefix_cache_warm(&out, p, mp, t, n) })
	return int(out), err
}

// WarmText is Warm on the model's encoding of text (e.g. a persona's rendered system prompt).
func (c *PrefixCache) WarmText(m *Model, text string) (int, error) {
	p, mp, err := c.rawWith(m)
	if err != nil {
		return 0, err
	}
	b := []byte(text)
	t, n := cbytesNonNil(b)
	var out C.size_t
	err = call(func() C.ai00_status { return C.ai00_prefix_cache_warm_text(&out, p, mp, t, n) })
	runtime.KeepAlive(b)
	return int(out), err
}

// LastError is the message of the last failed call on the cache (shared between goroutines:
// the *Error a call returns is its own).
func (c *PrefixCache) LastError() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return C.GoString(C.ai00_prefix_cache_last_error(c.ptr))
}

// cArray is zeroed C memory for n (at least 1) elements of size bytes (cgo forbids Go
// memory holding Go pointers being passed to C). The caller frees it.
func cArray(n int, size uintptr) unsafe.Pointer {
	if n == 0 {
		n = 1
	}
	return C.calloc(C.size_t(n), C.size_t(size))
}
