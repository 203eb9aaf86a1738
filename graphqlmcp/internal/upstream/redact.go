package upstream

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strings"

	"github.com/mcpforge/servers/shared/jsonx"
)

// Redactor removes the startup header values from anything the server hands
// back (an endpoint may echo a header into its answer or its error page), so
// that no startup credential reaches the assistant.
type Redactor struct {
	secrets [][]byte
}

// Redacted replaces a secret wherever it appears.
const Redacted = "[REDACTED]"

// minSecretLen keeps short values ("1", "yes") from being redacted out of
// ordinary text; credentials are longer.
const minSecretLen = 6

// isPublicHeader reports the content-negotiation headers whose values are
// public by nature; every other startup header may carry a credential.
func isPublicHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Accept", "Accept-Language", "Accept-Encoding", "Content-Type", "User-Agent", "Cache-Control":
		return true
	}
	return false
}

// NewRedactor redacts the value of every header of headers that is not
// public, and for a value with a scheme ("Bearer abc…") its credential part
// too.
func NewRedactor(headers map[string]string) Redactor {
	var r Redactor
	add := func(s string) {
		if len(s) < minSecretLen {
			return
		}
		r.secrets = append(r.secrets, []byte(s))
		// An endpoint that echoes the value inside JSON escapes it, with or
		// without HTML escaping.
		for _, marshal := range []func(any) ([]byte, error){json.Marshal, jsonx.Marshal} {
			if escaped, err := marshal(s); err == nil && string(escaped[1:len(escaped)-1]) != s {
				r.secrets = append(r.secrets, escaped[1:len(escaped)-1])
			}
		}
	}
	for name, value := range headers {
		if isPublicHeader(name) {
			continue
		}
		add(value)
		if _, credential, ok := strings.Cut(value, " "); ok {
			add(strings.TrimSpace(credential))
		}
	}
	// Longest first, so a whole value goes before its credential part.
	slices.SortFunc(r.secrets, func(a, b []byte) int { return len(b) - len(a) })
	return r
}

// Bytes returns b with every secret replaced; b itself is not changed.
func (r Redactor) Bytes(b []byte) []byte {
	for _, secret := range r.secrets {
		if bytes.Contains(b, secret) {
			b = bytes.ReplaceAll(b, secret, []byte(Redacted))
		}
	}
	return b
}

// String is Bytes for text.
func (r Redactor) String(s string) string {
	return string(r.Bytes([]byte(s)))
}
