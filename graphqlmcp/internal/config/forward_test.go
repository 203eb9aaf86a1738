package config

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestForwardHeaders: --forward-header is repeatable, and its variable
// (here as the flag's comma-separated form) gives several names.
func TestForwardHeaders(t *testing.T) {
	cfg, err := parse(t, "--forward-header", "Authorization", "--forward-header", "X-Team, X-Request-Id")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"Authorization", "X-Team", "X-Request-Id"}, cfg.ForwardHeaders); diff != "" {
		t.Errorf("ForwardHeaders (-want +got):\n%s", diff)
	}
	t.Setenv("GRAPHQL_FORWARD_HEADERS", "Authorization,X-Team")
	if cfg, err = parse(t); err != nil || len(cfg.ForwardHeaders) != 2 {
		t.Errorf("from GRAPHQL_FORWARD_HEADERS: %v, %v", cfg.ForwardHeaders, err)
	}
}

// TestForwardHeadersRefused: each name refused says which, why and what to
// do instead.
func TestForwardHeadersRefused(t *testing.T) {
	tests := []struct {
		names     []string
		httpToken string
		want      string
	}{
		{[]string{"Host"}, "", `must name headers a caller may set: header "Host" cannot be set: the HTTP layer frames the request itself`},
		{[]string{"Content-Type"}, "", `header "Content-Type" cannot be set`},
		{[]string{"X Team"}, "", "is not a valid HTTP header name"},
		{[]string{"Authorization", "authorization"}, "", `must name each header once; "Authorization" and "authorization" name the same header`},
		{[]string{"X-Team", "X_Team"}, "", "name the same header"},
		{[]string{"Mcp-Session-Id"}, "", `must not name "Mcp-Session-Id": it belongs to the MCP connection`},
		{[]string{"Origin"}, "", "belongs to the MCP connection"},
		{[]string{"Authorization"}, "http-token", "must not name Authorization while --http-token is set"},
		{[]string{"authorization"}, "oauth-issuer", "must not name Authorization while --oauth-issuer is set"},
		{[]string{strings.Repeat("x", 101)}, "", "must name headers of at most 100 characters, got one of 101"},
		{strings.Split("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u", ","), "", "must name at most 20 headers, got 21"},
	}
	for _, tt := range tests {
		_, err := ParseForwardHeaders(tt.names, tt.httpToken)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q (authorized by %q): %v, want %q", tt.names, tt.httpToken, err, tt.want)
		}
	}
	if names, err := ParseForwardHeaders([]string{"X-Team"}, "oauth-issuer"); err != nil || len(names) != 1 {
		t.Errorf("X-Team with --oauth-issuer: %v %v", names, err)
	}
}

// TestForwardLog: over stdio the flag is said to do nothing, at warning
// level; over HTTP the names forwarded are logged.
func TestForwardLog(t *testing.T) {
	cfg := Config{ForwardHeaders: []string{"Authorization"}}
	if level, line := ForwardLog(cfg, false); level != slog.LevelWarn || !strings.Contains(line, "--forward-header Authorization has no effect over stdio") {
		t.Errorf("stdio: %v %q", level, line)
	}
	if level, line := ForwardLog(cfg, true); level != slog.LevelInfo || !strings.Contains(line, "forwarding the headers Authorization") {
		t.Errorf("http: %v %q", level, line)
	}
	if _, line := ForwardLog(Config{}, false); line != "" {
		t.Errorf("none: %q", line)
	}
}
