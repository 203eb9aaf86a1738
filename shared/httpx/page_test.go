package httpx

import (
	"net/http"
	"testing"
)

func TestIsWebPage(t *testing.T) {
	tests := []struct {
		contentType, body string
		want              bool
	}{
		{"text/html; charset=utf-8", "anything", true},
		{"", "  <!DOCTYPE html><html>", true},
		{"text/plain", "<HTML><body>", true},
		{"application/json", "<html>", false},
		{"text/plain", "hello", false},
		{"", "", false},
		{"text/html", " \n", false}, // an empty 204 labelled text/html
	}
	for _, tt := range tests {
		if got := IsWebPage(http.Header{"Content-Type": {tt.contentType}}, []byte(tt.body)); got != tt.want {
			t.Errorf("IsWebPage(%q, %q) = %v", tt.contentType, tt.body, got)
		}
	}
}

func TestPageTitle(t *testing.T) {
	tests := map[string]string{
		"<html><head><title>Sign in &amp; more</title></head><h1>x</h1>": "Sign in & more",
		"<html><body><h1>Internal <b>Server</b> Error</h1>":              "Internal Server Error",
		"<html><title> </title><h1>Not Found</h1>":                       "Not Found",
		"<html><body>no heading</body></html>":                           "",
	}
	for body, want := range tests {
		if got := PageTitle([]byte(body)); got != want {
			t.Errorf("PageTitle(%q) = %q, want %q", body, got, want)
		}
	}
}
