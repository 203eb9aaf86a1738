package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio transport reads one JSON-RPC message per line, as the MCP stdio
// transport specifies. The go-sdk's IOTransport ends the session on the first
// line it cannot decode (a non-JSON line, an object id, an id of 1e400, a
// batch after 2025-06-18...), which kills a stdio server. This one answers
// each bad line with the JSON-RPC error the spec names, drops what cannot be
// answered, and keeps reading: only well-formed messages reach the SDK.

// Limits of one inbound line.
const (
	maxLineBytes = mcp.DefaultMaxLineLength
	// maxNesting bounds how deep a message's JSON may nest: real MCP
	// messages are a few levels deep, and every decoder after this one
	// walks the tree again.
	maxNesting = 512
	// maxExactInteger is the largest integer id that survives the SDK's
	// decoding through float64 unchanged (2^53).
	maxExactInteger = 1 << 53
)

// The end of a stdio session. The SDK stops writing answers as soon as Read
// returns an error: at the end of input it would drop the answer of every
// request already read (a client that pipes its requests in and closes its
// end got nothing), and on a signal it would wait for calls it can no longer
// answer. So Read reports the end of input only once every call it passed on
// has been answered: by its handler within the shutdown's grace, or else by
// the shutdown's middleware with a "server shutting down" error. A signal
// (stop ending) stops the reading of input and ends the session the same way.

// stdioTransport serves MCP over newline-delimited JSON on in and out.
type stdioTransport struct {
	in     io.Reader
	out    io.Writer
	logger *slog.Logger
	// shutdown, whose middleware the server runs, is begun when the input
	// ends or stop is done.
	shutdown *shutdown
	stop     context.Context
	// verbatim holds the results handlers encode themselves (see
	// Verbatim), for the session served with sessionContext.
	verbatim *Verbatim
}

// sessionContext is ctx with what the session's handlers may use of the
// transport: its Verbatim. The session is run with it, so that every
// handler's context carries it.
func (t *stdioTransport) sessionContext(ctx context.Context) context.Context {
	if t.verbatim == nil {
		t.verbatim = newVerbatim()
	}
	return withVerbatim(ctx, t.verbatim)
}

func (t *stdioTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{out: t.out, logger: t.logger, lines: make(chan lineOrErr), closed: make(chan struct{}),
		shutdown: t.shutdown, stop: t.stop, unanswered: map[jsonrpc.ID]bool{}, verbatim: t.verbatim}
	go c.readLines(t.in)
	return c, nil
}

type lineOrErr struct {
	line    []byte
	tooLong bool
	err     error
}

// lineConn is one stdio session's connection.
type lineConn struct {
	out    io.Writer
	logger *slog.Logger

	lines     chan lineOrErr
	closed    chan struct{}
	closeOnce sync.Once

	writeMu sync.Mutex
	// verbatim, when not nil, has the encodings of results that stand-ins
	// stand for.
	verbatim *Verbatim

	shutdown *shutdown
	stop     context.Context

	mu sync.Mutex
	// unanswered holds the ids of the calls passed on and not answered yet.
	unanswered map[jsonrpc.ID]bool
	// allAnswered, when not nil, is closed as unanswered empties.
	allAnswered chan struct{}
}

// readLines sends each line of in to c.lines, cut to maxLineBytes (the rest
// of a longer line is read and thrown away, so memory stays bounded), until
// in ends or c is closed.
func (c *lineConn) readLines(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		var line []byte
		tooLong := false
		var err error
		for {
			var chunk []byte
			chunk, err = r.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(chunk) > maxLineBytes {
					tooLong, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if len(line) > 0 || tooLong {
			select {
			case c.lines <- lineOrErr{line: line, tooLong: tooLong}:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			select {
			case c.lines <- lineOrErr{err: err}:
			case <-c.closed:
			}
			return
		}
	}
}

// Read returns the next well-formed message, answering or dropping every
// malformed line before it.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var next lineOrErr
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case <-c.stop.Done():
			return nil, c.end(stopReason(c.stop), io.EOF)
		case next = <-c.lines:
		}
		if next.err != nil {
			reason := "its input ended"
			if !errors.Is(next.err, io.EOF) {
				reason = "its input failed"
			}
			return nil, c.end(reason, next.err)
		}
		if next.tooLong {
			c.refuse(ctx, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message is over %d bytes", maxLineBytes))
			continue
		}
		msg, bad := decodeLine(next.line)
		if bad != nil {
			if bad.answer {
				c.refuse(ctx, bad.id, bad.code, bad.message)
			} else {
				c.logger.Warn("dropped a malformed message that cannot be answered", "reason", bad.message)
			}
			continue
		}
		if msg == nil {
			continue // a blank line
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			// An id reused while its call runs stays one entry: the SDK
			// refuses the second call, answering it with id null.
			c.unanswered[req.ID] = true
			c.mu.Unlock()
		}
		return msg, nil
	}
}

