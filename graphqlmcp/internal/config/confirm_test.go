package config

import (
	"strings"
	"testing"
)

// TestConfirmMutations: --confirm-mutations and GRAPHQL_CONFIRM_MUTATIONS
// take ask (the default), require and never; anything else is refused
// naming the flag, the values and an example.
func TestConfirmMutations(t *testing.T) {
	cfg, err := parse(t)
	if err != nil || cfg.ConfirmMutations != "ask" {
		t.Errorf("default: %q, %v; want ask", cfg.ConfirmMutations, err)
	}
	cfg, err = parse(t, "--confirm-mutations", "require")
	if err != nil || cfg.ConfirmMutations != "require" {
		t.Errorf("--confirm-mutations require: %q, %v", cfg.ConfirmMutations, err)
	}
	t.Setenv("GRAPHQL_CONFIRM_MUTATIONS", "never")
	cfg, err = parse(t)
	if err != nil || cfg.ConfirmMutations != "never" {
		t.Errorf("GRAPHQL_CONFIRM_MUTATIONS=never: %q, %v", cfg.ConfirmMutations, err)
	}
	_, err = parse(t, "--confirm-mutations", "sometimes")
	if err == nil || !strings.Contains(err.Error(), "confirm-mutations") || !strings.Contains(err.Error(), `must be ask, require, never, got "sometimes"; for example --confirm-mutations require`) {
		t.Errorf("--confirm-mutations sometimes: %v", err)
	}
}
