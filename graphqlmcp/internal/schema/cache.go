package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
)

// maxCacheEntries bounds the memory the cache holds: each entry is one
// schema, which for a large API is a few megabytes.
const maxCacheEntries = 16

// Cache keeps converted schemas for a while, keyed by endpoint and the headers
// that were sent (different credentials may see different schemas).
type Cache struct {
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	schema  *Schema
	fetched time.Time
}

// NewCache returns a cache that keeps entries for ttl (0 keeps nothing) and
// tells time with now.
func NewCache(ttl time.Duration, now func() time.Time) *Cache {
	return &Cache{ttl: ttl, now: now, entries: map[string]cacheEntry{}}
}

// Key identifies a schema fetch. It is a hash, so header values (credentials)
// are not kept in memory as map keys.
func Key(endpoint string, headers http.Header, includeDeprecated bool) string {
	h := sha256.New()
	h.Write([]byte(endpoint + "\n" + strconv.FormatBool(includeDeprecated) + "\n"))
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
// still fresh.
func (c *Cache) Get(key string) (*Schema, time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	entry, ok := c.entries[key]
	if !ok || c.now().Sub(entry.fetched) >= c.ttl {
		return nil, time.Time{}, false
	}
	return entry.schema, entry.fetched, true
}

// Put stores s under key, evicting the oldest entry when the cache is full.
func (c *Cache) Put(key string, s *Schema) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.ttl <= 0 {
		return now
	}
	if _, exists := c.entries[key]; !exists && len(c.entries) >= maxCacheEntries {
		oldest := ""
		for k, entry := range c.entries {
			if oldest == "" || entry.fetched.Before(c.entries[oldest].fetched) {
				oldest = k
			}
		}
		delete(c.entries, oldest)
	}
	c.entries[key] = cacheEntry{schema: s, fetched: now}
	return now
}
