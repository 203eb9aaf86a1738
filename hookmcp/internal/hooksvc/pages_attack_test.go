package hooksvc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/httpx"
)

// hostilePages are listings an API that wants the key to slip through
// might send: the key (%s) in strings that hold commas, brackets, quotes
// and escapes, in a duplicate data member, in a number-like string, after
// a byte-order mark, between unusual spaces, beside bytes that are not
// UTF-8 and lone surrogates, in a member name, and nested deep.
var hostilePages = []string{
	`{"data":[{"uuid":"a","content":"],[{\"uuid\":\"b\"},%s"}],"total":1}`,
	`{"data":[{"uuid":"a","content":"\\\"%s\\\\"},{"uuid":"b"}],"total":2}`,
	`{"data":[{"uuid":"a","x":[[1,[2,"%s"]],{"y":"]"}]}],"total":1}`,
	`{"data":[{"uuid":"a"}],"data":[{"uuid":"%s"}],"total":1}`,
	`{"data":[{"uuid":"%s"}],"data":[{"uuid":"a"}],"total":1}`,
	`{"data":[{"uuid":"a","n":1e700,"m":-0.0E-0,"k":"%s"}],"total":1e700}`,
	"\xef\xbb\xbf{\"data\":[{\"uuid\":\"%s\"}]}",
	"\r\n\t {\"data\" :\t[ {\"uuid\"\n:\r\"a\" , \"c\" : \"%s\" } ] , \"total\" : 1 }\n",
	"{\"data\":[{\"uuid\":\"a\",\"c\":\"\xff\xfe%s\xc3\"}],\"total\":1}",
	`{"data":[{"uuid":"a","c":"\ud800%s\udc00\ud83d"}],"total":1}`,
	`{"data":[{"uuid":"a","%s":1}],"total":1}`,
	`{"data":[{"uuid":"a","c":[[[[[[[[[[[[[[[[[[[["%s"]]]]]]]]]]]]]]]]]]]]}],"total":1}`,
	`{"data":[{"uuid":"a"},"%s"],"total":2}`,
	`{"data":[{"uuid":"a"}],"total":1,"note":"%s"}`,
	`{"data":[{"uuid":"a"}],"error":"%s"}`,
	`{"data":[{"uuid":"a","c":"%s"}]`,
	`{"data":[{"uuid":"a","c":"%s"}]}{"data":[]}`,
	`{"data":[{"uuid":"a","c":"\%s"}]}`,
	"{\"data\":[{\"uuid\":\"a\",\"c\":\"\x01%s\"}]}",
	"{\"data\":[{\"uuid\":\"a\"}\v,{\"uuid\":\"%s\"}]}",
	"{\"data\":[{\"uuid\":\"a\"}\u00a0,{\"uuid\":\"%s\"}]}",
}

