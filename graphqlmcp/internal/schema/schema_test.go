package schema

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func fromSDL(t *testing.T, sdl string) *Schema {
	t.Helper()
	s, err := FromSDL(sdl)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestOverviewGivesUpDetail: a schema whose root fields with arguments would
// not fit loses the arguments first, and the cut is announced.
func TestOverviewGivesUpDetail(t *testing.T) {
	var b strings.Builder
	b.WriteString("type Query {\n")
	for i := range 1500 {
		fmt.Fprintf(&b, "  field%d(a: String, b: String, c: String, d: String, e: Int = 5): String\n", i)
	}
	b.WriteString("}\n")
	s := fromSDL(t, b.String())
	text, truncated := s.View(false).Overview()
	if !truncated || len(text) > MaxViewBytes {
		t.Fatalf("truncated = %v, %d bytes", truncated, len(text))
	}
	if !strings.Contains(text, "  field7: String\n") || strings.Contains(text, "field7(") {
		t.Errorf("arguments were not dropped:\n%.400s", text)
	}
}

func TestCutAtLineBoundary(t *testing.T) {
	text := strings.Repeat("0123456789\n", 20)
	got := cut(text, 60, "why")
	if len(got) > 60 || !strings.HasSuffix(got, "\n# why\n") || strings.Contains(got, "0123\n") {
		t.Errorf("cut = %q", got)
	}
}

func TestParseResultForms(t *testing.T) {
	inner := `{"__schema":{"queryType":{"name":"Query"},"types":[{"kind":"OBJECT","name":"Query","fields":[{"name":"a","args":[],"type":{"kind":"SCALAR","name":"Int"}}]}],"directives":[]}}`
	for _, form := range []string{inner, `{"data":` + inner + `}`} {
		r, err := ParseResult([]byte(form))
		if err != nil || r.Schema.QueryType.Name != "Query" {
			t.Errorf("ParseResult(%.30s…) = %v", form, err)
		}
	}
	if _, err := ParseResult([]byte(`{"__schema":null}`)); err == nil {
		t.Error("an empty __schema was accepted")
	}
}

// TestDefaultValues: a default value is re-printed in graphql-js's layout,
// and one that is not a constant GraphQL value is refused.
func TestDefaultValues(t *testing.T) {
	for literal, want := range map[string]string{
		`10`: `10`, `"x"`: `"x"`, `[RED,BLUE]`: `[RED, BLUE]`, `{a:1 b:{c:null}}`: `{a: 1, b: {c: null}}`, `true`: `true`, `1.5`: `1.5`,
		`"""block
string"""`: `"block\nstring"`, `"tab\there \u0001"`: `"tab\there \u0001"`,
	} {
		if err := checkLiteral(literal); err != nil {
			t.Errorf("checkLiteral(%s) = %v", literal, err)
		}
		if got := printLiteral(literal); got != want {
			t.Errorf("printLiteral(%s) = %s, want %s", literal, got, want)
		}
	}
	for _, bad := range []string{`{unclosed`, `{a: $x}`, `[1, $v]`, `1 2`, ``} {
		if err := checkLiteral(bad); err == nil {
			t.Errorf("checkLiteral(%q) accepted it", bad)
		}
	}
}

// TestCacheBoundedByBytes: the cache holds at most its byte bound,
// evicting the least recently used entries; a schema over the whole bound is
// served but not kept. (Counted by entries, 16 schemas of 49 MB once held
// 3.2 GiB.)
func TestCacheBoundedByBytes(t *testing.T) {
	now := time.Unix(0, 0)
	sized := func(n int) *Schema {
		v := &View{SDL: strings.Repeat("x", n)}
		return &Schema{all: v, current: v}
	}
	one := sized(1000).Weight()
	c := NewCache(time.Minute, 3*one, func() time.Time { return now })
	for _, key := range []string{"a", "b", "c"} {
		c.Put(key, sized(1000))
	}
	c.Get("a") // now b is the least recently used
	c.Put("d", sized(1000))
	if _, _, ok := c.Get("b"); ok {
		t.Error("the least recently used entry survived")
	}
	for _, key := range []string{"a", "c", "d"} {
		if _, _, ok := c.Get(key); !ok {
			t.Errorf("entry %s was evicted", key)
		}
	}
	if c.bytes > 3*one {
		t.Errorf("the cache holds %d bytes, over its bound %d", c.bytes, 3*one)
	}
	c.Put("huge", sized(10_000))
	if _, _, ok := c.Get("huge"); ok {
		t.Error("a schema over the whole bound was kept")
	}
	if _, _, ok := c.Get("a"); !ok {
		t.Error("a schema too large to keep evicted the others")
	}
	now = now.Add(time.Minute)
	if _, _, ok := c.Get("a"); ok || c.bytes != 2*one {
		t.Errorf("an expired entry was served or kept (%d bytes held)", c.bytes)
	}
	off := NewCache(0, DefaultCacheBytes, time.Now)
	off.Put("k", sized(1))
	if _, _, ok := off.Get("k"); ok {
		t.Error("a zero TTL cached an entry")
	}
}

func TestLexicalDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{{"Droid", "Droid", 0}, {"droid", "Droid", 1}, {"Driod", "Droid", 1}, {"Repositry", "Repository", 1}, {"Human", "Droid", 5}} {
		if got := lexicalDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("lexicalDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
