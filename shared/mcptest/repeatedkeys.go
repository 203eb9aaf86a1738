package mcptest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
)

// RepeatedKeyCase is a JSON-RPC message that gives one key twice, the key,
// and the id its refusal must answer (nil: null, when the id itself is the
// key given twice or the message has none).
type RepeatedKeyCase struct {
	Name, Message, Key string
	ID                 any
}

// RepeatedKeyCases builds, around a tools/call of tool with arguments (a
// JSON object of one member or more: a call that reaches the server's
// upstream when it runs), one message for each way of giving a key twice:
// each key of the envelope and of params, a member of the arguments, of
// _meta, and a notification's method. Run, any of them would call the tool
// with the last of the two; refused, nothing runs. Ids count up from
// firstID.
func RepeatedKeyCases(tool, arguments string, firstID int) []RepeatedKeyCase {
	dec := json.NewDecoder(strings.NewReader(arguments))
	_, _ = dec.Token()
	first, _ := dec.Token()
	inner := strings.TrimSpace(arguments)
	inner = inner[1 : len(inner)-1]
	call := fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, arguments)
	cases := []struct{ name, key, format string }{
		{"method", "method", `{"jsonrpc":"2.0","id":%[1]d,"method":"ping","method":"tools/call","params":%[2]s}`},
		{"params", "params", `{"jsonrpc":"2.0","id":%[1]d,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}},"params":%[2]s}`},
		{"tool name", "name", `{"jsonrpc":"2.0","id":%[1]d,"method":"tools/call","params":{"name":"no_such_tool","name":%[3]q,"arguments":%[4]s}}`},
		{"arguments", "arguments", `{"jsonrpc":"2.0","id":%[1]d,"method":"tools/call","params":{"name":%[3]q,"arguments":{},"arguments":%[4]s}}`},
		{"an argument", fmt.Sprint(first), `{"jsonrpc":"2.0","id":%[1]d,"method":"tools/call","params":{"name":%[3]q,"arguments":{` + inner + `,` + inner + `}}}`},
		{"jsonrpc", "jsonrpc", `{"jsonrpc":"1.0","jsonrpc":"2.0","id":%[1]d,"method":"tools/call","params":%[2]s}`},
		{"_meta member", "progressToken", `{"jsonrpc":"2.0","id":%[1]d,"method":"tools/call","params":{"name":%[3]q,"arguments":%[4]s,"_meta":{"progressToken":1,"progressToken":2}}}`},
		{"id", "id", `{"jsonrpc":"2.0","id":%[1]d,"method":"tools/call","params":%[2]s,"id":%[1]d}`},
		{"notification", "method", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%[1]d},"method":"notifications/initialized"}`},
	}
	var out []RepeatedKeyCase
	for i, c := range cases {
		id := firstID + i
		var want any = float64(id)
		if c.key == "id" || c.name == "notification" {
			want = nil
		}
		out = append(out, RepeatedKeyCase{Name: c.name, Key: c.key, ID: want,
			Message: fmt.Sprintf(c.format, id, call, tool, arguments)})
	}
	return out
}

// CheckRepeatedKeyAnswer checks that answer refuses c: a JSON-RPC invalid
// request error to c's id that names the key given twice.
func CheckRepeatedKeyAnswer(t *testing.T, c RepeatedKeyCase, answer map[string]any) {
	t.Helper()
	e, _ := answer["error"].(map[string]any)
	message, _ := e["message"].(string)
	if e == nil || e["code"] != -32600.0 || answer["id"] != c.ID || !strings.Contains(message, fmt.Sprintf("%q is given twice", c.Key)) {
		t.Errorf("%s given twice: answered %v; want error -32600 with id %v naming %q", c.Name, answer, c.ID, c.Key)
	}
}

// CheckRepeatedKeysStdio sends each of RepeatedKeyCases(tool, arguments)
// to an initialized stdio server and checks each refusal, and that the
// server still answers a ping after it.
func CheckRepeatedKeysStdio(t *testing.T, s *RawStdio, tool, arguments string) {
	t.Helper()
	for i, c := range RepeatedKeyCases(tool, arguments, 1000) {
		s.Send(t, c.Message)
		CheckRepeatedKeyAnswer(t, c, s.nextAnswer(t))
		s.Send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 2000+i))
		if answer := s.nextAnswer(t); answer["id"] != float64(2000+i) || answer["error"] != nil {
			t.Fatalf("after %s given twice, the ping got %v", c.Name, answer)
		}
	}
}

// CheckRepeatedKeysHTTP posts each of RepeatedKeyCases(tool, arguments) to
// a Streamable HTTP endpoint and checks each refusal: status 200 when it
// answers the call's id, 400 when its id is null.
func CheckRepeatedKeysHTTP(t *testing.T, endpoint string, headers map[string]string, tool, arguments string) {
	t.Helper()
	for _, c := range RepeatedKeyCases(tool, arguments, 1000) {
		req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(c.Message))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		wantStatus := http.StatusOK
		if c.ID == nil {
			wantStatus = http.StatusBadRequest
		}
		var answer map[string]any
		if resp.StatusCode != wantStatus || json.NewDecoder(bytes.NewReader(body)).Decode(&answer) != nil {
			t.Errorf("%s given twice: status %d, body %.300s; want %d and a JSON-RPC error", c.Name, resp.StatusCode, body, wantStatus)
			continue
		}
		CheckRepeatedKeyAnswer(t, c, answer)
	}
}

// nextAnswer returns the next message that is no request or notification
// of the server's.
func (s *RawStdio) nextAnswer(t *testing.T) map[string]any {
	t.Helper()
	for {
		if msg := s.Next(t); msg["method"] == nil {
			return msg
		}
	}
}
