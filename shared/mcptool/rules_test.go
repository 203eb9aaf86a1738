package mcptool

import (
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
		{page, ptr(0), 0, "n must be a whole number of at least 1; got 0"},
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
