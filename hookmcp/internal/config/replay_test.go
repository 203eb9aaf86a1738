package config

import (
	"strings"
	"testing"
)

// TestReplayTo: --replay-to, repeated or comma-separated, and
// HOOKSVC_REPLAY_TO give canonical prefixes; a bad entry is refused by
// its place with the rule.
func TestReplayTo(t *testing.T) {
	cfg, err := parse(t, nil, "--replay-to", "https://DEV.Example.com./hooks", "--replay-to", "http://10.0.0.2:8080/,http://[::1]:9/")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, u := range cfg.ReplayTo {
		got = append(got, u.String())
	}
	if want := "https://dev.example.com/hooks http://10.0.0.2:8080/ http://[::1]:9/"; strings.Join(got, " ") != want {
		t.Errorf("ReplayTo = %v, want %s", got, want)
	}
	t.Setenv(ReplayToVariable, "https://env.example.com/x")
	if cfg, err = parse(t, nil); err != nil || len(cfg.ReplayTo) != 1 || cfg.ReplayTo[0].Host != "env.example.com" {
		t.Errorf("from %s: %v, %v", ReplayToVariable, cfg.ReplayTo, err)
	}
	for _, bad := range []string{"dev.example.com/hooks", "ftp://x/", "https://u:p@x/", "https://x/?a=1", "https://x%41/", "https://x/" + strings.Repeat("a", 3000)} {
		_, err := parse(t, nil, "--replay-to", bad)
		if err == nil || !strings.Contains(err.Error(), "replay-to") || strings.Contains(err.Error(), "u:p") || len(err.Error()) > 400 {
			t.Errorf("--replay-to %s: %v, want a refusal naming the flag, never a password, short", bad, err)
		}
	}
}
