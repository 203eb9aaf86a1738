package config

import (
	"net/url"
	"strings"

	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/httpx"
)

// ReplayToVariable mirrors --replay-to.
const ReplayToVariable = "HOOKSVC_REPLAY_TO"

// maxReplayToBytes bounds an entry, so that its errors stay short.
const maxReplayToBytes = 2048

// ReplayTo checks each --replay-to entry: an absolute http(s) URL, its
// host in canonical form (the form targets are compared in), with no user
// name, query string or fragment, which a prefix cannot match by.
func ReplayTo(entries []string) ([]*url.URL, error) {
	var out []*url.URL
	for i, raw := range entries {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		if len(raw) > maxReplayToBytes {
			return nil, app.FlagErrorf("replay-to", "entry %d is %d bytes, over %d: pass a URL prefix such as https://dev.example.com/hooks", i+1, len(raw), maxReplayToBytes)
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, app.FlagErrorf("replay-to", "entry %d must be an absolute http(s) URL prefix such as https://dev.example.com/hooks; got %s", i+1, hooksvc.Quote(httpx.RedactURL(raw)))
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return nil, app.FlagErrorf("replay-to", "entry %d (%s) must be a scheme, host, port and path only: no user name, query string or fragment", i+1, httpx.DisplayURL(u))
		}
		if u, err = httpx.CanonicalURL(u); err != nil {
			return nil, app.FlagErrorf("replay-to", "entry %d: %v", i+1, err)
		}
		out = append(out, u)
	}
	return out, nil
}
