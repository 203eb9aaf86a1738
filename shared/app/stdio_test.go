package app

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mcpforge/servers/shared/mcptool"
)

// rawSession runs testSpec over in-process pipes and speaks raw lines to it.
type rawSession struct {
	in   io.WriteCloser
	out  *bufio.Reader
	done chan int
}

func startRaw(t *testing.T) *rawSession {
	t.Helper()
	clientToServer, serverIn := io.Pipe()
	serverOut, serverToClient := io.Pipe()
	s := &rawSession{in: serverIn, out: bufio.NewReader(serverOut), done: make(chan int, 1)}
	go func() {
		s.done <- Run(context.Background(), testSpec(), []string{"testmcp", "--log-level", "error"},
			Streams{Stdin: clientToServer, Stdout: serverToClient, Stderr: io.Discard})
		serverToClient.Close()
	}()
	t.Cleanup(func() { serverIn.Close() })
	return s
}

func (s *rawSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatalf("the server stopped reading: %v", err)
	}
}

// answer reads the next line the server writes, as JSON.
func (s *rawSession) answer(t *testing.T) map[string]any {
	t.Helper()
	type lineOrErr struct {
		line []byte
		err  error
	}
	read := make(chan lineOrErr, 1)
	go func() {
		line, err := s.out.ReadBytes('\n')
		read <- lineOrErr{line, err}
	}()
	var line []byte
	select {
	case got := <-read:
		if got.err != nil {
			t.Fatalf("no answer: %v", got.err)
		}
		line = got.line
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10 s")
	}
	var out map[string]any
	if err := json.Unmarshal(line, &out); err != nil {
		t.Fatalf("the answer is not JSON: %q", line)
	}
	return out
}

// ping proves the server still serves: a ping with id is answered.
func (s *rawSession) ping(t *testing.T, id int) {
	t.Helper()
	s.send(t, `{"jsonrpc":"2.0","id":`+jsonNumber(id)+`,"method":"ping"}`)
	if got := s.answer(t); got["id"] != float64(id) || got["error"] != nil {
		t.Fatalf("ping %d: %v", id, got)
	}
}

func jsonNumber(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestStdioMalformedLines: every malformed line is answered with the
// JSON-RPC error the spec names (parse error, invalid request), or dropped
// when it cannot be answered, and the server keeps serving. The go-sdk's own
// stdio transport ended the process on each of these.
func TestStdioMalformedLines(t *testing.T) {
	s := startRaw(t)
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if got := s.answer(t); got["result"] == nil {
		t.Fatalf("initialize: %v", got)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	deep := strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000)
	for i, tt := range []struct {
		name, line string
		code       float64
		id         any
	}{
		{"not JSON", `hello there`, -32700, nil},
		{"cut JSON", `{"jsonrpc":"2.0","id":5,"method":`, -32700, nil},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"x\":\"\xff\"}", -32700, nil},
		{"100k-deep nesting", `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"a":` + deep + `}}`, -32700, nil},
		{"empty object", `{}`, -32600, nil},
		{"id alone", `{"jsonrpc":"2.0","id":13}`, -32600, 13.0},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":8,"method":"ping"}`, -32600, 8.0},
		{"no jsonrpc", `{"id":"nine","method":"ping"}`, -32600, "nine"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, -32600, nil},
		{"id 1e400", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, -32600, nil},
		{"fractional id", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600, nil},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, -32600, nil},
		{"batch", `[{"jsonrpc":"2.0","id":10,"method":"ping"}]`, -32600, nil},
		{"empty batch", `[]`, -32600, nil},
		{"a number", `42`, -32600, nil},
		{"method not a string", `{"jsonrpc":"2.0","id":11,"method":7}`, -32600, 11.0},
		{"params a number", `{"jsonrpc":"2.0","id":12,"method":"tools/list","params":5}`, -32600, 12.0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s.send(t, tt.line)
			got := s.answer(t)
			e, _ := got["error"].(map[string]any)
			if got["jsonrpc"] != "2.0" || e == nil || e["code"] != tt.code || got["id"] != tt.id {
				t.Errorf("answer %v, want error %v with id %v", got, tt.code, tt.id)
			}
			s.ping(t, 100+i)
		})
	}
	t.Run("dropped without an answer", func(t *testing.T) {
		for _, line := range []string{
			``, `   `,
			`{"jsonrpc":"2.0","id":99,"result":{}}`,            // a response to nothing
			`{"jsonrpc":"2.0","id":{"x":1},"result":{}}`,       // a response with a bad id
			`{"jsonrpc":"2.0","method":"notifications/bogus"}`, // an unknown notification
		} {
			s.send(t, line)
		}
		s.ping(t, 200) // the next answer is the ping's: nothing else was written
	})
	t.Run("a tool still works", func(t *testing.T) {
		s.send(t, `{"jsonrpc":"2.0","id":300,"method":"tools/call","params":{"name":"ping","arguments":{}}}`)
		if got := s.answer(t); got["result"] == nil {
			t.Errorf("tools/call: %v", got)
		}
	})
	s.in.Close()
	if code := <-s.done; code != exitOK {
		t.Errorf("exit code %d at end of input", code)
	}
}

