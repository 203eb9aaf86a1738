package tools

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
)

// FuzzDecodeMeta: a request object of any shape decodes without a panic,
// and what it yields fits the result's schema: header values are strings,
// the maps are objects.
func FuzzDecodeMeta(f *testing.F) {
	for _, seed := range []string{
		`{"uuid":"a","headers":{"x":["1","2"],"y":"3","z":4},"query":{"a":"b"},"request":[],"files":{"f":{"size":1}},"sorting":1700000000000000}`,
		`{"uuid":"a","headers":[],"query":null,"request":null,"files":[],"sorting":"x"}`,
		`{"uuid":5}`, `[]`, `null`, `{"uuid":"a","created_at":7,"headers":{"":[null]}}`,
		`{"uuid":"a","type":"email","sender":{"address":"a@b","name":"A"},"destinations":["x@y",{"email":"z@w"},3],"subject":null,"text_content":"t","headers":{"subject":["s"]}}`,
		`{"uuid":"a","files":{"f":[{"id":7,"filename":"x","size":"3"},"junk"],"g":{"id":"b"}},"request":{"a":"1"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, item []byte) {
		meta, err := decodeMeta(item)
		if err != nil {
			return
		}
		if meta.UUID == "" {
			t.Fatal("decodeMeta accepted a request without a uuid")
		}
		meta.order()
		out := RequestResult{Headers: meta.headers(), Query: object(meta.Query), Form: object(meta.Form), Files: object(meta.Files), Email: meta.email()}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("the result does not encode: %v", err)
		}
		if note := multipartNote(out.Form, meta.files()); !strings.HasPrefix(note, "The service does not keep multipart bodies") {
			t.Fatalf("multipart note %q", note)
		}
	})
}

// TestRequestResultHeaderNullSkipped: a header whose value is null, or an
// array holding no strings, is left out of the result, whose schema says
// each header is an array of strings; the strings of a mixed array stay.
func TestRequestResultHeaderNullSkipped(t *testing.T) {
	h := connect(t, config.Config{})
	item := `{"uuid":"9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d","method":"POST","sorting":1,"headers":{"x-a":null,"x-b":[1,{}],"x-c":["v",null,2],"x-d":"one"},"content":""}`
	api := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, 200, "application/json", item)), APIKey: envKey})
	res, err := api.session.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_request", Arguments: map[string]any{"token_id": someToken, "request_id": someToken}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var got struct {
		Headers map[string]any `json:"headers"`
	}
	json.Unmarshal(b, &got)
	want := map[string]any{"x-c": []any{"v"}, "x-d": []any{"one"}}
	if diff := cmp.Diff(want, got.Headers); diff != "" {
		t.Errorf("headers (-want +got):\n%s\n%s", diff, b)
	}
}
