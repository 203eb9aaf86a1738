// Package redact removes secrets (API keys, credential headers) from anything
// a server hands back or logs: an upstream may echo a credential into its
// answer or its error page, and it must never reach the assistant from there.
package redact

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/mcpforge/servers/shared/jsonx"
)

// Redacted replaces a secret wherever it appears.
const Redacted = "[REDACTED]"

// MinSecretLen keeps short values ("1", "yes") from being redacted out of
// ordinary text; credentials are longer.
const MinSecretLen = 6

// Redactor replaces a fixed set of secrets. The zero value redacts nothing.
type Redactor struct {
	secrets [][]byte
}

// New redacts each secret of at least MinSecretLen bytes, also in the
// JSON-escaped forms an upstream that echoes it inside JSON would use.
func New(secrets ...string) Redactor {
	var r Redactor
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		r.secrets = append(r.secrets, []byte(s))
		for _, marshal := range []func(any) ([]byte, error){json.Marshal, jsonx.Marshal} {
			if escaped, err := marshal(s); err == nil && string(escaped[1:len(escaped)-1]) != s {
				r.secrets = append(r.secrets, escaped[1:len(escaped)-1])
			}
		}
	}
	// Longest first, so a whole value goes before a part of it.
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
