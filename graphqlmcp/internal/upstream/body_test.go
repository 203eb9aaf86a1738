package upstream

import (
	"bytes"
	"encoding/json"
	"net/url"
	"reflect"
	"testing"

	"github.com/mcpforge/servers/shared/jsonx"
)

// formSeeds are values whose JSON holds every byte formSafe rewrites, in
// strings, keys, after escapes and in numbers.
var formSeeds = []string{
	`{"query":"{ a(x: \"&query=mutation{wipe}&\") }"}`,
	`{"query":"q","variables":{"&query=x&":"a;b=c+d%26e","n":1e+21,"m":-2.5E+300,"k":[1e-7,"\\\"&"]}}`,
	`{"a":"\\\\&","b":"\u0026","c":"%%%===;;;+++"}`,
	`"&"`, `1E+2`, `[]`, `{}`, `"\\"`,
}

// TestFormSafe: the body sent upstream holds no byte a form parser reads
// as structure, is valid JSON, and means what the encoder wrote; read as a
// form it is one field, whose name is the whole document.
func TestFormSafe(t *testing.T) {
	for _, seed := range formSeeds {
		checkFormSafe(t, []byte(seed))
	}
	// As Post encodes: through jsonx, which writes & < > unescaped.
	payload, err := jsonx.Marshal(map[string]any{"query": `{ a(x: "&query=mutation{wipe}&") }`, "variables": map[string]any{"f": 1e21}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.ContainsAny(payload, "&+") {
		t.Fatalf("the encoder escapes already, and the test tests nothing: %s", payload)
	}
	checkFormSafe(t, payload)
}

func FuzzFormSafe(f *testing.F) {
	for _, seed := range formSeeds {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var v any
		if json.Unmarshal(doc, &v) != nil {
			t.Skip()
		}
		// formSafe takes JSON as the encoder writes it.
		payload, err := jsonx.Marshal(v)
		if err != nil {
			t.Skip()
		}
		checkFormSafe(t, payload)
	})
}

func checkFormSafe(t *testing.T, payload []byte) {
	t.Helper()
	got := formSafe(payload)
	if i := bytes.IndexAny(got, "&;=+%"); i >= 0 {
		t.Errorf("formSafe(%s) = %s: holds %q", payload, got, got[i])
	}
	var want, have any
	if err := json.Unmarshal(payload, &want); err != nil {
		t.Fatalf("seed %s: %v", payload, err)
	}
	if err := json.Unmarshal(got, &have); err != nil {
		t.Fatalf("formSafe(%s) = %s, not JSON: %v", payload, got, err)
	}
	if !reflect.DeepEqual(want, have) {
		t.Errorf("formSafe(%s) = %s, which reads as %v, not %v", payload, got, have, want)
	}
	form, _ := url.ParseQuery(string(got))
	if len(form) > 1 || form.Has("query") {
		t.Errorf("formSafe(%s) read as a form has the fields %v", payload, form)
	}
}
