package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

// TestNotFoundFollowsNegotiatedVersion: over stdio, the not-found code is
// the one of the version initialize agreed, not the one the client asked
// for: a client asking for 2026-07-28 or an unknown 2099-01-01 is answered
// an earlier version, and gets that version's -32002.
func TestNotFoundFollowsNegotiatedVersion(t *testing.T) {
	fake := httptest.NewServer(fakehooksvc.New(fakehooksvc.Options{}))
	t.Cleanup(fake.Close)
	for _, asked := range []string{"2025-06-18", "2025-11-25", "2026-07-28", "2099-01-01"} {
		t.Run(asked, func(t *testing.T) {
			cmd := exec.Command(binary)
			cmd.Env = append(os.Environ(), "HOOKSVC_API_URL="+fake.URL)
			s := mcptest.StartRawStdio(t, cmd)
			s.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, asked))
			result, _ := s.Answer(t, 1)["result"].(map[string]any)
			agreed, _ := result["protocolVersion"].(string)
			s.Send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for _, uri := range []string{"file:///etc/passwd", "hooksvc://token/00000000-0000-4000-8000-000000000000/requests"} {
				s.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":%q}}`, uri))
				rpcErr, _ := s.Answer(t, 2)["error"].(map[string]any)
				want := -32002.0
				if agreed >= mcptool.NotFoundInvalidParamsSince {
					want = -32602
				}
				if rpcErr["code"] != want {
					t.Errorf("asked %s, agreed %s, read %s: error %v, want code %v", asked, agreed, uri, rpcErr, want)
				}
			}
		})
	}
}