// spellKey is pageKey as an echo may write it, each character as choice's
// next byte says: as it is, in capitals, or as a JSON, percent or HTML
// escape; inside a JSON string the JSON escapes are decoded by the
// redactor, the others searched as written.
func spellKey(choice []byte) string {
	var b strings.Builder
	for i := 0; i < len(pageKey); i++ {
		c := pageKey[i]
		how := byte(0)
		if len(choice) > 0 {
			how = choice[i%len(choice)] % 7
		}
		switch how {
		case 1:
			b.WriteString(strings.ToUpper(string(c)))
		case 2:
			fmt.Fprintf(&b, `\u%04x`, c)
		case 3:
			fmt.Fprintf(&b, `%%%02X`, c)
		case 4:
			fmt.Fprintf(&b, `&#%d;`, c)
		case 5:
			fmt.Fprintf(&b, `\u0025%02x`, c) // %xx, its % JSON-escaped
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// TestHostilePages: each hostile listing, with the key spelled several
// ways, gets the verdict and requests Do's check gives it redacted whole,
// its data split as encoding/json splits it, and no request that
// checkedPage takes holds the key in any spelling.
func TestHostilePages(t *testing.T) {
	for _, page := range hostilePages {
		for _, choice := range [][]byte{{0}, {1}, {2}, {3}, {4}, {5}, {0, 1, 2, 3, 4, 5, 6}} {
			checkHostile(t, []byte(fmt.Sprintf(page, spellKey(choice))))
		}
	}
}

// FuzzPlantedPage plants the key, spelled as choice says, at any place of
// any page, and holds checkedPage to Do's check of the page redacted whole
// (checkAgainstNotTheAPI), its split to encoding/json's, and its requests
// to holding no key.
func FuzzPlantedPage(f *testing.F) {
	for _, page := range hostilePages {
		at := strings.Index(page, "%s")
		f.Add(strings.Replace(page, "%s", "", 1), uint(at), []byte{0, 2, 5})
	}
	for _, seed := range pageSeeds {
		f.Add(seed, uint(len(seed)/2), []byte{1})
	}
	f.Fuzz(func(t *testing.T, page string, at uint, choice []byte) {
		at %= uint(len(page) + 1)
		checkHostile(t, []byte(page[:at]+spellKey(choice)+page[at:]))
	})
}

func checkHostile(t *testing.T, body []byte) {
	t.Helper()
	checkAgainstNotTheAPI(t, body, "application/json")
	base, _ := url.Parse("https://hooks.example")
	cl := &Client{BaseURL: base, APIKey: pageKey}
	// As ReadPages calls it: with the redactor it made once for the read.
	redactor := cl.secrets(pageKey)
	c := Call{Method: http.MethodGet, Path: "/token/x/requests", What: "token x", Doing: "Listing the requests of token x", Key: pageKey, expect: expectPage, redactor: &redactor}
	got, err := cl.checkedPage(c, &httpx.Answer{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: bytes.Clone(body)})
	if err != nil {
		if strings.Contains(strings.ToLower(err.Error()), pageKey) {
			t.Fatalf("%q: the error holds the key: %v", body, err)
		}
		return
	}
	// The split is encoding/json's: the envelope decoded, its data member
	// (the last, as encoding/json keeps) decoded into raw values.
	var envelope map[string]json.RawMessage
	if err := json.Unmarshal(cl.redactor(c).Bytes(body), &envelope); err != nil {
		t.Fatalf("%q: checkedPage took it, encoding/json does not: %v", body, err)
	}
	var want []json.RawMessage
	if data := envelope["data"]; len(data) > 0 && data[0] == '[' {
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
	}
	if len(got.Data) != len(want) {
		t.Fatalf("%q: split into %d requests, encoding/json %d", body, len(got.Data), len(want))
	}
	for i := range want {
		if !bytes.Equal(got.Data[i], want[i]) {
			t.Fatalf("%q: request %d is %q, encoding/json's %q", body, i, got.Data[i], want[i])
		}
		var decoded any
		dec := json.NewDecoder(bytes.NewReader(got.Data[i]))
		dec.UseNumber() // 1e700 is a number float64 cannot hold
		if err := dec.Decode(&decoded); err != nil {
			t.Fatalf("%q: request %d does not decode: %v", body, i, err)
		}
		text, _ := json.Marshal(decoded)
		// What a reader of the text may decode further: percent and HTML
		// escapes, in either order.
		shown := fmt.Sprint(decoded)
		unpercent := func(s string) string {
			if u, err := url.PathUnescape(s); err == nil {
				return u
			}
			return s
		}
		for _, s := range [][]byte{got.Data[i], text, []byte(shown), []byte(html.UnescapeString(unpercent(shown))), []byte(unpercent(html.UnescapeString(shown)))} {
			if bytes.Contains(bytes.ToLower(s), []byte(pageKey)) {
				t.Fatalf("%q: request %d holds the key: %s", body, i, s)
			}
		}
	}
}