// end begins the shutdown and returns err, the session's end, once every
// call passed on has been answered, or once the shutdown is over should
// some answer never be written (a client that no longer reads).
func (c *lineConn) end(reason string, err error) error {
	c.shutdown.begin(reason)
	c.mu.Lock()
	waiting := len(c.unanswered)
	if waiting > 0 && c.allAnswered == nil {
		c.allAnswered = make(chan struct{})
	}
	all := c.allAnswered
	c.mu.Unlock()
	if waiting == 0 {
		return err
	}
	c.logger.Info("stopping: answering the calls in flight first", "reason", reason, "calls", waiting, "grace", c.shutdown.grace)
	select {
	case <-all:
	case <-c.shutdown.over():
		c.logger.Warn("stopping with calls unanswered: their answers could not be written", "reason", reason)
	}
	return err
}

// answered records that the call id has its answer written.
func (c *lineConn) answered(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.unanswered[id] {
		return
	}
	delete(c.unanswered, id)
	if len(c.unanswered) == 0 && c.allAnswered != nil {
		close(c.allAnswered)
		c.allAnswered = nil
	}
}

// refuse writes a JSON-RPC error response. id nil means "null": the spec's
// id when the request's own could not be read.
func (c *lineConn) refuse(ctx context.Context, id json.RawMessage, code int64, message string) {
	c.logger.Warn("refused a malformed message", "code", code, "reason", message)
	if id == nil {
		id = json.RawMessage("null")
	}
	line, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err == nil {
		_ = c.writeLine(ctx, line)
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return c.writeMessage(ctx, msg)
	}
	// Answered once written (or failing to be), so that the session never
	// ends with an answer on its way out.
	defer c.answered(resp.ID)
	if resp.Error == nil && len(resp.Result) > 0 && resp.ID.IsValid() {
		if encoded, ok := c.verbatim.take(resp.Result); ok {
			return c.writeVerbatim(ctx, resp.ID, encoded)
		}
		return c.writeResult(ctx, resp)
	}
	return c.writeMessage(ctx, msg)
}

func (c *lineConn) writeMessage(ctx context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.writeLine(ctx, data)
}

// directResultBytes is the size from which a result is written as it is,
// between the message's head and tail, instead of copied into one line.
const directResultBytes = 64 << 10

// writeResult writes a successful response, byte for byte what
// jsonrpc.EncodeMessage gives, around the result the SDK has encoded
// already. EncodeMessage would encode that result again into a new buffer,
// growing it by copies: for a 12 MiB resource, three more copies of it.
func (c *lineConn) writeResult(ctx context.Context, resp *jsonrpc.Response) error {
	head, err := resultHead(resp.ID)
	if err != nil {
		return err
	}
	if len(resp.Result) < directResultBytes {
		// Small: one copy and one Write are cheaper than three Writes.
		return c.writeLine(ctx, append(append(head, resp.Result...), '}'))
	}
	return c.writeParts(ctx, head, resp.Result, []byte("}\n"))
}

