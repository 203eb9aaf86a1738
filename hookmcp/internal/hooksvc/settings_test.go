package hooksvc

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokenSettingsValidate(t *testing.T) {
	num := func(v float64) *float64 { return &v }
	str := func(v string) *string { return &v }
	tests := []struct {
		name     string
		settings TokenSettings
		want     string
	}{
		{"none", TokenSettings{}, ""},
		{"bounds inclusive", TokenSettings{DefaultStatus: num(599), Timeout: num(0), Expiry: num(604800)}, ""},
		{"status low", TokenSettings{DefaultStatus: num(199)}, "default_status must be a whole number from 200 to 599; got 199"},
		{"fraction", TokenSettings{RequestLimit: num(1.5)}, "request_limit must be a whole number from 0 to 10000; got 1.5"},
		{"first in API order", TokenSettings{Expiry: num(0), Timeout: num(31)}, "timeout must be a whole number from 0 to 30; got 31"},
		{"alias", TokenSettings{Alias: str("a b")}, `alias must be 3 to 32 letters, digits, _ or - (pattern ^[a-zA-Z0-9_-]{3,32}$); got "a b"`},
	}
	for _, tt := range tests {
		got := ""
		if err := tt.settings.Validate(); err != nil {
			got = err.Error()
		}
		if got != tt.want {
			t.Errorf("%s: Validate() = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestTokenSettingsFields(t *testing.T) {
	status, content, cors := 201.0, "", false
	got := TokenSettings{DefaultStatus: &status, DefaultContent: &content, Cors: &cors}.Fields()
	want := map[string]any{"default_status": 201, "default_content": "", "cors": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Fields() (-want +got):\n%s", diff)
	}
}
