package hooksvc

import (
	"strings"
	"testing"
	"time"

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

func TestResolveDate(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 30, 15, 500_000_000, time.FixedZone("CET", 3600))
	tests := []struct{ in, want, err string }{
		{"", "", ""},
		{"2026-11-21 14:30:00", "2026-11-21 14:30:00", ""},
		{"now", "2026-11-22 09:30:15", ""},
		{"now-30s", "2026-11-22 09:29:45", ""},
		{"now-30m", "2026-11-22 09:00:15", ""},
		{"now-1h", "2026-11-22 08:30:15", ""},
		{"now-7d", "2026-11-15 09:30:15", ""},
		{"now-2w", "2026-11-08 09:30:15", ""},
		{"now-1M", "", `got "now-1M"`},
		{"now+1d", "", `got "now+1d"`},
		{"now-1234567d", "", "units s, m, h, d, w"},
		{"2026-11-21T14:30:00Z", "", "yyyy-MM-dd HH:mm:ss"},
		{"2026-02-30 00:00:00", "", `got "2026-02-30 00:00:00"`},
	}
	for _, tt := range tests {
		got, _, err := ResolveDate("date_to", tt.in, now)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "date_to must be") {
				t.Errorf("ResolveDate(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ResolveDate(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
		if tt.in != "" && !DateOrExprPattern.MatchString(tt.in) {
			t.Errorf("the schema's pattern refuses %q", tt.in)
		}
	}
}
