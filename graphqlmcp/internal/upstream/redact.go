package upstream

import (
	"net/http"
	"strings"

	"github.com/mcpforge/servers/shared/redact"
)

// Redactor removes the startup header values from anything the server hands
// back (an endpoint may echo a header into its answer or its error page), so
// that no startup credential reaches the assistant.
type Redactor = redact.Redactor

// Redacted replaces a secret wherever it appears.
const Redacted = redact.Redacted

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
	var secrets []string
	for name, value := range headers {
		if isPublicHeader(name) {
			continue
		}
		secrets = append(secrets, value)
		if _, credential, ok := strings.Cut(value, " "); ok {
			secrets = append(secrets, strings.TrimSpace(credential))
		}
	}
	return redact.New(secrets...)
}
