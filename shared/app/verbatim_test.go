package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"
)

// verbatimText is a tool result's text of about n bytes holding what
// encoding/json escapes: quotes, backslashes, control characters, HTML
// characters, U+2028 and U+2029, and text beyond ASCII.
func verbatimText(n int) string {
	const piece = "a \"quoted\" \\ <b>&amp;</b> é 😀 \u2028\u2029 \t\n\x01 "
	return strings.Repeat(piece, max(n/len(piece), 1))
}

// standResult is a tool result whose MarshalJSON hands its encoding to the
// stdio transport (when verbatim is set), as a handler of a large result
// does.
type standResult struct {
	*mcp.CallToolResult
	verbatim *Verbatim
	stood    *atomic.Int64
	// fails, when set, is handed over in place of the encoding.
	fails io.WriterTo
}

func (r *standResult) MarshalJSON() ([]byte, error) {
	encoded, err := r.CallToolResult.MarshalJSON()
	if err != nil || r.verbatim == nil {
		return encoded, err
	}
	r.stood.Add(1)
	if r.fails != nil {
		return r.verbatim.Stand(r.fails), nil
	}
	// In pieces, as a handler that writes its result piece by piece
	// hands it over: cut anywhere, even inside an escape.
	third := len(encoded) / 3
	return r.verbatim.Stand(&net.Buffers{encoded[:third], nil, encoded[third : 2*third], encoded[2*third:]}), nil
}

// verbatimSpec serves tools whose results are "size" bytes of
// verbatimText: "verbatim" hands its encoding to the transport, "encoded"
// leaves it to the SDK. "chatter" sends progress notifications, "count"
// of them, while other answers are written. stood counts the results
// handed to the transport.
func verbatimSpec(stood *atomic.Int64) Spec {
	spec := testSpec()
	spec.Build = func(_ context.Context, _ *cli.Command, env Env) (*mcp.Server, error) {
		server := mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: env.Version}, nil)
		type sized struct {
			Size int `json:"size"`
		}
		text := func(_ context.Context, _ *mcp.CallToolRequest, args sized) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: verbatimText(args.Size)}}}, nil, nil
		}
		mcp.AddTool(server, &mcp.Tool{Name: "verbatim"}, text)
		mcp.AddTool(server, &mcp.Tool{Name: "encoded"}, text)
		mcp.AddTool(server, &mcp.Tool{Name: "chatter"}, func(ctx context.Context, req *mcp.CallToolRequest, args struct {
			Count int `json:"count"`
		}) (*mcp.CallToolResult, any, error) {
			for i := range args.Count {
				if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Message: verbatimText(200)}); err != nil {
					return nil, nil, err
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		})
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				call, ok := req.(*mcp.CallToolRequest)
				result, isTool := res.(*mcp.CallToolResult)
				if err != nil || !ok || !isTool || call.Params.Name != "verbatim" {
					return res, err
				}
				return &standResult{CallToolResult: result, verbatim: VerbatimFrom(ctx), stood: stood}, nil
			}
		})
		return server, nil
	}
	return spec
}

// lineSession runs spec over in-process pipes and reads its lines whole.
type lineSession struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func startLines(t *testing.T, spec Spec) *lineSession {
	t.Helper()
	clientToServer, serverIn := io.Pipe()
	serverOut, serverToClient := io.Pipe()
	s := &lineSession{in: serverIn, out: bufio.NewReaderSize(serverOut, 1<<20)}
	go func() {
		Run(context.Background(), spec, []string{"testmcp", "--log-level", "error"},
			Streams{Stdin: clientToServer, Stdout: serverToClient, Stderr: io.Discard})
		serverToClient.Close()
	}()
	t.Cleanup(func() { serverIn.Close() })
	s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	s.line(t)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *lineSession) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatalf("the server stopped reading: %v", err)
	}
}

// line reads the server's next line, which must be one JSON value.
func (s *lineSession) line(t *testing.T) []byte {
	t.Helper()
	read := make(chan []byte, 1)
	failed := make(chan error, 1)
	go func() {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			failed <- err
			return
		}
		read <- line
	}()
	select {
	case line := <-read:
		if !json.Valid(line) {
			t.Fatalf("the server wrote a line that is not JSON: %.300q", line)
		}
		return line
	case err := <-failed:
		t.Fatalf("no line: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("no line within 20 s")
	}
	return nil
}

