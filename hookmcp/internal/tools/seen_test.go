package tools

import (
	"strconv"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
)

// TestSeenCursors: the memory only moves forward, and past its bound the
// token used least recently is forgotten first.
func TestSeenCursors(t *testing.T) {
	s := newSeenCursors(3)
	s.see("a", 10)
	s.see("a", 5)
	if got, ok := s.last("a"); !ok || got != 10 {
		t.Errorf("a: %d %v, want 10: an older request does not move the cursor back", got, ok)
	}
	s.see("b", 1)
	s.see("c", 1)
	s.last("a") // a is used again: b is now the least recent
	s.see("d", 1)
	if _, ok := s.last("b"); ok {
		t.Error("b is still remembered past the bound")
	}
	for _, token := range []hooksvc.TokenID{"a", "c", "d"} {
		if _, ok := s.last(token); !ok {
			t.Errorf("%s was forgotten", token)
		}
	}
	big := newSeenCursors(maxSeenTokens)
	for i := range maxSeenTokens + 100 {
		big.see(hooksvc.TokenID(strconv.Itoa(i)), int64(i))
	}
	if n := big.order.Len(); n != maxSeenTokens || len(big.byID) != maxSeenTokens {
		t.Errorf("holds %d tokens (%d indexed), want at most %d", n, len(big.byID), maxSeenTokens)
	}
}

// TestSeenClaims: a request id is claimed once, and past the bound the
// oldest claim is forgotten first.
func TestSeenClaims(t *testing.T) {
	s := newSeenCursors(2)
	if !s.claim("a") || s.claim("a") {
		t.Error("a: the first claim must win and the second lose")
	}
	s.claim("b")
	s.claim("c")
	if !s.claim("a") {
		t.Error("a is still claimed past the bound")
	}
	if s.claim("c") || len(s.claimed) != 2 || len(s.claimOrder) != 2 {
		t.Errorf("holds %v, want the 2 newest claims", s.claimOrder)
	}
}
