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
// would show otherwise than they run (a key given twice, a key in another
// case) and a header that would make the endpoint read the body otherwise,
// each with the key or header named, and sends nothing.
func TestBinaryRunsWhatTheClientShows(t *testing.T) {
	srv, rec := testservers.Start(t, testservers.Starwars())
	s := mcptest.StartRawStdio(t, exec.Command(binary, "--endpoint", srv.URL, "--mutations", "never"))
	s.Initialize(t)
	for id, tt := range map[int]struct{ arguments, want string }{
		2: {`{"query":"{ hero { name } }","query":"mutation { createReview(episode: JEDI, review: {stars: 1}) { stars } }"}`, `argument \"query\" is given twice`},
		3: {`{"query":"{ hero { name } }","Query":"mutation { x }"}`, `unknown argument \"Query\" (names are matched exactly, case included: did you mean \"query\"?)`},
		4: {`{"query":"{ hero { name } } # &query=mutation{x}&","headers":{"Content-Type":"application/x-www-form-urlencoded"}}`, `header \"Content-Type\" cannot be set`},
		5: {`{"query":"{ hero { name } }","headers":{"X-A":"1","X-A":"2"}}`, `argument \"headers\" holds the member \"X-A\" twice`},
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
	if n := rec.Count(); n != 0 {
		t.Errorf("%d requests reached the endpoint", n)
	}
}