// TestStdioLineTooLong: a line over the limit is read to its end and
// refused, in bounded memory, and the next line is served.
func TestStdioLineTooLong(t *testing.T) {
	s := startRaw(t)
	go func() {
		chunk := strings.Repeat("x", 1<<20)
		io.WriteString(s.in, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"`)
		for range maxLineBytes>>20 + 1 {
			io.WriteString(s.in, chunk)
		}
		io.WriteString(s.in, "\"}}\n")
	}()
	got := s.answer(t)
	if e, _ := got["error"].(map[string]any); e == nil || e["code"] != -32600.0 || !strings.Contains(e["message"].(string), "bytes") {
		t.Errorf("answer %v", got)
	}
	s.ping(t, 2)
}

// FuzzDecodeLine: no line makes decoding panic, and a line it passes on is
// one the SDK's own decoder accepts.
func FuzzDecodeLine(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":"a","result":{}}`, `[]`, `{}`, `{"id":1e400}`,
		`{"jsonrpc":"2.0","id":-9007199254740992,"method":"x","params":[]}`, "\xff", `{"a":"\\"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		msg, bad := decodeLine(line)
		if msg != nil && bad != nil {
			t.Fatal("both a message and an error")
		}
		if bad != nil && bad.answer && bad.code != -32700 && bad.code != -32600 {
			t.Fatalf("code %d", bad.code)
		}
		if _, repeated, _ := mcptool.RepeatedKey(line); msg != nil && repeated {
			t.Fatal("a message that gives a key twice was passed on")
		}
	})
}

// TestStdioWriteAsEncodeMessage checks that every message is written as
// the SDK's own encoding of it and a newline, results written around their
// encoded bytes (small and large ones) included.
func TestStdioWriteAsEncodeMessage(t *testing.T) {
	large := `{"contents":[{"uri":"hooksvc://x","text":"` + strings.Repeat(`a \"<&>\" é `, directResultBytes/8) + `"}]}`
	var messages []jsonrpc.Message
	for _, id := range []any{7.0, -1.0, 9007199254740992.0, "req-<&>-é", ""} {
		jid, err := jsonrpc.MakeID(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, result := range []string{`{}`, `{"content":[{"type":"text","text":"<b>&</b>"}]}`, large} {
			messages = append(messages, &jsonrpc.Response{ID: jid, Result: json.RawMessage(result)})
		}
		messages = append(messages, &jsonrpc.Response{ID: jid, Error: &jsonrpc.Error{Code: -32602, Message: "bad"}})
	}
	notification := &jsonrpc.Request{Method: "notifications/progress", Params: json.RawMessage(`{"progress":1}`)}
	messages = append(messages, notification)
	for _, msg := range messages {
		var out strings.Builder
		c := &lineConn{out: &out}
		if err := c.Write(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
		want, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != string(want)+"\n" {
			t.Errorf("Write(%T) wrote %.200q, want %.200q", msg, got, want)
		}
	}
}

// TestStdioRepeatedKey: a message that gives a key twice, at any depth, is
// refused as an invalid request naming the key, answering the request's id
// unless the id is the key given twice; a response that does is dropped.
// Neither reaches the SDK, which would keep the last of the two.
func TestStdioRepeatedKey(t *testing.T) {
	for _, tt := range []struct {
		line, key, in string
		id            json.RawMessage
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{},"name":"ping"}}`, "name", "params", json.RawMessage("1")},
		{`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"ping","arguments":{},"arguments":{"a":1}}}`, "arguments", "params", json.RawMessage(`"x"`)},
		{`{"jsonrpc":"2.0","id":2,"method":"ping","method":"tools/call"}`, "method", "the message", json.RawMessage("2")},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"ping","arguments":{"a":{"b":[{"c":1,"c":2}]}}}}`, "c", "params.arguments.a.b[0]", json.RawMessage("3")},
		{`{"jsonrpc":"2.0","id":4,"method":"ping","id":5}`, "id", "the message", nil},
		{`{"jsonrpc":"2.0","id":{},"method":"ping","params":{"p":1,"p":2}}`, "p", "params", nil},
		{`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"p":1,"p":2}}`, "p", "params", nil},
	} {
		msg, bad := decodeLine([]byte(tt.line))
		if msg != nil || bad == nil || !bad.answer || bad.code != -32600 || string(bad.id) != string(tt.id) ||
			!strings.Contains(bad.message, `the key "`+tt.key+`" is given twice in `+tt.in+`;`) {
			t.Errorf("decodeLine(%s) = %v, %+v; want an invalid request to id %s naming %q in %s", tt.line, msg, bad, tt.id, tt.key, tt.in)
		}
	}
	if msg, bad := decodeLine([]byte(`{"jsonrpc":"2.0","id":6,"result":{"a":1,"a":2}}`)); msg != nil || bad == nil || bad.answer {
		t.Errorf("a response with a key twice: %v, %+v; want it dropped", msg, bad)
	}

	s := startRaw(t)
	s.send(t, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	s.answer(t)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.send(t, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"no_such_tool","arguments":{},"name":"ping"}}`)
	got := s.answer(t)
	if e, _ := got["error"].(map[string]any); got["id"] != 7.0 || e == nil || e["code"] != -32600.0 || got["result"] != nil {
		t.Errorf("a call naming its tool twice answered %v", got)
	}
	s.ping(t, 8)
}

