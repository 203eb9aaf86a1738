package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// fuzzSecret is a startup credential, in lower case: the redactor finds it
// in any case.
const fuzzSecret = "sekrit/token-123"

// FuzzIncremental reads any multipart body, under any Content-Type: it never
// panics; it answers either a NotGraphQLError or a GraphQL response that is
// valid JSON, no larger than the body (a merge places each byte once, and
// adds only the members' frame), with a Delivery whose counts fit the body.
// A startup secret is never in the response as the model reads it (its
// escapes spelt out), in the note's labels and paths, or in the error,
// whatever escapes or case the body writes it in. An error quotes the
// endpoint's words in one frame at most.
func FuzzIncremental(f *testing.F) {
	for _, seed := range []string{
		yogaBody(`{"data":{"hero":{"id":"1"}},"hasNext":true}`, `{"incremental":[{"data":{"name":"Luke"},"path":["hero"],"label":"slow"}],"hasNext":false}`),
		yogaBody(`{"data":{"list":["a"]},"hasNext":true}`, `{"incremental":[{"items":["b"],"path":["list",1]}],"hasNext":false}`),
		yogaBody(`{"data":{"h":{"f":[]}},"pending":[{"id":"0","path":["h"],"label":"D"},{"id":"1","path":["h","f"]}],"hasNext":true}`,
			`{"incremental":[{"id":"0","data":{"n":"L"}},{"id":"1","items":[1]}],"completed":[{"id":"0"},{"id":"1","errors":[{"message":"x"}]}],"hasNext":false}`),
		yogaBody(`{"data":{"a":{"b":[{"c":1}]}},"hasNext":true}`, `{"incremental":[{"data":{"a":{"b":[{"d":2}]}},"path":[]}],"extensions":{"e":1},"hasNext":true}`),
		"--b\n\n{\"data\":{\"x\":1},\"hasNext\":true}\n--b\n\n{\"data\":{\"y\":2},\"path\":[],\"hasNext\":false}\n--b--",
		"\r\n---\r\n\r\n{\"data\":{},\"hasNext\":true}\r\n---\r\n\r\n{\"incre",
		yogaBody(`{"data":{"a":"\u0073ekrit\/Token-123"},"pending":[{"id":"0","path":["sekrit","Token-123"],"label":"SEKRIT/token-123"}],"hasNext":true}`,
			`{"incremental":[{"data":{"sekrit\/token-123":1},"path":[],"label":"x\u0073ekrit/token-123"}],"hasNext":true}`, `{"incremental":[{"data":{"b":"sekrit\/tok`),
	} {
		f.Add([]byte(seed), false)
	}
	f.Add([]byte("--b\r\n\r\n{}"), true)
	target := Target{URL: &url.URL{Scheme: "https", Host: "api.example.com", Path: "/graphql"}}
	f.Fuzz(func(t *testing.T, body []byte, boundaryB bool) {
		// Post hands over UTF-8 only.
		body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		contentType := yogaType
		if boundaryB {
			contentType = "multipart/mixed; boundary=b"
		}
		answer := &httpx.Answer{Status: 200, Header: http.Header{"Content-Type": {contentType}}, Body: body}
		redactor := NewRedactor(map[string]string{"Authorization": "Bearer " + fuzzSecret})
		resp, err := readIncremental(context.Background(), Request{Target: target}, answer, redactor.Bytes(body), nil, redactor)
		if err != nil && strings.Contains(strings.ToLower(err.Error()), fuzzSecret) {
			t.Fatalf("the secret in the error: %v", err)
		}
		if err != nil {
			var notGraphQL *NotGraphQLError
			if !errors.As(err, &notGraphQL) || len(err.Error()) > 2000 {
				t.Fatalf("error %T of %d bytes: %v", err, len(err.Error()), err)
			}
			// What the endpoint wrote is quoted once, after the sentence,
			// in a frame whose lines pair up.
			if blocks, _, malformed := mcptool.ReadFrames(err.Error()); malformed != nil || len(blocks) > 1 {
				t.Fatalf("%d frames in one error (%v): %v", len(blocks), malformed, err)
			}
			return
		}
		if !json.Valid(resp.Body) || len(resp.Body) > len(body)+64 {
			t.Fatalf("response of %d bytes from a body of %d: %s", len(resp.Body), len(body), resp.Body)
		}
		shown := strings.ToLower(string(jsonx.Unescape(resp.Body)) + strings.Join(resp.Incremental.Labels, " ") + strings.Join(resp.Incremental.Missing, " "))
		if strings.Contains(shown, fuzzSecret) {
			t.Fatalf("the secret shows: %s", shown)
		}
		if d := resp.Incremental; d == nil || d.Parts < 1 || d.Parts > MaxParts || len(d.Labels) > maxLabels || len(d.Missing) > maxLabels {
			t.Fatalf("delivery %+v", resp.Incremental)
		}
	})
}
