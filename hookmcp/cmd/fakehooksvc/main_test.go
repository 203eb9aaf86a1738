package main

import (
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptest"
)

// binary is the fake's command, built for this test run.
var binary string

func TestMain(m *testing.M) {
	mcptest.RunWithBinaries(m, mcptest.Binary{Path: &binary, Name: "fakehooksvc", Pkg: "."})
}

// TestPHPEscapes: with -php-escapes the built fake writes a listing as the
// hosted service's PHP does, every / as \/ and é as \u00e9; without it, as
// Go does. Both say the same thing.
func TestPHPEscapes(t *testing.T) {
	var listings []string
	for _, args := range [][]string{{"-listen", "127.0.0.1:0"}, {"-listen", "127.0.0.1:0", "-php-escapes"}} {
		cmd := exec.Command(binary, args...)
		api := mcptest.StartHTTP(t, cmd)
		token := struct {
			UUID string `json:"uuid"`
		}{}
		if err := jsonx.Unmarshal([]byte(send(t, http.MethodPost, api+"/token", "{}")), &token); err != nil || token.UUID == "" {
			t.Fatalf("%v: creating a token gave no uuid (%v)", args, err)
		}
		send(t, http.MethodPost, api+"/"+token.UUID+"/a/b?name=Zoé", `{"city":"Zürich"}`)
		listings = append(listings, send(t, http.MethodGet, api+"/token/"+token.UUID+"/requests", ""))
		mcptest.Stop(t, cmd)
	}
	plain, php := listings[0], listings[1]
	if strings.Contains(plain, `\/`) || !strings.Contains(plain, "/a/b") || !strings.Contains(plain, "Zoé") {
		t.Errorf("without -php-escapes the listing is not spelled as Go spells it: %s", plain)
	}
	if strings.Contains(php, "/a/b") || !strings.Contains(php, `\/a\/b`) || !strings.Contains(php, `Zo\u00e9`) || strings.Contains(php, "é") {
		t.Errorf("with -php-escapes the listing is not spelled as PHP spells it: %s", php)
	}
	if !strings.Contains(php, `Z\u00fcrich`) {
		t.Errorf("with -php-escapes the captured body's ü is not \\u00fc: %s", php)
	}
}

// send makes a request to the fake with the docs' key and returns the
// answer's body, failing the test unless it is a success.
func send(t *testing.T, method, url, body string) string {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Api-Key", docsAPIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s (%v)", method, url, resp.StatusCode, data, err)
	}
	return string(data)
}