// TestStdioOversizedEnvelope: what an answer repeats of its request (the
// id, the method of "method not found", a progress token) is refused when
// longer than any client needs, so that no answer is a megabyte long.
func TestStdioOversizedEnvelope(t *testing.T) {
	huge := strings.Repeat("x", 1_100_000)
	for _, tt := range []struct {
		line string
		code int64
		id   json.RawMessage
		want string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"` + huge + `"}`, -32601, json.RawMessage("1"), `method not found: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (1100000 characters)`},
		{`{"jsonrpc":"2.0","id":"` + huge + `","method":"ping"}`, -32600, nil, "the id is 1100002 bytes of JSON, over this server's limit of 1024"},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping","_meta":{"progressToken":"` + huge + `"}}}`, -32602, json.RawMessage("2"), "the progress token is 1100002 bytes of JSON"},
	} {
		msg, bad := decodeLine([]byte(tt.line))
		if msg != nil || bad == nil || !bad.answer || bad.code != tt.code || string(bad.id) != string(tt.id) || !strings.Contains(bad.message, tt.want) || len(bad.message) > 300 {
			t.Errorf("decodeLine(%.60s…) = %v, %.300v; want code %d to id %s saying %s", tt.line, msg, bad, tt.code, tt.id, tt.want)
		}
	}
	if msg, bad := decodeLine([]byte(`{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 1000) + `","method":"ping","params":{"_meta":{"progressToken":"` + strings.Repeat("p", 1000) + `"}}}`)); msg == nil || bad != nil {
		t.Errorf("an id and a token of 1,000 bytes: %v, %+v", msg, bad)
	}
}
