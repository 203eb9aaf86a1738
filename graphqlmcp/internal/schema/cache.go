package schema

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"sync"
	"time"
)

// DefaultCacheBytes bounds the memory the cache holds: a large public API's
// schema (GitHub's) weighs about 5 MB, a hostile endpoint's may weigh 50.
const DefaultCacheBytes = 64 << 20

// Cache keeps converted schemas for a while, keyed by endpoint and the headers
// that were sent (different credentials may see different schemas). It holds
// at most a number of bytes (by Schema.Weight), evicting the least recently
// used entries; a schema heavier than the whole bound is not kept at all.
type Cache struct {
	ttl      time.Duration
	now      func() time.Time
	maxBytes int

	mu      sync.Mutex
	entries map[string]*cacheEntry
	order   *list.List // of keys, most recently used first
	bytes   int
}

type cacheEntry struct {
	schema  *Schema
	fetched time.Time
	used    *list.Element
}

// NewCache returns a cache that keeps entries for ttl (0 keeps nothing),
// holds at most maxBytes, and tells time with now.
func NewCache(ttl time.Duration, maxBytes int, now func() time.Time) *Cache {
	return &Cache{ttl: ttl, now: now, maxBytes: maxBytes, entries: map[string]*cacheEntry{}, order: list.New()}
}

// Key identifies a schema fetch. It is a hash, so header values (credentials)
// are not kept in memory as map keys.
func Key(endpoint string, headers http.Header) string {
	h := sha256.New()
	h.Write([]byte(endpoint + "\n"))
	names := make([]string, 0, len(headers))
	for name := range headers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		for _, value := range headers[name] {
			h.Write([]byte(name + ": " + value + "\n"))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Get returns the schema stored under key and when it was fetched, if it is
// still fresh, and marks it recently used.
func (c *Cache) Get(key string) (*Schema, time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entry, ok := c.entries[key]
	if !ok {
		return nil, time.Time{}, false
	}
	if c.now().Sub(entry.fetched) >= c.ttl {
		c.remove(key)
		return nil, time.Time{}, false
	}
	c.order.MoveToFront(entry.used)
	return entry.schema, entry.fetched, true
}

// Put stores s under key, evicting the least recently used entries until
// the cache is within its bound. It returns the time s is said to be
// fetched at.
func (c *Cache) Put(key string, s *Schema) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.ttl <= 0 || s.Weight() > c.maxBytes {
		return now
	}
	c.remove(key)
	for c.bytes+s.Weight() > c.maxBytes && c.order.Len() > 0 {
		c.remove(c.order.Back().Value.(string))
	}
	c.entries[key] = &cacheEntry{schema: s, fetched: now, used: c.order.PushFront(key)}
	c.bytes += s.Weight()
	return now
}

func (c *Cache) remove(key string) {
	if entry, ok := c.entries[key]; ok {
		c.order.Remove(entry.used)
		c.bytes -= entry.schema.Weight()
		delete(c.entries, key)
	}
}
