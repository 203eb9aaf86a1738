package mcptool

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

func TestWhole(t *testing.T) {
	perPage := Whole{Min: 1, Max: 100, Default: 50}
	page := Whole{Min: 1}
	tests := []struct {
		rule    Whole
		v       *float64
		want    int
		wantErr string
	}{
		{perPage, nil, 50, ""},
		{perPage, ptr(100), 100, ""},
		{perPage, ptr(0), 0, "n must be a whole number from 1 to 100; got 0"},
		{perPage, ptr(101), 0, "n must be a whole number from 1 to 100; got 101"},
		{perPage, ptr(2.5), 0, "n must be a whole number from 1 to 100; got 2.5"},
		{page, ptr(1e9), 1e9, ""},
		{page, ptr(0), 0, "n must be a whole number of at least 1 (and at most 9007199254740992); got 0"},
		{page, ptr(1 << 53), 1 << 53, ""},
		{page, ptr(1<<53 + 2), 0, "n must be a whole number of at least 1 (and at most 9007199254740992); got 9.007199254740994e+15"},
		{page, ptr(1e300), 0, "n must be a whole number of at least 1 (and at most 9007199254740992); got 1e+300"},
		{Whole{Min: -1e300}, ptr(-1e20), 0, "n must be a whole number of at least -1e+300 (and at most 9007199254740992); got -1e+20"},
	}
	for _, tt := range tests {
		got, err := tt.rule.Value("n", tt.v)
		if gotErr := errText(err); got != tt.want || gotErr != tt.wantErr {
			t.Errorf("%+v.Value(%v) = %d, %q; want %d, %q", tt.rule, tt.v, got, gotErr, tt.want, tt.wantErr)
		}
	}
	var s jsonschema.Schema
	perPage.Schema(&s)
	if *s.Minimum != 1 || *s.Maximum != 100 || string(s.Default) != "50" {
		t.Errorf("schema = %+v", s)
	}
	s = jsonschema.Schema{}
	page.Schema(&s)
	if *s.Minimum != 1 || s.Maximum != nil || s.Default != nil {
		t.Errorf("schema without a maximum or default = %+v", s)
	}
}

func TestEnum(t *testing.T) {
	sorting := Enum{"newest", "oldest"}
	for in, want := range map[string]string{"": "newest", "oldest": "oldest"} {
		if got, err := sorting.Value("sorting", in); got != want || err != nil {
			t.Errorf("Value(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	_, err := sorting.Value("sorting", "Newest")
	if want := `sorting must be "newest" or "oldest"; got "Newest"`; errText(err) != want {
		t.Errorf("error = %q, want %q", errText(err), want)
	}
	_, err = Enum{"a", "b", "c"}.Value("x", "d")
	if want := `x must be "a", "b" or "c"; got "d"`; errText(err) != want {
		t.Errorf("error = %q, want %q", errText(err), want)
	}
	var s jsonschema.Schema
	sorting.Schema(&s)
	if diff := cmp.Diff([]any{"newest", "oldest"}, s.Enum); diff != "" || string(s.Default) != `"newest"` {
		t.Errorf("schema enum (-want +got) %s, default %s", diff, s.Default)
	}
}

func ptr(v float64) *float64 { return &v }

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestQuoteBounded: a value an error quotes is cut to a prefix and its
// length, whatever its size (Enum's refusal, a name given twice).
func TestQuoteBounded(t *testing.T) {
	huge := strings.Repeat("é", 1_100_000)
	if got, want := Quote(huge), `"`+strings.Repeat("é", 40)+`"… (1100000 characters)`; got != want {
		t.Errorf("Quote(1.1M é) = %.100q…, want %q", got, want)
	}
	if got := Quote(`a"b`); got != `"a\"b"` {
		t.Errorf("Quote(short) = %s", got)
	}
	if _, err := (Enum{"a", "b"}).Value("sorting", huge); err == nil || len(err.Error()) > 200 {
		t.Errorf("Enum.Value(1.1 MB): %.300v", err)
	}
}
