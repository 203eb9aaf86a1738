package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// yogaBody writes payloads as graphql-yoga's multipart writer does: a
// CRLF and the boundary "-" first, then each part with its Content-Type
// and Content-Length, and the close delimiter.
func yogaBody(payloads ...string) string {
	var b strings.Builder
	b.WriteString("\r\n---")
	for _, p := range payloads {
		fmt.Fprintf(&b, "\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s\r\n---", len(p), p)
	}
	b.WriteString("--\r\n")
	return b.String()
}

const yogaType = `multipart/mixed; boundary="-"`

// read runs readIncremental on a body as Post hands it over.
func read(t testing.TB, contentType, body string) (*Response, error) {
	t.Helper()
	answer := &httpx.Answer{Status: 200, Header: http.Header{"Content-Type": {contentType}}, Body: []byte(body)}
	req := Request{Target: Target{URL: parse(t.(*testing.T), "https://api.example.com/graphql")}}
	return readIncremental(context.Background(), req, answer, []byte(body), nil, NewRedactor(nil))
}

// TestIncrementalForms merges each form servers send: the result is one
// GraphQL response, members in the order they came, and the delivery says
// how many parts, which labels, and whether the stream was complete.
func TestIncrementalForms(t *testing.T) {
	tests := []struct {
		name        string
		contentType string
		body        string
		want        string
		delivery    Delivery
	}{
		{
			name: "2022 draft: defer",
			body: yogaBody(`{"data":{"hero":{"id":"1"}},"hasNext":true}`,
				`{"incremental":[{"data":{"name":"Luke","home":"Tatooine"},"path":["hero"],"label":"slow"}],"hasNext":false}`),
			want:     `{"data":{"hero":{"id":"1","name":"Luke","home":"Tatooine"}}}`,
			delivery: Delivery{Parts: 2, Complete: true, Labels: []string{"slow"}},
		},
		{
			name: "2022 draft: stream, items at the index of the first",
			body: yogaBody(`{"data":{"list":["a"]},"hasNext":true}`,
				`{"incremental":[{"items":["b"],"path":["list",1],"label":"L"}],"hasNext":true}`,
				`{"incremental":[{"items":["c","d"],"path":["list",2],"label":"L"}],"hasNext":true}`,
				`{"hasNext":false}`),
			want:     `{"data":{"list":["a","b","c","d"]}}`,
			delivery: Delivery{Parts: 4, Complete: true, Labels: []string{"L"}},
		},
		{
			name: "2022 draft: each increment's errors kept, null data merges nothing",
			body: yogaBody(`{"data":{"hero":{"id":"1","friends":[]}},"errors":[{"message":"first"}],"hasNext":true}`,
				`{"incremental":[{"data":null,"path":["hero"],"errors":[{"message":"boom","path":["hero","slow"]}]}],"hasNext":true}`,
				`{"incremental":[{"items":[null],"path":["hero","friends",0],"errors":[{"message":"item"}]}],"hasNext":true}`,
				`{"incremental":[{"items":null,"path":["hero","friends",1],"errors":[{"message":"stream"}]}],"hasNext":false}`),
			want:     `{"errors":[{"message":"first"},{"message":"boom","path":["hero","slow"]},{"message":"item"},{"message":"stream"}],"data":{"hero":{"id":"1","friends":[null]}}}`,
			delivery: Delivery{Parts: 4, Complete: true},
		},
		{
			name: "graphql-js 17: pending, incremental by id, subPath, completed with errors",
			body: yogaBody(`{"data":{"hero":{"id":"1","ship":{"id":"s"},"friends":[]}},"pending":[{"id":"0","path":["hero"],"label":"D"},{"id":"1","path":["hero","friends"],"label":"S"}],"hasNext":true}`,
				`{"incremental":[{"id":"0","data":{"name":"Luke"}},{"id":"0","subPath":["ship"],"data":{"model":"X"}},{"id":"1","items":[{"n":"a"}]}],"completed":[{"id":"0"}],"hasNext":true}`,
				`{"incremental":[{"id":"1","items":[{"n":"b"},{"n":"c"}]}],"completed":[{"id":"1","errors":[{"message":"stream failed","path":["hero","friends",3]}]}],"hasNext":false}`),
			want:     `{"errors":[{"message":"stream failed","path":["hero","friends",3]}],"data":{"hero":{"id":"1","ship":{"id":"s","model":"X"},"friends":[{"n":"a"},{"n":"b"},{"n":"c"}],"name":"Luke"}}}`,
			delivery: Delivery{Parts: 3, Complete: true, Labels: []string{"D", "S"}},
		},
		{
			name: "first drafts: each later payload one increment",
			body: "\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n" + `{"data":{"hello":"Hello Rob"},"hasNext":true}` +
				"\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n" + `{"data":{"test":"Hello World"},"path":[],"label":"t","errors":[{"message":"e"}],"hasNext":false}` + "\r\n-----\r\n",
			want:     `{"errors":[{"message":"e"}],"data":{"hello":"Hello Rob","test":"Hello World"}}`,
			delivery: Delivery{Parts: 2, Complete: true, Labels: []string{"t"}},
		},
		{
			name: "deferred data beside the initial fields merges member by member, lists item by item",
			body: yogaBody(`{"data":{"hero":{"friends":[{"id":"1"},{"id":"2"}]}},"hasNext":true}`,
				`{"incremental":[{"data":{"hero":{"friends":[{"name":"a"},{"name":"b"}],"age":3}},"path":[]}],"hasNext":false}`),
			want:     `{"data":{"hero":{"friends":[{"id":"1","name":"a"},{"id":"2","name":"b"}],"age":3}}}`,
			delivery: Delivery{Parts: 2, Complete: true},
		},
		{
			name: "extensions of every payload merged, a later member replacing",
			body: yogaBody(`{"data":{"a":1},"extensions":{"cost":1,"trace":"x"},"hasNext":true}`,
				`{"incremental":[{"data":{"b":2},"path":[]}],"extensions":{"cost":2},"hasNext":false}`),
			want:     `{"data":{"a":1,"b":2},"extensions":{"cost":2,"trace":"x"}}`,
			delivery: Delivery{Parts: 2, Complete: true},
		},
		{
			name:     "one part without hasNext is a whole answer",
			body:     yogaBody(`{"data":{"a":1}}`),
			want:     `{"data":{"a":1}}`,
			delivery: Delivery{Parts: 1, Complete: true},
		},
		{
			name:     "errors only",
			body:     yogaBody(`{"errors":[{"message":"no"}]}`),
			want:     `{"errors":[{"message":"no"}]}`,
			delivery: Delivery{Parts: 1, Complete: true},
		},
		{
			name:     "keep-alive {} and empty parts are skipped",
			body:     yogaBody(`{}`, `{"data":{"a":1},"hasNext":true}`, ``, `{}`, `{"incremental":[{"data":{"b":2},"path":[]}],"hasNext":false}`),
			want:     `{"data":{"a":1,"b":2}}`,
			delivery: Delivery{Parts: 2, Complete: true},
		},
		{
			name:        "another boundary, LF line ends, a preamble, padding after a delimiter, a part without headers",
			contentType: "multipart/mixed; boundary=graphql; deferSpec=20220824",
			body: "preamble --graphql is not a delimiter\n--graphql  \n\n" + `{"data":{"a":[1]},"hasNext":true}` +
				"\n--graphql\ncontent-type: application/json\n\n" + `{"incremental":[{"items":[2],"path":["a",1]}],"hasNext":false}` + "\n--graphql--\n",
			want:     `{"data":{"a":[1,2]}}`,
			delivery: Delivery{Parts: 2, Complete: true},
		},
		{
			name: "ended early: no hasNext false, graphql-js 17's pending named",
			body: yogaBody(`{"data":{"hero":{"id":"1","friends":[]}},"pending":[{"id":"0","path":["hero"],"label":"slow"},{"id":"1","path":["hero","friends"]}],"hasNext":true}`,
				`{"incremental":[{"id":"1","items":[1]}],"hasNext":true}`),
			want:     `{"data":{"hero":{"id":"1","friends":[1]}}}`,
			delivery: Delivery{Parts: 2, Missing: []string{`slow`, "at hero.friends"}, Ended: endedByEndpoint, Advice: endedByEndpointAdvice},
		},
		{
			name:     "ended early inside a part: what came of it is left out",
			body:     "\r\n---\r\n\r\n" + `{"data":{"a":1},"hasNext":true}` + "\r\n---\r\n\r\n" + `{"incremental":[{"data":{"b":`,
			want:     `{"data":{"a":1}}`,
			delivery: Delivery{Parts: 1, CutPart: true, Ended: endedByEndpoint, Advice: endedByEndpointAdvice},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contentType := tt.contentType
			if contentType == "" {
				contentType = yogaType
			}
			resp, err := read(t, contentType, tt.body)
			if err != nil {
				t.Fatal(err)
			}
			if string(resp.Body) != tt.want {
				t.Errorf("body\n got %s\nwant %s", resp.Body, tt.want)
			}
			if diff := cmp.Diff(tt.delivery, *resp.Incremental); diff != "" {
				t.Errorf("delivery (-want +got):\n%s", diff)
			}
			if !json.Valid(resp.Body) || resp.HasData != strings.Contains(tt.want, `"data":{`) {
				t.Errorf("HasData %v for %s", resp.HasData, resp.Body)
			}
		})
	}
}

