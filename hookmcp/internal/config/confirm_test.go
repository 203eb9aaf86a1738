package config

import (
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/mcptool"
)

// TestConfirmDeletes: --confirm-deletes and HOOKSVC_CONFIRM_DELETES take
// ask (the default), require and never; anything else is refused naming the
// flag, the values and an example.
func TestConfirmDeletes(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		args []string
		want mcptool.ConfirmMode
	}{
		{nil, nil, mcptool.ConfirmAsk},
		{nil, []string{"--confirm-deletes", "require"}, mcptool.ConfirmRequire},
		{map[string]string{ConfirmDeletesVariable: "never"}, nil, mcptool.ConfirmNever},
		{map[string]string{ConfirmDeletesVariable: " never "}, []string{"--confirm-deletes=ask"}, mcptool.ConfirmAsk},
	} {
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		cfg, err := parse(t, nil, c.args...)
		if err != nil || cfg.ConfirmDeletes != c.want {
			t.Errorf("%v %v: %q, %v; want %q", c.env, c.args, cfg.ConfirmDeletes, err, c.want)
		}
	}
	_, err := parse(t, nil, "--confirm-deletes", "always")
	if err == nil || !strings.Contains(err.Error(), `confirm-deletes`) || !strings.Contains(err.Error(), `must be ask, require, never, got "always"; for example --confirm-deletes require`) {
		t.Errorf("--confirm-deletes always: %v", err)
	}
}
