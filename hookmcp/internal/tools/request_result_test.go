package tools

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeMeta: a request object of any shape decodes without a panic,
// and what it yields fits the result's schema: header values are strings,
// the maps are objects.
func FuzzDecodeMeta(f *testing.F) {
	for _, seed := range []string{
		`{"uuid":"a","headers":{"x":["1","2"],"y":"3","z":4},"query":{"a":"b"},"request":[],"files":{"f":{"size":1}},"sorting":1700000000000000}`,
		`{"uuid":"a","headers":[],"query":null,"request":null,"files":[],"sorting":"x"}`,
		`{"uuid":5}`, `[]`, `null`, `{"uuid":"a","created_at":7,"headers":{"":[null]}}`,
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
		out := RequestResult{Headers: meta.headers(), Query: object(meta.Query), Form: object(meta.Form), Files: object(meta.Files)}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("the result does not encode: %v", err)
		}
	})
}