// writeVerbatim writes a successful response to id whose result a handler
// encoded itself (see Verbatim), as writeResult writes it.
//
// An encoding that fails or panics of itself (a bug: the output did not
// fail) is answered with an error. Its line is begun only with the
// encoding's first byte: one that fails before writing anything (or
// writes nothing at all) leaves no trace but its error answer. One that
// fails half way has begun its line, and what it wrote cannot be taken
// back: the line is ended there, the one line the peer cannot read, and
// the error answer follows on the next. Returning the failure instead
// would tell the SDK that the output is broken, and the session would end
// with every call in flight unanswered.
func (c *lineConn) writeVerbatim(ctx context.Context, id jsonrpc.ID, result io.WriterTo) error {
	head, err := resultHead(id)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	out := &watchedWriter{w: c.out, head: head}
	err = writeEncoding(result, out)
	switch {
	case err == nil && out.head == nil:
		_, err = out.Write([]byte("}\n"))
		return err
	case out.err != nil:
		return out.err
	case err == nil:
		err = errors.New("the encoding wrote nothing")
	}
	c.logger.Error("a result's encoding failed: its call is answered with an error", "id", id.Raw(), "cut", out.head == nil, "err", err)
	answer, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: "internal error: this answer's result could not be written; the server's log says why; try the request again"}})
	if err != nil {
		return err
	}
	if out.head == nil {
		// The cut line ends before the answer.
		answer = append([]byte("\n"), answer...)
	}
	_, err = c.out.Write(append(answer, '\n'))
	return err
}

// writeEncoding calls encoded's WriteTo, a panic in it returned as an
// error: it runs on the SDK's goroutine, where a panic would end the
// server.
func writeEncoding(encoded io.WriterTo, w io.Writer) (err error) {
	defer func() {
		if p := recover(); p != nil {
			// Only a runtime error's text is logged: another value may
			// hold what the result holds, secrets the log must not.
			what := fmt.Sprintf("a value of type %T", p)
			if rerr, ok := p.(runtime.Error); ok {
				what = rerr.Error()
			}
			err = fmt.Errorf("the encoding panicked with %s at %s", what, debug.Stack())
		}
	}()
	_, err = encoded.WriteTo(w)
	return err
}

// watchedWriter writes head before the first bytes written to it, and
// keeps the first error of w, so that an encoding's failure is told from
// its output's.
type watchedWriter struct {
	w    io.Writer
	head []byte // nil once written
	err  error
}

func (o *watchedWriter) Write(b []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	if len(b) == 0 {
		return 0, nil
	}
	if o.head != nil {
		if _, err := o.w.Write(o.head); err != nil {
			o.err = err
			return 0, err
		}
		o.head = nil
	}
	n, err := o.w.Write(b)
	if err != nil {
		o.err = err
	}
	return n, err
}

// resultHead is a successful response to id up to its result, the id
// encoded as the SDK encodes it: HTML characters as they are, U+2028 and
// U+2029 escaped (jsonx.Marshal would write them raw, and a reader that
// splits lines on them would cut the answer).
func resultHead(id jsonrpc.ID) ([]byte, error) {
	var head bytes.Buffer
	head.WriteString(`{"jsonrpc":"2.0","id":`)
	enc := json.NewEncoder(&head)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(id.Raw()); err != nil {
		return nil, err
	}
	head.Truncate(head.Len() - 1) // Encode's newline
	head.WriteString(`,"result":`)
	return head.Bytes(), nil
}

// writeLine writes one message and its newline in a single Write, so that
// lines written concurrently never interleave.
func (c *lineConn) writeLine(ctx context.Context, data []byte) error {
	return c.writeParts(ctx, append(data, '\n'))
}

// writeParts writes the parts of one line, which no other line
// interleaves.
func (c *lineConn) writeParts(ctx context.Context, parts ...[]byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	for _, part := range parts {
		if _, err := c.out.Write(part); err != nil {
			return err
		}
	}
	return nil
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }

// badLine says why a line was not passed on, and whether and how to answer.
type badLine struct {
	answer  bool
	id      json.RawMessage // the request's id when it could be read
	code    int64
	message string
}

func parseError(message string) *badLine {
	return &badLine{answer: true, code: jsonrpc.CodeParseError, message: message}
}

func invalidRequest(id json.RawMessage, message string) *badLine {
	return &badLine{answer: true, id: id, code: jsonrpc.CodeInvalidRequest, message: message}
}