// answer reads lines up to the answer to id and returns it; the
// notifications before it are counted in notes.
func (s *lineSession) answer(t *testing.T, id int, notes *int) []byte {
	t.Helper()
	prefix := []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,`, id))
	for {
		line := s.line(t)
		switch {
		case bytes.HasPrefix(line, prefix):
			return line
		case bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","method":"notifications/progress"`)):
			*notes++
		}
	}
}

// TestVerbatimAsEncodeMessage: a result whose encoding a handler hands to
// the stdio transport (Verbatim) is written byte for byte as the SDK
// writes the same result encoded by itself, small and large, its id
// whatever the client chose; and while it is written, notifications of
// another call, written at the same time, never interleave with it.
func TestVerbatimAsEncodeMessage(t *testing.T) {
	var stood atomic.Int64
	s := startLines(t, verbatimSpec(&stood))
	id := 10
	sizes := []int{0, 100, directResultBytes - 200, directResultBytes + 200, 3 << 20}
	for _, size := range sizes {
		call := func(tool string) []byte {
			id++
			s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"size":%d}}}`, id, tool, size))
			var notes int
			line := s.answer(t, id, &notes)
			// The same id for both, so that the lines compare whole.
			return bytes.Replace(line, []byte(fmt.Sprintf(`"id":%d,`, id)), []byte(`"id":0,`), 1)
		}
		verbatim, encoded := call("verbatim"), call("encoded")
		if !bytes.Equal(verbatim, encoded) {
			t.Errorf("size %d: the verbatim answer differs from the SDK's: %d bytes against %d; first at %d", size, len(verbatim), len(encoded), firstDiff(verbatim, encoded))
		}
		var got struct {
			Result mcp.CallToolResult `json:"result"`
		}
		if err := json.Unmarshal(verbatim, &got); err != nil || len(got.Result.Content) != 1 || got.Result.Content[0].(*mcp.TextContent).Text != verbatimText(size) {
			t.Errorf("size %d: the verbatim answer does not decode to its text: %v", size, err)
		}
	}

	// A large verbatim answer and a call sending notifications, at once:
	// every line is one whole message.
	const notes = 300
	s.send(t, `{"jsonrpc":"2.0","id":100,"method":"tools/call","params":{"name":"chatter","arguments":{"count":`+fmt.Sprint(notes)+`},"_meta":{"progressToken":"p"}}}`)
	s.send(t, `{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"verbatim","arguments":{"size":`+fmt.Sprint(8<<20)+`}}}`)
	got, seen := map[string]bool{}, 0
	for len(got) < 2 {
		line := s.line(t)
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(line, &msg); err != nil {
			t.Fatal(err)
		}
		switch {
		case msg.Method == "notifications/progress":
			seen++
		case msg.Result != nil:
			got[string(msg.ID)] = true
		default:
			t.Fatalf("unexpected line %.200s", line)
		}
	}
	if !got["100"] || !got["101"] || seen != notes {
		t.Errorf("answers %v and %d notifications, want 100 and 101 and %d", got, seen, notes)
	}
	if n := stood.Load(); n != int64(len(sizes)+1) {
		t.Errorf("%d results were handed to the transport, want %d: the stdio session gave its handlers no Verbatim", n, len(sizes)+1)
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestVerbatimTake: a stand-in is written once, in its response only;
// any other result, one that looks like a stand-in included, is written as
// it is, and a connection without a Verbatim writes results as they are.
func TestVerbatimTake(t *testing.T) {
	v := newVerbatim()
	encoded := []byte(`{"content":[{"type":"text","text":"<&>"}]}`)
	stand := v.Stand(bytes.NewReader(encoded))
	if !json.Valid(stand) {
		t.Fatalf("the stand-in %s is not JSON", stand)
	}
	jid, _ := jsonrpc.MakeID(float64(4))
	write := func(c *lineConn, result json.RawMessage) string {
		var out strings.Builder
		c.out = &out
		if err := c.Write(context.Background(), &jsonrpc.Response{ID: jid, Result: result}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if got, want := write(&lineConn{verbatim: v}, stand), `{"jsonrpc":"2.0","id":4,"result":`+string(encoded)+"}\n"; got != want {
		t.Errorf("the stand-in was written as %q, want %q", got, want)
	}
	// Taken: the same stand-in again, another session's, a forged one.
	other := newVerbatim().Stand(bytes.NewReader(encoded))
	forged := json.RawMessage(strings.TrimSuffix(string(stand), `1"`) + `2"`)
	for _, result := range []json.RawMessage{stand, other, forged, json.RawMessage(`"mcpforge verbatim result"`)} {
		if got, want := write(&lineConn{verbatim: v}, result), `{"jsonrpc":"2.0","id":4,"result":`+string(result)+"}\n"; got != want {
			t.Errorf("the result %s was written as %q, want it as it is", result, got)
		}
	}
	if len(v.kept) != 0 {
		t.Errorf("%d encodings still kept after their answer", len(v.kept))
	}
	if got, want := write(&lineConn{}, json.RawMessage(`{}`)), `{"jsonrpc":"2.0","id":4,"result":{}}`+"\n"; got != want {
		t.Errorf("without a Verbatim: %q, want %q", got, want)
	}
}

// failingEncoding writes the first at bytes of encoded, then fails, or
// panics, as a handler's encoding with a bug would.
type failingEncoding struct {
	encoded []byte
	at      int
	panics  bool
}

func (f *failingEncoding) WriteTo(w io.Writer) (int64, error) {
	n, err := w.Write(f.encoded[:f.at])
	if err != nil {
		return int64(n), err
	}
	if f.panics {
		panic("the encoding broke")
	}
	return int64(n), fmt.Errorf("the encoding broke after %d bytes", f.at)
}

// rawLine reads the server's next line, whatever it holds.
func (s *lineSession) rawLine(t *testing.T) []byte {
	t.Helper()
	read := make(chan []byte, 1)
	go func() {
		line, _ := s.out.ReadBytes('\n')
		read <- line
	}()
	select {
	case line := <-read:
		return line
	case <-time.After(20 * time.Second):
		t.Fatal("no line within 20 s")
	}
	return nil
}

// TestVerbatimEncodingFails: an encoding that fails or panics half way,
// its line begun, ends that line there (the one line the peer cannot
// read), answers its call with an error on the next line, and leaves the
// session serving: the SDK does not take the output for broken, and the
// server does not crash. One that fails before its first byte leaves no
// line but its error answer.
func TestVerbatimEncodingFails(t *testing.T) {
	spec := testSpec()
	spec.Build = func(_ context.Context, _ *cli.Command, env Env) (*mcp.Server, error) {
		server := mcp.NewServer(&mcp.Implementation{Name: "testmcp", Version: env.Version}, nil)
		type how struct {
			Panics bool `json:"panics"`
			Empty  bool `json:"empty"`
		}
		mcp.AddTool(server, &mcp.Tool{Name: "broken"}, func(ctx context.Context, _ *mcp.CallToolRequest, args how) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(args.Panics, args.Empty)}}}, nil, nil
		})
		mcp.AddTool(server, &mcp.Tool{Name: "ping"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
		})
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				call, ok := req.(*mcp.CallToolRequest)
				if err != nil || !ok || call.Params.Name != "broken" {
					return res, err
				}
				result := res.(*mcp.CallToolResult)
				encoded, err := result.MarshalJSON()
				if err != nil {
					return nil, err
				}
				var panics, empty bool
				fmt.Sscan(result.Content[0].(*mcp.TextContent).Text, &panics, &empty)
				at := len(encoded) / 2
				if empty {
					at = 0
				}
				return &standResult{CallToolResult: result, verbatim: VerbatimFrom(ctx), stood: new(atomic.Int64),
					fails: &failingEncoding{encoded: encoded, at: at, panics: panics}}, nil
			}
		})
		return server, nil
	}
	s := startLines(t, spec)
	for i, c := range []struct{ panics, empty bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		id := 20 + 2*i
		s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"broken","arguments":{"panics":%v,"empty":%v}}}`, id, c.panics, c.empty))
		if !c.empty {
			broken := s.rawLine(t)
			if !bytes.HasPrefix(broken, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":`, id))) || json.Valid(broken) {
				t.Fatalf("%+v: the broken answer's line is %q, want its start cut", c, broken)
			}
		}
		var answer struct {
			ID    int            `json:"id"`
			Error *jsonrpc.Error `json:"error"`
		}
		if line := s.line(t); json.Unmarshal(line, &answer) != nil || answer.ID != id || answer.Error == nil || answer.Error.Code != jsonrpc.CodeInternalError ||
			!strings.Contains(answer.Error.Message, "could not be written") {
			t.Errorf("%+v: after the broken line, %s; want an internal error answering id %d", c, line, id)
		}
		s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"ping","arguments":{}}}`, id+1))
		if line := s.line(t); !bytes.Contains(line, []byte(`"pong"`)) {
			t.Errorf("%+v: the next call was answered %s, want pong", c, line)
		}
	}
}

// TestVerbatimIDs: a verbatim answer's id is written as the SDK writes it,
// whatever the client sent: integers up to 2^53 either way, strings with
// escapes, HTML characters, U+2028 and U+2029 (which the SDK escapes, so
// that no reader splitting on Unicode's line separators cuts the line),
// and text beyond ASCII; small and large results alike.
func TestVerbatimIDs(t *testing.T) {
	ids := []string{`0`, `-9007199254740992`, `9007199254740992`, `""`, `"a\"b\\c\n\u0000\u001f\u007f"`,
		`"<&>"`, "\"\u2028\u2029\"", `"\u2028\ud83d\ude00é"`, `"\ud800"`, `"\/"`}
	large := []byte(`{"contents":[{"uri":"x","text":"` + strings.Repeat("a", directResultBytes+10) + `"}]}`)
	for _, raw := range ids {
		var decoded jsonrpc.Message
		decoded, err := jsonrpc.DecodeMessage([]byte(`{"jsonrpc":"2.0","id":` + raw + `,"method":"ping"}`))
		if err != nil {
			t.Fatalf("id %s: %v", raw, err)
		}
		id := decoded.(*jsonrpc.Request).ID
		for _, encoded := range [][]byte{[]byte(`{}`), large} {
			v := newVerbatim()
			var out strings.Builder
			c := &lineConn{out: &out, verbatim: v}
			if err := c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: v.Stand(bytes.NewReader(encoded))}); err != nil {
				t.Fatal(err)
			}
			want, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Result: encoded})
			if err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != string(want)+"\n" {
				t.Errorf("id %s: written %.120q, want %.120q", raw, got, want)
			}
			// And a result the SDK encoded, written around its bytes.
			out.Reset()
			if err := c.Write(context.Background(), &jsonrpc.Response{ID: id, Result: encoded}); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != string(want)+"\n" {
				t.Errorf("id %s, result as encoded: written %.120q, want %.120q", raw, got, want)
			}
		}
	}
}

// TestVerbatimCancelled: a client that cancels a call while its large
// verbatim answer is on its way, or two large answers written at once,
// see whole lines only (the answer is written whole once begun: the SDK
// writes it with a context that is never done), and the session serves
// the next call.
func TestVerbatimCancelled(t *testing.T) {
	var stood atomic.Int64
	s := startLines(t, verbatimSpec(&stood))
	const size = 1 << 20
	s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":"a\u2028","method":"tools/call","params":{"name":"verbatim","arguments":{"size":%d}}}`, size))
	s.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"verbatim","arguments":{"size":%d}}}`, size))
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a\u2028","reason":"no longer needed"}}`)
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":31}}`)
	s.send(t, `{"jsonrpc":"2.0","id":32,"method":"ping"}`)
	answered := map[string]int{}
	// The SDK answers a cancelled call all the same: all three come.
	for len(answered) < 3 {
		var msg struct {
			ID     json.RawMessage    `json:"id"`
			Result mcp.CallToolResult `json:"result"`
		}
		if err := json.Unmarshal(s.line(t), &msg); err != nil {
			t.Fatal(err)
		}
		if len(msg.Result.Content) == 1 && msg.Result.Content[0].(*mcp.TextContent).Text != verbatimText(size) {
			t.Errorf("answer %s: its text is not whole", msg.ID)
		}
		answered[string(msg.ID)]++
	}
	for _, id := range []string{`"a\u2028"`, `31`, `32`} {
		if n := answered[id]; n != 1 {
			t.Errorf("id %s answered %d times", id, n)
		}
	}
}

// TestVerbatimOnlyOverStdio: handlers served over Streamable HTTP are given
// no Verbatim (the SDK encodes their results, and a stand-in would be
// written as it is); a stdio session's handlers are given one
// (TestVerbatimAsEncodeMessage counts the results they hand over).
func TestVerbatimOnlyOverStdio(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "where"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(VerbatimFrom(ctx) != nil)}}}, nil, nil
	})
	access, err := httpAccessFrom("127.0.0.1:0", nil, "", false, "TEST")
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	srv := httptest.NewServer(httpHandler(server, logger, access, newHTTPCalls(logger, nil)))
	t.Cleanup(srv.Close)
	session, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "where"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "false" {
		t.Errorf("over HTTP, VerbatimFrom gave a Verbatim (%s)", got)
	}
}
