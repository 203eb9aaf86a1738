package schema

import (
	"errors"
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
		if _, err := parseDefault(literal); err != nil {
			t.Errorf("parseDefault(%s) = %v", literal, err)
		}
		if got := printLiteral(literal); got != want {
			t.Errorf("printLiteral(%s) = %s, want %s", literal, got, want)
		}
	}
	for _, bad := range []string{`{unclosed`, `{a: $x}`, `[1, $v]`, `1 2`, ``} {
		if _, err := parseDefault(bad); err == nil {
			t.Errorf("parseDefault(%q) accepted it", bad)
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

// bigTypes is SDL of the named object types, each of about size bytes.
func bigTypes(size int, names ...string) string {
	var b strings.Builder
	b.WriteString("type Query {\n  a: Int\n}\n")
	for _, name := range names {
		fmt.Fprintf(&b, "type %s {\n", name)
		for i := range size / 50 {
			fmt.Fprintf(&b, "  field%04dWithAFairlyLongNameToFillSpace: String\n", i)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

// TestTypesCutNamesWhatItLeftOut: a types answer over its budget keeps the
// whole definitions that fit, cuts the next short, and names it and those
// left out with the call that gets them. (Asking for five large GitHub
// types returned half of User and silently dropped Organization.)
func TestTypesCutNamesWhatItLeftOut(t *testing.T) {
	s := fromSDL(t, bigTypes(30_000, "A", "B", "C", "D", "E"))
	text, truncated, noneFound := s.View(false).Types([]string{"A", "B", "C", "D", "E"}, MaxViewBytes)
	if !truncated || noneFound || len(text) > MaxViewBytes {
		t.Fatalf("truncated %v, noneFound %v, %d bytes", truncated, noneFound, len(text))
	}
	for _, whole := range []string{"type A {", "type B {", "type C {"} {
		if !strings.Contains(text, whole) {
			t.Errorf("lacks %q", whole)
		}
	}
	if strings.Contains(text, "type E {") {
		t.Error("E is there, past the budget")
	}
	wantNote := "# Cut to fit the 100000-byte limit. Cut short: D. Left out: E. Ask for them in another call: types: [\"D\", \"E\"].\n"
	if !strings.HasSuffix(text, wantNote) {
		t.Errorf("the answer ends %q, want %q", text[len(text)-200:], wantNote)
	}

	// One type over the whole budget: asking for it again would not help.
	s = fromSDL(t, bigTypes(150_000, "Huge", "Small"))
	text, truncated, _ = s.View(false).Types([]string{"Huge", "Small"}, MaxViewBytes)
	if !truncated || len(text) > MaxViewBytes || !strings.Contains(text, "Cut short: Huge (over the limit on its own") ||
		!strings.Contains(text, `Left out: Small. Ask for them in another call: types: ["Small"].`) {
		t.Errorf("truncated %v, %d bytes, ends %q", truncated, len(text), text[max(0, len(text)-300):])
	}
}

// TestTypesNamesEveryTypeLeftOut: a cut types answer names every type it
// left out, and asks for all of them in the next call (it named 20 and
// said "and 60 more").
func TestTypesNamesEveryTypeLeftOut(t *testing.T) {
	var names []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("Type%03d", i))
	}
	s := fromSDL(t, bigTypes(5_000, names...))
	text, truncated, _ := s.View(false).Types(names, MaxViewBytes)
	if !truncated || len(text) > MaxViewBytes {
		t.Fatalf("truncated %v, %d bytes", truncated, len(text))
	}
	_, note, _ := strings.Cut(text, "# Cut to fit the 100000-byte limit.")
	leftOut, call, ok := strings.Cut(note, " Ask for them in another call: types: [")
	if !ok || strings.Contains(note, "more") {
		t.Fatalf("the note does not name them all: %q", note)
	}
	missing := 0
	for _, name := range names {
		switch {
		case strings.Contains(note, " Cut short: "+name+"."):
			if !strings.Contains(call, `"`+name+`"`) {
				t.Errorf("%s is cut short, and not in the call", name)
			}
		case strings.Contains(text, "type "+name+" {"):
		case !strings.Contains(leftOut, " "+name) || !strings.Contains(call, `"`+name+`"`):
			t.Errorf("%s is neither in the answer nor named in the note", name)
		default:
			missing++
		}
	}
	if missing <= 20 {
		t.Errorf("only %d types were left out; the test needs more than 20", missing)
	}
}

// TestTypesLeftOutBeyondTheNote: when the names left out cannot all be
// listed within the limit, the note lists as many as fit, says how many
// more there are and which (the names after the last listed), and the
// answer stays within its budget.
func TestTypesLeftOutBeyondTheNote(t *testing.T) {
	var names []string
	for i := range 3000 {
		names = append(names, fmt.Sprintf("AFairlyLongTypeNameThatTakesRoomInTheNote%04d", i))
	}
	s := fromSDL(t, bigTypes(100, names...))
	text, truncated, _ := s.View(false).Types(names, MaxViewBytes)
	if !truncated || len(text) > MaxViewBytes {
		t.Fatalf("truncated %v, %d bytes", truncated, len(text))
	}
	_, note, _ := strings.Cut(text, "# Cut to fit the 100000-byte limit.")
	var more int
	var last string
	if i := strings.Index(note, " more, the names after "); i < 0 {
		t.Fatalf("the note does not say how many more: %.300q", note)
	} else if _, err := fmt.Sscanf(note[strings.LastIndex(note[:i], " ")+1:i], "%d", &more); err != nil {
		t.Fatal(err)
	} else {
		last, _, _ = strings.Cut(note[i+len(" more, the names after "):], " ")
	}
	if !strings.HasSuffix(note, fmt.Sprintf(`, then the %d after %q.`+"\n", more, last)) {
		t.Errorf("the call does not say what comes after it: %q", note[max(0, len(note)-200):])
	}
	// Each name listed is in the list and in the call, and the last
	// listed is named twice more.
	listed := (strings.Count(note, "TakesRoomInTheNote") - 2) / 2
	placed := strings.Count(text, "type AFairlyLong")
	if listed+placed+more != len(names) || listed < 100 {
		t.Errorf("%d placed, %d listed, %d more: want %d in all", placed, listed, more, len(names))
	}
}

// TestTypesCountsEachNameOnce: a name given twice is looked up once, so
// that a call whose only name is unknown, given twice, finds none.
func TestTypesCountsEachNameOnce(t *testing.T) {
	s := fromSDL(t, "type Query { a: Int }")
	text, _, noneFound := s.View(false).Types([]string{"Nope", "Nope"}, MaxViewBytes)
	if !noneFound || strings.Count(text, `No type named "Nope"`) != 1 {
		t.Errorf("noneFound %v: %q", noneFound, text)
	}
	if _, _, noneFound := s.View(false).Types([]string{"Query", "Query", "Nope"}, MaxViewBytes); noneFound {
		t.Error("Query is in the schema")
	}
	// A directive named with and without its @ is one definition.
	withDirective := fromSDL(t, "directive @cached(ttl: Int) on FIELD_DEFINITION\ntype Query { a: Int }")
	if text, _, _ := withDirective.View(false).Types([]string{"cached", "@cached", "Query"}, MaxViewBytes); strings.Count(text, "directive @cached") != 1 {
		t.Errorf("the directive is not printed once:\n%s", text)
	}
}

// TestRequiredDeprecatedKept: an argument or input field that must be given
// stays in the default view even when the endpoint marks it deprecated
// (GraphQL forbids that, but an operation cannot leave it out).
func TestRequiredDeprecatedKept(t *testing.T) {
	s := fromSDL(t, `type Query { f(id: ID! @deprecated, n: Int @deprecated): Int g(in: In): Int }
input In { must: Int! @deprecated, may: Int @deprecated, live: Int }
directive @d(must: Int! @deprecated) on FIELD`)
	sdl := s.View(false).SDL
	for _, want := range []string{"f(id: ID! @deprecated): Int", "must: Int! @deprecated\n  live: Int", "directive @d(must: Int! @deprecated)"} {
		if !strings.Contains(sdl, want) {
			t.Errorf("the default view lacks %q:\n%s", want, sdl)
		}
	}
	if s.View(false).Hidden != 2 {
		t.Errorf("Hidden = %d, want 2 (n, may)", s.View(false).Hidden)
	}
}

// TestTooDeepTypeRefused: a type wrapped deeper than the introspection
// query reads is refused with a message that says so, never printed with a
// made-up name.
func TestTooDeepTypeRefused(t *testing.T) {
	ref := `{"kind":"SCALAR","name":"Int"}`
	for range typeRefDepth - 1 {
		ref = `{"kind":"LIST","name":null,"ofType":` + ref + `}`
	}
	fits := introspection(`{"kind":"OBJECT","name":"T","fields":[{"name":"f","args":[],"type":` + ref + `}]}`)
	if _, err := ParseResult([]byte(fits)); err != nil {
		t.Fatalf("a type wrapped %d deep: %v", typeRefDepth-1, err)
	}
	cutShort := `{"kind":"LIST","name":null}`
	for range typeRefDepth - 1 {
		cutShort = `{"kind":"LIST","name":null,"ofType":` + cutShort + `}`
	}
	_, err := ParseResult([]byte(introspection(`{"kind":"OBJECT","name":"T","fields":[{"name":"f","args":[],"type":` + cutShort + `}]}`)))
	var tooDeep *TooDeepError
	if !errors.As(err, &tooDeep) || !strings.Contains(err.Error(), "the type of T's field f is wrapped in more than 13 lists and non-nulls") {
		t.Errorf("got %v", err)
	}
}