// TestIncrementalHostile: each stream that cannot be read is a clear
// error naming the part and the rule, and the advice to run without
// @defer and @stream. What the endpoint wrote that the error points at
// (quote) is never in the server's sentence: it comes after it, alone in
// one frame.
func TestIncrementalHostile(t *testing.T) {
	endless := "\r\n---" + strings.Repeat("\r\n\r\n{}\r\n---", MaxParts+1) + "--"
	tests := []struct {
		name, contentType, body, want, quote string
	}{
		{"no boundary", "multipart/mixed", yogaBody(`{"data":{}}`), "without a boundary parameter", ""},
		{"empty boundary", `multipart/mixed; boundary=""`, yogaBody(`{"data":{}}`), "without a boundary parameter", ""},
		{"boundary too long", "multipart/mixed; boundary=" + strings.Repeat("b", 71), "", "over the 70", ""},
		{"no delimiter", yogaType, `{"data":{"a":1}}`, "no line starting with the boundary its Content-Type names (quoted below)", "---"},
		{"empty body", yogaType, ``, "no line starting with the boundary", "---"},
		{"endless parts", yogaType, endless, fmt.Sprintf("more than %d parts", MaxParts), ""},
		{"bad JSON in a part", yogaType, yogaBody(`{"data":{"a":1},"hasNext":true}`, `{"incremental":[}`), `part 2 is not a JSON object (its start is quoted below)`, `{"incremental":[}`},
		{"a part that is not an object", yogaType, yogaBody(`[1]`), "part 1 is not a JSON object", "[1]"},
		{"nested past the scanner's limit", yogaType, yogaBody(strings.Repeat("[", 20000)), "part 1 is not a JSON object", strings.Repeat("[", 200) + "…"},
		{"first payload without data or errors", yogaType, yogaBody(`{"hasNext":false}`), "part 1 is not a GraphQL response", ""},
		{"data a string", yogaType, yogaBody(`{"data":"x"}`), `part 1 has data, quoted below, which must be an object or null`, `"x"`},
		{"hasNext a string", yogaType, yogaBody(`{"data":{},"hasNext":"yes"}`), `has a hasNext, quoted below, which must be true or false`, `"yes"`},
		{"errors not objects", yogaType, yogaBody(`{"data":{},"errors":["x"]}`), `part 1 has an error, quoted below, which must be an object`, `"x"`},
		{"no blank line after headers", yogaType, "\r\n---\r\nContent-Type: application/json\r\n---\r\n\r\n{}\r\n-----", "part 1 has no blank line after its headers", ""},
		{"headers too long", yogaType, "\r\n---\r\nX: " + strings.Repeat("h", 20<<10) + "\r\n\r\n{}\r\n-----", "the headers of part 1 are longer than 16 KiB", ""},
		{"path into a missing member", yogaType, yogaBody(`{"data":{"hero":{}},"hasNext":true}`, `{"incremental":[{"data":{},"path":["hero","ship"]}],"hasNext":false}`),
			`part 2 incremental[0]: puts its data at the path quoted below, which leads to nothing: its step 2 names a member the object there does not have`, "hero.ship"},
		{"path past a list's end", yogaType, yogaBody(`{"data":{"l":[{}]},"hasNext":true}`, `{"incremental":[{"data":{},"path":["l",3]}],"hasNext":false}`),
			"its step 2 is index 3, but the list there has 1 items", "l.3"},
		{"path into null", yogaType, yogaBody(`{"data":{"hero":null},"hasNext":true}`, `{"incremental":[{"data":{},"path":["hero","x"]}],"hasNext":false}`),
			"its step 2 is a member's name, but the value there is null, not an object", "hero.x"},
		{"path through a string", yogaType, yogaBody(`{"data":{"s":"x"},"hasNext":true}`, `{"incremental":[{"items":[1],"path":["s",0]}],"hasNext":false}`),
			"puts its items in the path quoted below, which is a string, not a list", "s"},
		{"data into no data", yogaType, yogaBody(`{"data":null,"hasNext":true}`, `{"incremental":[{"data":{},"path":[]}],"hasNext":false}`),
			"puts its data at the data, which leads to nothing: the first payload has no data", ""},
		{"data onto a list", yogaType, yogaBody(`{"data":{"l":[]},"hasNext":true}`, `{"incremental":[{"data":{"a":1},"path":["l"]}],"hasNext":false}`),
			"puts its data at the path quoted below, which is a list, not an object", "l"},
		{"items at a name", yogaType, yogaBody(`{"data":{"l":[]},"hasNext":true}`, `{"incremental":[{"items":[1],"path":["l"]}],"hasNext":false}`),
			"puts its items at the path quoted below, which must end in the index of the first item", "l"},
		{"items past the end", yogaType, yogaBody(`{"data":{"l":[]},"hasNext":true}`, `{"incremental":[{"items":[1],"path":["l",2]}],"hasNext":false}`),
			"puts its items in the path quoted below at index 2, but that list has 0", "l"},
		{"items not a list", yogaType, yogaBody(`{"data":{"l":[]},"hasNext":true}`, `{"incremental":[{"items":{},"path":["l",0]}],"hasNext":false}`),
			"has items, quoted below, which must be a list", "{}"},
		{"unknown id", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"incremental":[{"id":"9","data":{}}],"hasNext":false}`),
			`has an id, quoted below, which no pending entry announced`, "9"},
		{"completed unknown id", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"completed":[{"id":"9"}],"hasNext":false}`),
			`has completed[0] with an id, quoted below, which no pending entry announced`, "9"},
		{"neither id nor path", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"incremental":[{"data":{}}],"hasNext":false}`),
			"has neither an id nor a path", ""},
		{"later data without a path", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"data":{"a":1},"hasNext":false}`),
			"part 2 has data but no path", ""},
		{"path of numbers below zero", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"incremental":[{"data":{},"path":[-1]}],"hasNext":false}`),
			"a path step -1, which must be a name or a list index", ""},
		{"path not a list", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"incremental":[{"data":{},"path":"hero"}],"hasNext":false}`),
			"part 2 incremental[0]: a path, quoted below, which must be a list of names and indexes", `"hero"`},
		{"path step an object", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"incremental":[{"data":{},"path":[{"a":1}]}],"hasNext":false}`),
			"a path step, quoted below, which must be a name or a list index", `{"a":1}`},
		{"path too long", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"incremental":[{"data":{},"path":[`+strings.Repeat(`"a",`, maxPathLength)+`"a"]}],"hasNext":false}`),
			fmt.Sprintf("a path of %d steps, over the %d allowed", maxPathLength+1, maxPathLength), ""},
		{"incremental not a list", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"incremental":{},"hasNext":false}`),
			"has an incremental, quoted below, which must be a list of objects", "{}"},
		{"an increment not an object", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"incremental":[1],"hasNext":false}`),
			"part 2 has an incremental[0], quoted below, which must be an object", "1"},
		{"pending not a list", yogaType, yogaBody(`{"data":{},"pending":{},"hasNext":true}`),
			"part 1 has a pending, quoted below, which must be a list of {id, path, label}", "{}"},
		{"pending path not a list", yogaType, yogaBody(`{"data":{},"pending":[{"id":"0","path":"x"}],"hasNext":true}`),
			"part 1 has pending[0] with a path, quoted below, which must be a list of names and indexes", `"x"`},
		{"completed not a list", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"completed":1,"hasNext":false}`),
			"part 2 has a completed, quoted below, which must be a list of {id, errors}", "1"},
		{"completed errors not a list", yogaType, yogaBody(`{"data":{},"pending":[{"id":"0","path":[]}],"hasNext":true}`, `{"completed":[{"id":"0","errors":{}}],"hasNext":false}`),
			"part 2 completed[0] has errors, quoted below, which must be a list of objects", "{}"},
		{"id not a string", yogaType, yogaBody(`{"data":{},"hasNext":true}`, `{"incremental":[{"id":0,"data":{}}],"hasNext":false}`),
			"has an id, quoted below, which must be a string", "0"},
		{"no payload at all", yogaType, yogaBody(``, `{}`), "no part held a GraphQL response", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := read(t, tt.contentType, tt.body)
			var notGraphQL *NotGraphQLError
			if !errors.As(err, &notGraphQL) {
				t.Fatalf("got %v, want a NotGraphQLError", err)
			}
			text := err.Error()
			blocks, outside := mcptool.Frames(text)
			for _, want := range []string{"Sending the query to https://api.example.com/graphql failed: its incremental answer (multipart/mixed, for @defer or @stream) cannot be read: ",
				tt.want, "run the operation without @defer and @stream"} {
				if !strings.Contains(outside, want) {
					t.Errorf("error %q\nlacks %q outside its frame", text, want)
				}
			}
			switch {
			case tt.quote == "" && len(blocks) > 0:
				t.Errorf("error %q quotes %q, want nothing", text, blocks)
			case tt.quote != "" && (len(blocks) != 1 || blocks[0] != tt.quote):
				t.Errorf("error %q quotes %q, want one frame holding %q", text, blocks, tt.quote)
			case tt.quote != "" && !strings.Contains(outside, "quoted below"):
				t.Errorf("error %q does not say it quotes", text)
			}
			if len(text) > 1000 {
				t.Errorf("error of %d bytes", len(text))
			}
		})
	}
}

// TestSplitParts covers the framing alone.
func TestSplitParts(t *testing.T) {
	parts, closed, err := splitParts([]byte(yogaBody(`{"a":1}`, `{"b":2}`)), "-")
	if err != nil || !closed || len(parts) != 2 || string(parts[0].body) != `{"a":1}` || parts[0].contentType != "application/json; charset=utf-8" || parts[1].cut {
		t.Errorf("yoga body: %+v %v %v", parts, closed, err)
	}
	// A line holding the boundary and more is not a delimiter, nor is the
	// boundary inside a line.
	body := "--b\r\n\r\n{\"x\":\"--b\"}\r\n--bc\r\n--b--"
	parts, closed, err = splitParts([]byte(body), "b")
	if err != nil || !closed || len(parts) != 1 || string(bytes.TrimSpace(parts[0].body)) != "{\"x\":\"--b\"}\r\n--bc" {
		t.Errorf("boundary lookalikes: %+v %v %v", parts, closed, err)
	}
	parts, closed, err = splitParts([]byte("--b\r\n\r\n{}\r\n--b\r\n\r\n{\"a"), "b")
	if err != nil || closed || len(parts) != 2 || !parts[1].cut || parts[0].cut {
		t.Errorf("unclosed: %+v %v %v", parts, closed, err)
	}
}

func TestDeliveryNote(t *testing.T) {
	tests := []struct {
		d           Delivery
		want, named string
	}{
		{Delivery{Parts: 3, Complete: true, Labels: []string{"slow", "list"}},
			`The endpoint delivered this answer incrementally (@defer/@stream) in 3 parts, merged here into one result (its labels named below).`,
			`labels: "slow", "list"`},
		{Delivery{Parts: 1, Complete: true}, `The endpoint delivered this answer incrementally (@defer/@stream) in 1 part, merged here into one result.`, ""},
		{Delivery{Parts: 2, CutPart: true, Labels: []string{"fast"}, Missing: []string{"slow", "at hero.friends"}, More: 2, Ended: "timed out after 50 ms", Advice: "Pass a larger timeout"},
			`The endpoint delivered this answer incrementally (@defer/@stream) in 2 parts, merged here into one result (its label named below). ` +
				`The stream ended before the endpoint said it was complete (no part had hasNext: false), so this is only what came: the reading timed out after 50 ms. ` +
				`A last part was cut off midway and left out. Still missing: the 2 named below and 2 more. Pass a larger timeout.`,
			"labels: \"fast\"\nstill missing: slow, at hero.friends"},
	}
	for _, tt := range tests {
		if got := tt.d.Note(); got != tt.want {
			t.Errorf("note\n got %s\nwant %s", got, tt.want)
		}
		if got := tt.d.Named(); got != tt.named {
			t.Errorf("named\n got %q\nwant %q", got, tt.named)
		}
	}
}

// streamHandler answers every POST with the yoga framing, writing and
// flushing each payload in turn; hold, when set, is waited on before the
// last part (a slow deferred field). accept records the Accept header.
func streamHandler(hold <-chan struct{}, accept *string, payloads ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		*accept = r.Header.Get("Accept")
		w.Header().Set("Content-Type", yogaType)
		_, _ = io.WriteString(w, "\r\n---")
		for i, p := range payloads {
			if i == len(payloads)-1 && hold != nil {
				w.(http.Flusher).Flush()
				select {
				case <-hold:
				case <-r.Context().Done():
					return
				}
			}
			fmt.Fprintf(w, "\r\nContent-Type: application/json; charset=utf-8\r\n\r\n%s\r\n---", p)
		}
		_, _ = io.WriteString(w, "--\r\n")
	})
}

func streamingServer(t *testing.T, hold <-chan struct{}, payloads ...string) (*httptest.Server, *string) {
	var accept string
	srv := httptest.NewServer(streamHandler(hold, &accept, payloads...))
	t.Cleanup(srv.Close)
	return srv, &accept
}

// pipeListener hands an http.Server the server ends of net.Pipe
// connections: in-memory, so a synctest bubble sees a read that waits as
// blocked and moves its clock on.
type pipeListener struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// pipeClient is a Client whose every request reaches handler over
// net.Pipe, served by a real http.Server.
func pipeClient(t *testing.T, handler http.Handler) *Client {
	ln := &pipeListener{conns: make(chan net.Conn), closed: make(chan struct{})}
	server := &http.Server{Handler: handler}
	go func() { _ = server.Serve(ln) }()
	transport := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		client, end := net.Pipe()
		select {
		case ln.conns <- end:
			return client, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}}
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		_ = server.Close()
	})
	return &Client{
		Caller:           &httpx.Caller{HTTP: &http.Client{Transport: transport}, Logger: slog.New(slog.DiscardHandler)},
		MaxResponseBytes: 1 << 20,
		Redactor:         NewRedactor(nil),
	}
}

func loopbackClient(maxBytes int64) *Client {
	return &Client{
		Caller:           &httpx.Caller{HTTP: NewHTTPClient("test/1"), Logger: slog.New(slog.DiscardHandler)},
		MaxResponseBytes: maxBytes,
		Redactor:         NewRedactor(map[string]string{"Authorization": "Bearer sekrit-token-123"}),
	}
}

// TestPostIncremental runs Post over loopback HTTP: the Accept header asks
// for incremental delivery only when the request does, and a streamed
// answer is merged.
func TestPostIncremental(t *testing.T) {
	srv, accept := streamingServer(t, nil, `{"data":{"a":1},"hasNext":true}`, `{"incremental":[{"data":{"b":"sekrit-token-123"},"path":[]}],"hasNext":false}`)
	c := loopbackClient(1 << 20)
	req := Request{Target: Target{URL: parse(t, srv.URL)}, Headers: Defaults(), Timeout: 10 * time.Second, Query: "{ a ... @defer { b } }"}
	resp, err := c.Post(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if *accept != Defaults().Get("Accept") {
		t.Errorf("Accept without Incremental: %q", *accept)
	}
	if string(resp.Body) != `{"data":{"a":1,"b":"[REDACTED]"}}` || resp.Incremental == nil || !resp.Incremental.Complete {
		t.Errorf("got %s %+v", resp.Body, resp.Incremental)
	}
	req.Incremental = true
	if _, err := c.Post(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if *accept != IncrementalAccept || req.Headers.Get("Accept") != Defaults().Get("Accept") {
		t.Errorf("Accept with Incremental: %q (request's headers changed: %q)", *accept, req.Headers.Get("Accept"))
	}
	if !strings.HasPrefix(IncrementalAccept, "multipart/mixed;incrementalSpec=v0.2, multipart/mixed;deferSpec=20220824, ") {
		t.Errorf("IncrementalAccept = %q", IncrementalAccept)
	}
}

// TestPostIncrementalTooLarge: the size limit bounds all parts together,
// whether many parts pass it or one huge part does. A stream that passes
// it keeps the parts that came whole within it, as a stream the timeout
// cuts does, and says why it stopped and what to ask instead; one whose
// first payload does not fit fails as a one-piece answer over the limit
// does.
func TestPostIncrementalTooLarge(t *testing.T) {
	item := `{"incremental":[{"items":["` + strings.Repeat("x", 600) + `"],"path":["l",%d]}],"hasNext":true}`
	many := []string{`{"data":{"l":[]},"hasNext":true}`}
	for i := range 4 {
		many = append(many, fmt.Sprintf(item, i))
	}
	huge := []string{`{"data":{"l":[]},"hasNext":true}`, `{"incremental":[{"items":["` + strings.Repeat("x", 1<<20) + `"],"path":["l",0]}],"hasNext":false}`}
	first := []string{`{"data":{"l":["` + strings.Repeat("x", 3000) + `"]},"hasNext":true}`}
	for name, tt := range map[string]struct {
		payloads []string
		body     string // "" for the error
	}{
		"many parts":    {many, `{"data":{"l":["` + strings.Repeat("x", 600) + `","` + strings.Repeat("x", 600) + `"]}}`},
		"one huge part": {huge, `{"data":{"l":[]}}`},
		"first part":    {first, ""},
	} {
		t.Run(name, func(t *testing.T) {
			srv, _ := streamingServer(t, nil, tt.payloads...)
			resp, err := loopbackClient(2000).Post(context.Background(), Request{Target: Target{URL: parse(t, srv.URL)}, Headers: Defaults(), Timeout: 10 * time.Second, Incremental: true})
			if tt.body == "" {
				if err == nil || !strings.Contains(err.Error(), "larger than the 2000 bytes limit") {
					t.Errorf("got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			d := resp.Incremental
			if string(resp.Body) != tt.body || d.Complete || !d.CutPart || d.Ended != "stopped at the response size limit of 2000 bytes (--max-response-bytes)" ||
				d.Advice != "Select fewer fields, or fetch fewer items with a first/limit argument" {
				t.Errorf("got %s %+v", resp.Body, d)
			}
		})
	}
}

// TestPostIncrementalCut: a stream the call's timeout cuts keeps what
// came, and says so; the clock is synctest's, so the timeout passes at
// once when the server holds its last part.
func TestPostIncrementalCut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		var accept string
		client := pipeClient(t, streamHandler(hold, &accept, `{"data":{"a":1},"pending":[{"id":"0","path":[],"label":"slow"}],"hasNext":true}`,
			`{"incremental":[{"id":"0","data":{"b":2}}],"completed":[{"id":"0"}],"hasNext":false}`))
		resp, err := client.Post(context.Background(), Request{Target: Target{URL: parse(t, "http://pipe.test/graphql")}, Headers: Defaults(), Timeout: 50 * time.Millisecond, Incremental: true})
		if err != nil {
			t.Fatal(err)
		}
		d := resp.Incremental
		if string(resp.Body) != `{"data":{"a":1}}` || d.Complete || d.Ended != "timed out after 50 ms" || !strings.Contains(d.Advice, "Pass a larger timeout") ||
			!cmp.Equal(d.Missing, []string{"slow"}) {
			t.Errorf("got %s %+v", resp.Body, d)
		}
	})
}

// TestPostIncrementalDropped: a connection that breaks mid-stream keeps
// what came.
func TestPostIncrementalDropped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", yogaType)
		_, _ = io.WriteString(w, "\r\n---\r\n\r\n"+`{"data":{"a":1},"hasNext":true}`+"\r\n---\r\n\r\n"+`{"incremental":[{"data":`)
		w.(http.Flusher).Flush()
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			_ = conn.Close() // no last chunk: the body ends unexpectedly
		}
	}))
	defer srv.Close()
	resp, err := loopbackClient(1<<20).Post(context.Background(), Request{Target: Target{URL: parse(t, srv.URL)}, Headers: Defaults(), Timeout: 10 * time.Second, Incremental: true})
	if err != nil {
		t.Fatal(err)
	}
	d := resp.Incremental
	if string(resp.Body) != `{"data":{"a":1}}` || d.Complete || !d.CutPart || !strings.HasPrefix(d.Ended, "stopped when the connection broke (") {
		t.Errorf("got %s %+v", resp.Body, d)
	}
}

// TestIncrementalWorstCase merges an answer made to work the merge hardest,
// past the default size limit (9 MiB where 4 is the default): 3 MiB of data
// nested as deep as a path may go, each level holding the rest, and the
// most parts, each walking the whole path. Each level is split once, so the
// bytes read through stay a small multiple of the answer's; a merge that
// grew with the square of the bytes would read them through thousands of
// times. The work is counted, not timed: a count does not change with the
// machine's load.
func TestIncrementalWorstCase(t *testing.T) {
	depth := maxPathLength
	filler := `"` + strings.Repeat("x", (3<<20)/depth) + `"`
	var data strings.Builder
	path := make([]string, 0, depth)
	for range depth {
		data.WriteString(`{"f":` + filler + `,"n":`)
		path = append(path, `"n"`)
	}
	data.WriteString(`{}` + strings.Repeat("}", depth))
	payloads := []string{`{"data":` + data.String() + `,"hasNext":true}`}
	increment := `{"incremental":[{"data":{"v":1},"path":[` + strings.Join(path, ",") + `]}],"hasNext":true}`
	for len(payloads) < MaxParts-1 {
		payloads = append(payloads, increment)
	}
	payloads = append(payloads, `{"hasNext":false}`)
	resp, err := read(t, yogaType, yogaBody(payloads...))
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Incremental.Complete || !strings.HasSuffix(string(resp.Body), `{"v":1}`+strings.Repeat("}", depth+1)) {
		t.Errorf("merged body ends %s", resp.Body[len(resp.Body)-200:])
	}
	checkMergeWork(t, payloads, 4)
}

// TestPostIncrementalCutBeforeAnswer: a stream the timeout cuts before its
// first payload is whole fails as any request that timed out does.
func TestPostIncrementalCutBeforeAnswer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		var accept string
		client := pipeClient(t, streamHandler(hold, &accept, `{"data":{"a":1},"hasNext":false}`))
		_, err := client.Post(context.Background(), Request{Target: Target{URL: parse(t, "http://pipe.test/graphql")}, Headers: Defaults(), Timeout: 50 * time.Millisecond, Incremental: true})
		var noAnswer *RequestError
		if !errors.As(err, &noAnswer) || !strings.Contains(err.Error(), "timed out after 50 ms without an answer. Pass a larger timeout") {
			t.Errorf("got %v", err)
		}
	})
}
