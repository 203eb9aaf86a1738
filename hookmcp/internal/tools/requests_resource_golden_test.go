package tools

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/shared/redact"
)

// goldenRequests is how many requests the golden listing holds: three
// pages of 100 and a short fourth.
const goldenRequests = 342

// goldenItem is request i of the golden listing, spelt as the hosted
// service's PHP writes it (every / as \/, letters beyond ASCII as \uXXXX),
// and now and then otherwise: spaces between tokens, an account field, a
// number float64 cannot hold, a lone surrogate, control characters, and
// the key in each encoding an echo carries it in.
func goldenItem(i int) string {
	uuid := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i*7919)
	content := []string{
		`{\"ref\":\"refs\/heads\/main\",\"message\":\"caf\u00e9 \ud83d\ude00\"}`,
		`key=` + envKey,
		`key=` + url.QueryEscape(strings.ToUpper(envKey)),
		`\u0065nv-key-0123456789 spelt with an escape`,
		`tab\there\nline\u2028sep <b>&amp;<\/b> \"q\" back\\slash \u0001`,
		`lone \ud800 surrogate`,
		base64.StdEncoding.EncodeToString([]byte("user:" + envKey)),
		``,
	}[i%8]
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("u%d:", i%3)+envKey))
	item := fmt.Sprintf(`{"uuid":"%s","token_id":"%s","type":"web","ip":"203.0.113.%d","hostname":"hooks.example","method":"POST",`+
		`"user_agent":"GitHub-Hookshot\/%x","content":"%s","query":{"key":["%s"]},"headers":{"authorization":["%s"],"x-caf\u00e9":["\u00e9"]},`+
		`"url":"https:\/\/hooks.example\/%s?key=%s","size":%d,"sorting":%d,"created_at":"2026-11-26 10:%02d:%02d"}`,
		uuid, someToken, i%256, i, content, envKey, auth, someToken, url.QueryEscape(envKey), len(content), 1764151200000000+i, i/60%60, i%60)
	switch i % 11 {
	case 3:
		item = strings.ReplaceAll(strings.Replace(item, `{"uuid"`, "{\n    \"uuid\"", 1), `,"`, ",\n    \"")
	case 5:
		item = strings.Replace(item, `"size":`, `"team_id":"team-4711","size":1e400,"x":`, 1)
	case 7:
		item = strings.Replace(item, `"type":"web"`, `"type" : "web" , "files" : [ ]`, 1)
	}
	return item
}

// goldenListing serves the golden listing's pages as the API does, 100 to
// a page, the envelope around them spelt now compact, now pretty.
func goldenListing(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		first, last := (page-1)*100, min(page*100, goldenRequests)
		var items []string
		for i := first; i < last; i++ {
			items = append(items, goldenItem(i))
		}
		w.Header().Set("Content-Type", "application/json")
		sep := ","
		if page%2 == 0 {
			sep = ",\n  "
		}
		fmt.Fprintf(w, `{"data":[%s],"total":%d,"per_page":100,"current_page":%d,"is_last_page":%t,"from":%d,"to":%d}`,
			strings.Join(items, sep), goldenRequests, page, last >= goldenRequests, first+1, last)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestRequestsResourceGolden: the resource's text over a listing that
// holds everything a request may (escapes as PHP writes them, spaces,
// account fields, huge numbers, lone surrogates, the key in every
// encoding) is byte for byte the text recorded in testdata (-update
// rewrites it), with HOOKSVC_API_KEY set and without, whole and cut: how
// the pages are read, checked and redacted may change, the answer may not.
// With the key set, no spelling of it is left.
func TestRequestsResourceGolden(t *testing.T) {
	api := goldenListing(t)
	uri := requestsURI(someToken)
	for _, tc := range []struct {
		name string
		cfg  config.Config
	}{
		{"no-key", config.Config{ResourceMaxBytes: config.MaxResourceMaxBytes}},
		{"key", config.Config{ResourceMaxBytes: config.MaxResourceMaxBytes, APIKey: envKey}},
		{"key-cut", config.Config{ResourceMaxBytes: config.MinResourceMaxBytes, APIKey: envKey}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := readAs(t, &harness{url: api}, tc.cfg, stdioProtocol, uri)
			var got strings.Builder
			for _, c := range res.Contents {
				fmt.Fprintf(&got, "%s %s\n%s\n", c.URI, c.MIMEType, c.Text)
			}
			if tc.cfg.APIKey != "" && redact.New(envKey).Contains(got.String()) {
				t.Errorf("the key is in the text")
			}
			path := filepath.Join("testdata", "resource-golden", tc.name+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				at := firstDifference(got.String(), string(want))
				t.Errorf("the text (%d bytes) differs from %s (%d bytes) at byte %d: %.120q", got.Len(), path, len(want), at, got.String()[min(at, got.Len()):])
			}
		})
	}
}
