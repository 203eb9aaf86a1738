package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// pageKey is a made-up API key, as hookmcp is configured with one.
const pageKey = "bench-3f9c27e1a5d84b60"

// webhookPage is about size bytes of a JSON listing of captured webhook
// requests as the hosted service's PHP spells it: every / as \/, every
// character beyond ASCII as \uXXXX, each request's body a JSON text inside a
// string (so escaped twice). It holds no secret.
func webhookPage(size int) []byte {
	const body = `{"ref":"refs/heads/main","repository":{"full_name":"octocat/Hello-World","html_url":"https://github.com/octocat/Hello-World"},` +
		`"head_commit":{"message":"Update README.md — café","author":{"name":"The Octocat","email":"octocat@github.com"}},"modified":["README.md"]}`
	var items []json.RawMessage
	total := 0
	for i := 0; total < size; i++ {
		item, err := json.Marshal(map[string]any{
			"uuid":       fmt.Sprintf("4f0b1c2d-0000-4000-8000-%012d", i),
			"type":       "web",
			"token_id":   "9a8b7c6d-1e2f-4a5b-8c9d-0e1f2a3b4c5d",
			"ip":         "203.0.113.7",
			"hostname":   "webhook.site",
			"method":     "POST",
			"user_agent": "GitHub-Hookshot/abc1234",
			"content":    body,
			"query":      nil,
			"headers":    map[string][]string{"content-type": {"application/json"}, "x-github-event": {"push"}},
			"url":        "https://webhook.site/9a8b7c6d-1e2f-4a5b-8c9d-0e1f2a3b4c5d?n=" + fmt.Sprint(i),
			"size":       len(body),
			"created_at": "2026-11-22 10:00:00",
		})
		if err != nil {
			panic(err)
		}
		items = append(items, item)
		total += len(item) + 1
	}
	page, err := json.Marshal(map[string]any{"data": items, "total": len(items), "per_page": 100})
	if err != nil {
		panic(err)
	}
	var php bytes.Buffer
	for _, c := range string(page) {
		switch {
		case c == '/':
			php.WriteString(`\/`)
		case c >= utf8.RuneSelf:
			fmt.Fprintf(&php, `\u%04x`, c)
		default:
			php.WriteRune(c)
		}
	}
	return php.Bytes()
}

// TestRedactPageAllocates: redacting a page makes no garbage in proportion
// to it (hookmcp redacts every page of a resource read of 10,000 requests):
// a page without the key comes back as it is, and one with the key in a
// few of its strings (plain, with \/ escapes) costs the answer and a few
// allocations per secret found, however many strings it has.
func TestRedactPageAllocates(t *testing.T) {
	r := New(pageKey, "your/api-key/with-slashes")
	page := webhookPage(1 << 20)
	if !json.Valid(page) || !bytes.Contains(page, []byte(`\/`)) || !bytes.Contains(page, []byte(`\u00e9`)) {
		t.Fatalf("the page is not PHP-spelled JSON: %.200s", page)
	}
	if got := r.Bytes(page); !bytes.Equal(got, page) {
		t.Fatal("a page without the key changed")
	}
	// A small constant, whatever the page's size: json.Valid's scanner
	// comes from a sync.Pool, which a collection during the run empties,
	// so one run in a few allocates one more (CI's first run saw 5).
	if n := testing.AllocsPerRun(5, func() { r.Bytes(page) }); n > 8 {
		t.Errorf("redacting a clean %d-byte page made %v allocations, want at most 8", len(page), n)
	}
	// A page known to be JSON (ValidJSON) is redacted without the check,
	// and comes back as it is too, allocating no more.
	if got := r.ValidJSON(page); !bytes.Equal(got, page) {
		t.Fatal("a page without the key changed")
	}
	if n := testing.AllocsPerRun(5, func() { r.ValidJSON(page) }); n > 8 {
		t.Errorf("redacting a clean %d-byte page known to be JSON made %v allocations, want at most 8", len(page), n)
	}
	leaky := bytes.Replace(page, []byte("GitHub-Hookshot"), []byte("key "+strings.ToUpper(pageKey)), 3)
	leaky = bytes.Replace(leaky, []byte("webhook.site"), []byte(`your\/api-key\/with-slashes`), 2)
	got := r.Bytes(leaky)
	if !bytes.Equal(r.ValidJSON(leaky), got) {
		t.Error("ValidJSON and Bytes redact a page unlike")
	}
	if bytes.Contains(bytes.ToLower(got), []byte(pageKey)) || bytes.Contains(got, []byte("with-slashes")) || !json.Valid(got) {
		t.Fatal("the key is still in the page, or it is no longer JSON")
	}
	if n := testing.AllocsPerRun(5, func() { r.Bytes(leaky) }); n > 8+5*12 {
		t.Errorf("redacting a %d-byte page with 5 secrets made %v allocations, want at most 8 and 12 a secret", len(leaky), n)
	}
}

func BenchmarkRedactPage(b *testing.B) {
	r := New(pageKey)
	page := webhookPage(1 << 20)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		r.Bytes(page)
	}
}

// FuzzUnquote: appendUnquote decodes a string literal as encoding/json does,
// lone surrogates and bytes that are not UTF-8 included.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a"`, `"\/\u00e9"`, `"\ud83d\ude00"`, `"\ud83d"`, `"\ud83dx"`, `"\ud83d\u0041"`, `"\ude00\ud83d"`,
		`"\ud83d\ud83d\ude00"`, "\"\xff\\n\"", `"\u"`, `"\x"`, `"a\"b"`, `"\'"`, `"` + "\x01" + `"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, literal []byte) {
		if len(bytes.TrimSpace(literal)) != len(literal) {
			return // a literal as Bytes cuts it out of a document has no space around it
		}
		var want string
		wantErr := json.Unmarshal(literal, &want)
		got, ok := appendUnquote([]byte("prefix"), literal)
		if wantErr != nil {
			if ok && json.Valid(literal) {
				t.Fatalf("appendUnquote(%q) ok, json: %v", literal, wantErr)
			}
			return
		}
		if !ok || string(got) != "prefix"+want {
			t.Fatalf("appendUnquote(%q) = %q, %v; encoding/json: %q", literal, got, ok, want)
		}
	})
}

// BenchmarkRedactKnownJSON is BenchmarkRedactPage for a page its caller
// has checked (ValidJSON): what hookmcp's resource read pays per page.
func BenchmarkRedactKnownJSON(b *testing.B) {
	r := New(pageKey)
	page := webhookPage(1 << 20)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		r.ValidJSON(page)
	}
}
