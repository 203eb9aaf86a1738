package jsonx

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeTarget holds the shapes the servers decode large documents into.
type decodeTarget struct {
	Data     json.RawMessage   `json:"data"`
	Errors   []json.RawMessage `json:"errors"`
	Name     *string           `json:"name"`
	Count    int               `json:"count"`
	Flag     bool              `json:"flag"`
	Nested   *decodeTarget     `json:"nested"`
	Anything any               `json:"anything"`
}

// TestUnmarshalAsEncodingJSON checks that Unmarshal reads every document
// as encoding/json does: the same value, and an error where it gives one.
func TestUnmarshalAsEncodingJSON(t *testing.T) {
	docs := []string{
		`{}`,
		`{"data":{"a":[1,2,{"b":null}]},"errors":[{"message":"m"}]}`,
		`{"name":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \n","count":-12,"flag":true}`,
		"{\"name\":\"bad \xff\xfe utf-8\"}",
		`{"name":"lone surrogate \ud800"}`,
		`{"NAME":"case differs","Count":3}`,
		`{"name":"first","name":"second"}`,
		`{"nested":{"nested":{"name":"deep"}},"unknown":{"x":[[[]]]}}`,
		`{"anything":[1.5e300,"s",false,null,{"k":"v"}]}`,
		`{"count":1.5}`,
		`{"count":"7"}`,
		`{"flag":null,"count":null,"name":null}`,
		`{"data":nul}`,
		`{"data":{}} trailing`,
		`{"data":{}} {}`,
		`{"data":{}}   `,
		`{"data":{}}]`,
		`{"data":{},}`,
		`{"name":"unterminated}`,
		`{"name":"bad escape \x"}`,
		`[1,2]`,
		``,
		`   `,
		`{"data":` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `}`,
	}
	for _, doc := range docs {
		var want decodeTarget
		wantErr := json.Unmarshal([]byte(doc), &want)
		for name, decode := range map[string]func([]byte, any) error{"Unmarshal": Unmarshal, "UnmarshalSharing": UnmarshalSharing} {
			var got decodeTarget
			gotErr := decode([]byte(doc), &got)
			if (wantErr == nil) != (gotErr == nil) {
				t.Errorf("%s(%.60q): error %v, encoding/json's %v", name, doc, gotErr, wantErr)
				continue
			}
			if wantErr != nil {
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s(%.60q) differs from encoding/json (-want +got):\n%s", name, doc, diff)
			}
		}
	}
}

// TestUnmarshalRefusesDeepNesting checks that a document nested past
// MaxDepth is refused before the decoder, which recurses once per level,
// reads it; brackets inside strings do not count.
func TestUnmarshalRefusesDeepNesting(t *testing.T) {
	var v any
	if err := UnmarshalSharing([]byte(strings.Repeat("[", MaxDepth+1)), &v); !errors.Is(err, ErrTooDeep) {
		t.Errorf("UnmarshalSharing of %d open arrays: %v, want ErrTooDeep", MaxDepth+1, err)
	}
	deep := strings.Repeat("[", 1_000_000) + strings.Repeat("]", 1_000_000)
	if err := Unmarshal([]byte(deep), &v); !errors.Is(err, ErrTooDeep) {
		t.Errorf("a million nested arrays: %v, want ErrTooDeep", err)
	}
	justDeepEnough := strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth)
	if err := Unmarshal([]byte(justDeepEnough), &v); err != nil {
		t.Errorf("%d nested arrays: %v", MaxDepth, err)
	}
	inString := `{"s":"` + strings.Repeat(`[{\"`, 20_000) + `"}`
	if err := Unmarshal([]byte(inString), &v); err != nil {
		t.Errorf("brackets inside a string: %v", err)
	}
}

// TestUnmarshalSharingSharesMemory checks the point of UnmarshalSharing: a
// raw member is the document's own bytes, not a copy.
func TestUnmarshalSharingSharesMemory(t *testing.T) {
	doc := []byte(`{"data":{"big":"value"}}`)
	var members map[string]json.RawMessage
	if err := UnmarshalSharing(doc, &members); err != nil {
		t.Fatal(err)
	}
	data := members["data"]
	if string(data) != `{"big":"value"}` || &data[0] != &doc[8] {
		t.Errorf("data = %s at %p, want the document's bytes at %p", data, &data[0], &doc[8])
	}
}

// FuzzUnmarshal checks on any bytes that Unmarshal agrees with
// encoding/json, the reference it replaces on the servers' largest
// documents, and never panics.
func FuzzUnmarshal(f *testing.F) {
	for _, seed := range []string{
		`{"data":{"a":[1,{"b":"c"}]},"errors":[{"message":"m"}],"name":"n","count":1}`,
		`{"name":"\u00e9\ud83d\ude00\\"}`, "{\"name\":\"\xff\"}", `[[[]]]`, `{"count":1e400}`, `nul`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		var want, got, shared decodeTarget
		wantErr := json.Unmarshal(doc, &want)
		gotErr := Unmarshal(doc, &got)
		sharedErr := UnmarshalSharing(doc, &shared)
		if (wantErr == nil) != (gotErr == nil) || (wantErr == nil) != (sharedErr == nil) {
			t.Fatalf("%q: Unmarshal's error %v, UnmarshalSharing's %v, encoding/json's %v", doc, gotErr, sharedErr, wantErr)
		}
		if wantErr == nil {
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("Unmarshal(%q) differs from encoding/json (-want +got):\n%s", doc, diff)
			}
			if diff := cmp.Diff(want, shared); diff != "" {
				t.Fatalf("UnmarshalSharing(%q) differs from encoding/json (-want +got):\n%s", doc, diff)
			}
		}
	})
}
