package upstream

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpforge/servers/shared/jsonx"
)

// TestPostIncrementalEscapedSecrets: a startup secret an endpoint echoes in
// a part with JSON escapes (\u0073 for s, as some servers write non-ASCII
// or every letter; \/ as PHP writes a slash) is redacted as it is in a
// one-piece JSON answer, which is redacted decoded: in data, in a member's
// name, in errors, in extensions, in a label (which the note names) and in
// the message about a part that is not JSON.
func TestPostIncrementalEscapedSecrets(t *testing.T) {
	const secret = "sekrit/token-123"
	escaped := `\u0073ekrit\/token-123`
	c := loopbackClient(1 << 20)
	c.Redactor = NewRedactor(map[string]string{"Authorization": "Bearer " + secret})
	srv, _ := streamingServer(t, nil,
		`{"data":{"a":"`+escaped+`"},"extensions":{"x":"`+escaped+`"},"hasNext":true}`,
		`{"incremental":[{"data":{"`+escaped+`":1},"path":[],"label":"`+escaped+`","errors":[{"message":"`+escaped+`"}]}],"hasNext":false}`)
	resp, err := c.Post(context.Background(), Request{Target: Target{URL: parse(t, srv.URL)}, Headers: Defaults(), Timeout: 10 * time.Second, Incremental: true})
	if err != nil {
		t.Fatal(err)
	}
	// graphql_query spells escapes out before the model reads the body.
	for what, text := range map[string]string{"body": string(jsonx.Unescape(resp.Body)), "note": resp.Incremental.Note()} {
		if strings.Contains(text, secret) || strings.Contains(text, escaped) || !strings.Contains(text, Redacted) {
			t.Errorf("%s: %s", what, text)
		}
	}
	bad, _ := streamingServer(t, nil, `{"data":{"a":1},"hasNext":true}`, `{"incremental":[{"data":{"b":"`+escaped+`"}`)
	_, err = c.Post(context.Background(), Request{Target: Target{URL: parse(t, bad.URL)}, Headers: Defaults(), Timeout: 10 * time.Second, Incremental: true})
	if err == nil || !strings.Contains(err.Error(), "part 2 is not a JSON object") || strings.Contains(err.Error(), escaped) || strings.Contains(err.Error(), secret) {
		t.Errorf("bad part: %v", err)
	}
}

// TestIncrementalAfterLastPayload: hasNext: false (or a first payload
// without hasNext, a whole answer) ends the answer. A payload after it is
// refused, naming both parts, instead of being merged into an answer the
// note would call complete, or incomplete with "no part had hasNext:
// false"; a repeated {"hasNext":false} or a keep-alive after it is not.
func TestIncrementalAfterLastPayload(t *testing.T) {
	for name, tt := range map[string]struct{ body, want string }{
		"after hasNext false": {yogaBody(`{"data":{"a":1},"hasNext":false}`, `{"incremental":[{"data":{"b":2},"path":[]}],"hasNext":true}`),
			"part 2 came after part 1 ended the answer (hasNext: false)"},
		"after a whole answer": {yogaBody(`{}`, `{"data":{"a":1}}`, `{"incremental":[{"data":{"b":2},"path":[]}],"hasNext":false}`),
			"part 3 came after part 2 ended the answer (a first payload without hasNext is whole)"},
		"hasNext false again, with data": {yogaBody(`{"data":{"a":1},"hasNext":true}`, `{"hasNext":false}`, `{"incremental":[{"data":{"b":2},"path":[]}],"hasNext":false}`),
			"part 3 came after part 2 ended the answer (hasNext: false)"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := read(t, yogaType, tt.body)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant %q", err, tt.want)
			}
		})
	}
	resp, err := read(t, yogaType, yogaBody(`{"data":{"a":1},"hasNext":false}`, `{}`, `{"hasNext":false}`, ``))
	if err != nil || string(resp.Body) != `{"data":{"a":1}}` || !resp.Incremental.Complete || resp.Incremental.Parts != 1 {
		t.Errorf("trailing end marks: %v %+v", err, resp)
	}
}
