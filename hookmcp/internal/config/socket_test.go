package config

import (
	"strings"
	"testing"
)

// TestSocketURL: the default follows the API URL, off turns the push off,
// and the key is never sent over plain ws to a host it does not already
// reach in the clear.
func TestSocketURL(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		env  map[string]string
		want string // "" for off
	}{
		{"hosted default", nil, nil, "wss://ws.webhook.site"},
		{"hosted with its port", []string{"--api-url", "https://webhook.site:443"}, nil, "wss://ws.webhook.site"},
		{"hosted in capitals with a slash", []string{"--api-url", "https://WEBHOOK.site/"}, nil, "wss://ws.webhook.site"},
		{"hosted with a root dot", []string{"--api-url", "https://webhook.site."}, nil, "wss://ws.webhook.site"},
		{"another port is not the hosted API", []string{"--api-url", "https://webhook.site:8443"}, nil, "wss://webhook.site:8443"},
		{"self-hosted https: its origin", []string{"--api-url", "https://hooks.example.com/base"}, nil, "wss://hooks.example.com"},
		{"local fake: its origin", []string{"--api-url", "http://127.0.0.1:8089"}, nil, "ws://127.0.0.1:8089"},
		{"plain http API: its own host", []string{"--api-url", "http://hooks.lan:8080"}, nil, "ws://hooks.lan:8080"},
		{"off", []string{"--socket-url", "off"}, nil, ""},
		{"OFF by variable", nil, map[string]string{"HOOKSVC_SOCKET_URL": " OFF "}, ""},
		{"explicit wss", []string{"--socket-url", "wss://push.example.com/"}, nil, "wss://push.example.com"},
		{"https is wss", []string{"--socket-url", "https://push.example.com/ws"}, nil, "wss://push.example.com/ws"},
		{"ws on loopback", []string{"--socket-url", "ws://[::1]:6001"}, nil, "ws://[::1]:6001"},
		{"http on localhost", nil, map[string]string{"HOOKSVC_SOCKET_URL": "http://localhost:6001"}, "ws://localhost:6001"},
		{"a flag wins over its variable", []string{"--socket-url", "off"}, map[string]string{"HOOKSVC_SOCKET_URL": "wss://a.example"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			cfg, err := parse(t, nil, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			if cfg.SocketURL != nil {
				got = cfg.SocketURL.String()
			}
			if got != tt.want {
				t.Errorf("SocketURL = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSocketURLRefused(t *testing.T) {
	for _, tt := range []struct {
		value, want string
	}{
		{"ws://push.example.com", "must be wss:// for push.example.com: the API key is sent on the socket"},
		{"http://10.0.0.8:6001", "must be wss:// for 10.0.0.8"},
		// The default API is https: plain ws to its own host would send the
		// key in the clear where the API's calls do not.
		{"ws://webhook.site", "must be wss:// for webhook.site"},
		{"http://webhook.site", "must be wss:// for webhook.site"},
		{"wss://user:hunter2@push.example.com", "must not carry user info"},
		{"push.example.com", "must be off or the absolute wss:// (or ws:// on loopback) base URL of the live push"},
		{"ftp://push.example.com", "must be off or the absolute wss://"},
		{"wss://push.example.com/?key=hunter2", "must be a plain base URL without query string or fragment"},
	} {
		_, err := parse(t, map[string]string{APIKeyVariable: "hunter2"}, "--socket-url", tt.value)
		if err == nil || !strings.Contains(err.Error(), "--socket-url") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("--socket-url %s: %v, want %q", tt.value, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("--socket-url %s: the error repeats a secret: %v", tt.value, err)
		}
	}
}

// TestHostsInCanonicalForm: the API and socket hosts are judged as the
// transport dials them. A Unicode look-alike of the API's host is another
// host (U+0130 lowers to "i" but is dialled as punycode), so plain ws to it
// is refused; a host that no transport dials as written fails at start.
func TestHostsInCanonicalForm(t *testing.T) {
	cfg, err := parse(t, nil, "--api-url", "http://AP\u0130.example:8080", "--socket-url", "ws://xn--api-bec.example:8080")
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.APIURL.Host; got != "xn--api-bec.example:8080" {
		t.Errorf("API host = %q, want the punycode name the transport dials", got)
	}
	_, err = parse(t, nil, "--api-url", "http://api.example", "--socket-url", "ws://ap\u0130.example")
	if err == nil || !strings.Contains(err.Error(), "must be wss:// for xn--api-bec.example") {
		t.Errorf("ws to a look-alike of the API's host: %v, want a refusal naming the punycode host", err)
	}
	cfg, err = parse(t, nil, "--api-url", "http://API.example.", "--socket-url", "ws://api.EXAMPLE")
	if err != nil {
		t.Fatalf("ws to the API's own host, in another ASCII case and with a root dot: %v", err)
	}
	if got := cfg.APIURL.Host; got != "api.example" {
		t.Errorf("API host = %q, want api.example", got)
	}
	for _, flag := range []string{"--api-url", "--socket-url"} {
		_, err := parse(t, nil, flag, "https://api..example")
		if err == nil || !strings.Contains(err.Error(), flag+" must name a host as it is dialled") {
			t.Errorf("%s with an empty label: %v, want a refusal at start", flag, err)
		}
		for _, host := range []string{"api%2eexample", "api_ex ample", "[::1"} {
			_, err := parse(t, nil, flag, "https://"+host)
			if err == nil || !strings.Contains(err.Error(), flag) {
				t.Errorf("%s with host %q: %v, want a refusal at start", flag, host, err)
			}
		}
	}
}
