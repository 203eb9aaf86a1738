package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// getToken is a call that reaches the API when it runs.
const (
	getToken     = "get_token"
	getTokenArgs = `{"token_id":"9f1c1c55-0e3a-4a6c-9b3f-1a2b3c4d5e6f"}`
)

// countingAPI is an API that counts the requests it is sent.
func countingAPI(t *testing.T) (string, *atomic.Int64) {
	var n atomic.Int64
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		http.Error(w, "not found", http.StatusNotFound)
	}))
	t.Cleanup(api.Close)
	return api.URL, &n
}

// TestRepeatedKeysStdio: the built server, spoken to in raw lines, refuses
// each message that gives a key twice (a second method, params, tool name,
// arguments, argument, id, …: see mcptest.RepeatedKeyCases) as an invalid
// request naming the key, and sends the API nothing.
func TestRepeatedKeysStdio(t *testing.T) {
	apiURL, sent := countingAPI(t)
	cmd := exec.Command(binary, "--api-url", apiURL)
	cmd.Env = append(os.Environ(), "HOOKSVC_API_KEY=", "HOOKSVC_SOCKET_URL=off")
	s := mcptest.StartRawStdio(t, cmd)
	s.Initialize(t)
	mcptest.CheckRepeatedKeysStdio(t, s, getToken, getTokenArgs)
	if n := sent.Load(); n != 0 {
		t.Errorf("%d requests reached the API", n)
	}
	// The same call, each key once, does reach it.
	s.Send(t, `{"jsonrpc":"2.0","id":3000,"method":"tools/call","params":{"name":"`+getToken+`","arguments":`+getTokenArgs+`}}`)
	s.Answer(t, 3000)
	if n := sent.Load(); n == 0 {
		t.Error("the call given once did not reach the API either: the test proves nothing")
	}
}

// TestRepeatedKeysHTTP: the same over Streamable HTTP.
func TestRepeatedKeysHTTP(t *testing.T) {
	apiURL, sent := countingAPI(t)
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--api-url", apiURL)
	cmd.Env = append(os.Environ(), "HOOKSVC_API_KEY=", "HOOKSVC_SOCKET_URL=off")
	endpoint := mcptest.StartHTTP(t, cmd)
	mcptest.CheckRepeatedKeysHTTP(t, endpoint, nil, getToken, getTokenArgs)
	if n := sent.Load(); n != 0 {
		t.Errorf("%d requests reached the API", n)
	}
	mcptest.Stop(t, cmd)
}
