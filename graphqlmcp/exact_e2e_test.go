package main

import (
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// TestBinaryRunsWhatTheClientShows: the built server, spoken to in raw
// lines (which no SDK client lets a test write), refuses arguments a client
// would show otherwise than they run (a key in another case; a key given
// twice, anywhere in the message, which the transport refuses whole) and a
// header that would make the endpoint read the body otherwise, each with
// the key or header named, and sends nothing.
func TestBinaryRunsWhatTheClientShows(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	s := mcptest.StartRawStdio(t, exec.Command(binary, "--endpoint", srv.URL, "--mutations", "never"))
	s.Initialize(t)
	for id, tt := range map[int]struct{ arguments, want string }{
		3: {`{"query":"{ hero { name } }","Query":"mutation { x }"}`, `unknown argument \"Query\" (names are matched exactly, case included: did you mean \"query\"?)`},
		4: {`{"query":"{ hero { name } } # &query=mutation{x}&","headers":{"Content-Type":"application/x-www-form-urlencoded"}}`, `header \"Content-Type\" cannot be set`},
	} {
		s.Send(t, `{"jsonrpc":"2.0","id":`+strconv.Itoa(id)+`,"method":"tools/call","params":{"name":"graphql_query","arguments":`+tt.arguments+`}}`)
		answer, err := json.Marshal(s.Answer(t, float64(id)))
		if err != nil {
			t.Fatal(err)
		}
		line := string(answer)
		if !strings.Contains(line, `"isError":true`) || !strings.Contains(line, tt.want) {
			t.Errorf("call %v: %s, want an error saying %s", id, line, tt.want)
		}
	}
	mcptest.CheckRepeatedKeysStdio(t, s, "graphql_query", `{"query":"{ hero { name } }"}`)
	s.Send(t, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"graphql_query","arguments":{"query":"{ hero { name } }","headers":{"X-A":"1","X-A":"2"}}}}`)
	if answer, _ := json.Marshal(s.Answer(t, 9)); !strings.Contains(string(answer), `the key \"X-A\" is given twice in params.arguments.headers`) {
		t.Errorf("a header given twice: %s", answer)
	}
	if n := rec.Count(); n != 0 {
		t.Errorf("%d requests reached the endpoint", n)
	}
}

// TestBinaryRepeatedKeysOverHTTP: over Streamable HTTP, the built server
// refuses a message that gives any key twice (see RepeatedKeyCases), and
// nothing reaches the endpoint.
func TestBinaryRepeatedKeysOverHTTP(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	cmd := exec.Command(binary, "--transport", "http", "--listen", "127.0.0.1:0", "--endpoint", srv.URL)
	endpoint := mcptest.StartHTTP(t, cmd)
	mcptest.CheckRepeatedKeysHTTP(t, endpoint, nil, "graphql_query", `{"query":"{ hero { name } }"}`)
	if n := rec.Count(); n != 0 {
		t.Errorf("%d requests reached the endpoint", n)
	}
	mcptest.Stop(t, cmd)
}
