package imaging

import (
	"fmt"
	"image"
	"sync"
)

// CacheKey names one encoding of one state of a framebuffer.
type CacheKey struct {
	Seq     uint64          // fb.Buffer sequence the pixels reflect
	Region  image.Rectangle // in framebuffer pixels; the whole frame is its bounds
	Scale   float64
	Format  string // "png", "jpeg"
	Quality int    // JPEG quality or PNG level; 0 for the default
}

// DefaultCacheEntries is the capacity of a zero EncodeCache: enough for a
// full screenshot, a scaled one and a couple of crops of the same frame.
const DefaultCacheEntries = 4

// EncodeCache keeps the most recent encodings so an unchanged frame is
// encoded once, however many readers ask. Concurrent requests for the same
// key wait for one encoder. The zero value is ready to use.
//
// Use the sequence the pixels were read at: fb.Buffer.Read passes it
// together with the pixels under one lock. Taking Seq before or after a
// separate snapshot could file newer or older pixels under the wrong key.
//
// Returned bytes are shared between callers and must not be modified.
type EncodeCache struct {
	// Entries is the capacity; 0 means DefaultCacheEntries.
	Entries int

	mu      sync.Mutex
	entries []*cacheEntry // most recent first
	lastSeq uint64
}

type cacheEntry struct {
	key  CacheKey
	done chan struct{}
	data []byte
	err  error
}

// Get returns finished bytes for k, if held.
func (c *EncodeCache) Get(k CacheKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.entries {
		if e.key == k {
			select {
			case <-e.done:
				return e.data, e.err == nil
			default:
				return nil, false
			}
		}
	}
	return nil, false
}

// GetOrEncode returns the bytes for k, running encode only when no finished
// or in-flight encoding of k exists. A failed encoding is not kept. Entries
// for sequences older than the newest seen are dropped first, since a frame
// that moved on is not asked for again.
func (c *EncodeCache) GetOrEncode(k CacheKey, encode func() ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	for i, e := range c.entries {
		if e.key == k {
			c.moveFront(i)
			c.mu.Unlock()
			<-e.done
			return e.data, e.err
		}
	}
	e := &cacheEntry{key: k, done: make(chan struct{})}
	c.insert(e)
	c.mu.Unlock()

	func() {
		defer close(e.done)
		defer func() {
			if r := recover(); r != nil {
				e.err = fmt.Errorf("imaging: encoder panicked: %v", r)
				c.remove(e)
				panic(r)
			}
		}()
		e.data, e.err = encode()
	}()
	if e.err != nil {
		c.remove(e)
	}
	return e.data, e.err
}

// Reset drops everything held.
func (c *EncodeCache) Reset() {
	c.mu.Lock()
	c.entries = nil
	c.mu.Unlock()
}

func (c *EncodeCache) capacity() int {
	if c.Entries > 0 {
		return c.Entries
	}
	return DefaultCacheEntries
}

func (c *EncodeCache) moveFront(i int) {
	e := c.entries[i]
	copy(c.entries[1:i+1], c.entries[:i])
	c.entries[0] = e
}

func (c *EncodeCache) insert(e *cacheEntry) {
	if e.key.Seq > c.lastSeq {
		c.lastSeq = e.key.Seq
		kept := c.entries[:0]
		for _, old := range c.entries {
			if old.key.Seq >= c.lastSeq {
				kept = append(kept, old)
			}
		}
		clear(c.entries[len(kept):])
		c.entries = kept
	}
	c.entries = append(c.entries, nil)
	copy(c.entries[1:], c.entries)
	c.entries[0] = e
	if n := c.capacity(); len(c.entries) > n {
		clear(c.entries[n:])
		c.entries = c.entries[:n]
	}
}

func (c *EncodeCache) remove(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, old := range c.entries {
		if old == e {
			c.entries = append(c.entries[:i], c.entries[i+1:]...)
			return
		}
	}
}