// decodeLine checks one line against JSON-RPC 2.0 and MCP's rules and
// decodes it. A blank line gives neither a message nor an error.
func decodeLine(line []byte) (jsonrpc.Message, *badLine) {
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		return nil, nil
	case !utf8.Valid(line):
		return nil, parseError("parse error: the message is not valid UTF-8")
	case nestingOver(line, maxNesting):
		return nil, parseError(fmt.Sprintf("parse error: the message nests deeper than %d levels", maxNesting))
	case !json.Valid(line):
		return nil, parseError("parse error: the message is not valid JSON")
	case line[0] == '[':
		return nil, invalidRequest(nil, "invalid request: batches are not supported (MCP 2025-06-18 removed them); send one message per line")
	case line[0] != '{':
		return nil, invalidRequest(nil, "invalid request: a message must be a JSON object")
	}
	var fields struct {
		JSONRPC json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Params  json.RawMessage `json:"params"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &fields); err != nil {
		return nil, invalidRequest(nil, "invalid request: "+err.Error())
	}
	// A response (to a request of the server's) cannot be answered; a bad
	// one is dropped. Anything else is a request or a notification.
	isResponse := fields.Method == nil && (fields.Result != nil || fields.Error != nil)
	id, idOK := checkID(fields.ID)
	if refusal, idRepeated, found := repeatedKey(line); found {
		if isResponse {
			return nil, &badLine{message: "a response that gives a key twice"}
		}
		if idRepeated || !idOK {
			id = nil
		}
		return nil, invalidRequest(id, refusal)
	}
	// Only a long method, id or params can be over a bound (see
	// oversized): the common message is not decoded again.
	if !isResponse && len(fields.Method) > maxMethodBytes+2 || len(fields.ID) > maxIDBytes || len(fields.Params) > maxIDBytes {
		var method string
		_ = json.Unmarshal(fields.Method, &method)
		if code, message, answerID, over := oversized(fields.ID, method, fields.Params); over && !isResponse {
			if !answerID || !idOK {
				id = nil
			}
			return nil, &badLine{answer: true, id: id, code: code, message: message}
		}
	}
	switch {
	case isResponse && (!idOK || id == nil || string(fields.JSONRPC) != `"2.0"` || (fields.Result != nil && fields.Error != nil)):
		return nil, &badLine{message: "a malformed response (it needs \"jsonrpc\": \"2.0\", a string or integer id, and result or error)"}
	case !idOK:
		return nil, invalidRequest(nil, "invalid request: id must be a string or an integer")
	case string(fields.JSONRPC) != `"2.0"`:
		return nil, invalidRequest(id, `invalid request: "jsonrpc" must be "2.0"`)
	case !isResponse && fields.Method == nil:
		return nil, invalidRequest(id, "invalid request: method is missing")
	case !isResponse && fields.Method[0] != '"':
		return nil, invalidRequest(id, "invalid request: method must be a string")
	case !isResponse && fields.Params != nil && fields.Params[0] != '{' && fields.Params[0] != '[' && string(fields.Params) != "null":
		return nil, invalidRequest(id, "invalid request: params must be an object")
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		if isResponse {
			return nil, &badLine{message: err.Error()}
		}
		return nil, invalidRequest(id, "invalid request: "+err.Error())
	}
	return msg, nil
}

// checkID accepts an absent id (a notification), a string, or an integer the
// SDK can hold exactly; MCP forbids null and JSON-RPC discourages fractions.
// It returns the id as it was sent, for the error answer.
func checkID(raw json.RawMessage) (json.RawMessage, bool) {
	if raw == nil {
		return nil, true
	}
	switch raw[0] {
	case '"':
		return raw, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > maxExactInteger || n < -maxExactInteger {
			return nil, false
		}
		return raw, true
	}
	return nil, false
}

// nestingOver reports whether the JSON text b nests arrays and objects more
// than limit deep, reading it once, brackets inside strings excepted.
func nestingOver(b []byte, limit int) bool {
	depth := 0
	inString := false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			if depth > limit {
				return true
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return false
}
