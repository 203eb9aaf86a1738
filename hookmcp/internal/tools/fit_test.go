package tools

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/hooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
)

// checkFitted asserts what every list_requests result must be: JSON within
// the budget whose data is a list of objects and whose envelope has the
// declared integer and boolean members.
func checkFitted(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	return checkFittedWithin(t, raw, maxResultBytes)
}

func checkFittedWithin(t *testing.T, raw []byte, limit int) map[string]any {
	t.Helper()
	if len(raw) > limit {
		t.Fatalf("the result is %d bytes, over %d", len(raw), limit)
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("the result is not a JSON object: %v", err)
	}
	data, ok := out["data"].([]any)
	if !ok {
		t.Fatalf("data is %T", out["data"])
	}
	for i, item := range data {
		if _, ok := item.(map[string]any); !ok {
			t.Errorf("data[%d] is %T, not an object", i, item)
		}
	}
	for _, name := range []string{"total", "per_page", "current_page", "is_last_page", "from", "to"} {
		switch v := out[name].(type) {
		case float64:
			if v != float64(int64(v)) {
				t.Errorf("%s = %v, not an integer", name, v)
			}
		case bool:
			if name != "is_last_page" {
				t.Errorf("%s is a boolean", name)
			}
		default:
			t.Errorf("%s is %T", name, v)
		}
	}
	return out
}

// TestFitPageHugeEnvelope: an empty page whose envelope alone is over the
// budget used to panic (data[0] of an empty list). The envelope's extra
// members are left out with a note.
func TestFitPageHugeEnvelope(t *testing.T) {
	body := fmt.Sprintf(`{"data":[],"total":0,"per_page":50,"current_page":1,"is_last_page":true,"from":1,"to":0,"debug":%q}`,
		strings.Repeat("x", 200_000))
	page, err := hooksvc.DecodePage([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := fitPage(page)
	if err != nil {
		t.Fatal(err)
	}
	out := checkFitted(t, raw)
	if _, ok := out["debug"]; ok {
		t.Error("the huge member was kept")
	}
	contains(t, out["note"].(string), "too large to pass on (debug)")
}

// TestListRequestsHugeFormPost: a form POST's parsed fields (request) are
// budgeted with the rest of the item, not only its content.
func TestListRequestsHugeFormPost(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	form := url.Values{"field": {strings.Repeat("v", 600_000)}, "small": {"ok"}}
	h.capture(t, id, "POST", "application/x-www-form-urlencoded", form.Encode())
	res := h.call(t, "list_requests", map[string]any{"token_id": id})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	out := checkFitted(t, []byte(mcptest.LastText(res)))
	item := out["data"].([]any)[0].(map[string]any)
	request := item["request"].(map[string]any)
	if request["small"] != "ok" || len(request["field"].(string)) >= 600_000 {
		t.Errorf("request fields: small=%v, field %d bytes", request["small"], len(request["field"].(string)))
	}
	if fmt.Sprint(item["truncated_members"]) != "[content request]" || item["content_truncated"] != true {
		t.Errorf("markers: %v %v", item["truncated_members"], item["content_truncated"])
	}
}

// TestShrinkItemShapes: whatever makes an item big (strings, numbers, keys),
// the shrunk item fits and says what was cut.
func TestShrinkItemShapes(t *testing.T) {
	numbers := make([]int, 50_000)
	keys := map[string]int{}
	for i := range 20_000 {
		keys[fmt.Sprintf("header-%d", i)] = i
	}
	for name, item := range map[string]any{
		"long string": map[string]any{"content": strings.Repeat("é", 100_000), "uuid": "u"},
		"numbers":     map[string]any{"query": numbers, "uuid": "u"},
		"many keys":   map[string]any{"headers": keys, "uuid": "u"},
		"long key":    map[string]any{strings.Repeat("k", 200_000): 1, "uuid": "u"},
	} {
		raw, _ := json.Marshal(item)
		got := shrinkItem(raw, 20_000)
		var decoded map[string]any
		if len(got) > 20_000 || json.Unmarshal(got, &decoded) != nil {
			t.Errorf("%s: %d bytes, valid=%v", name, len(got), json.Valid(got))
			continue
		}
		if decoded["uuid"] != "u" || decoded["truncated_members"] == nil {
			t.Errorf("%s: uuid=%v truncated_members=%v", name, decoded["uuid"], decoded["truncated_members"])
		}
	}
}

// FuzzFitPage: whatever the API sends as a listing, decoding and fitting
// never panic, and a result always fits and matches the declared shape. The
// limit is small here (the envelope, the note's room and a few kilobytes of
// items), so that small inputs reach every cut.
func FuzzFitPage(f *testing.F) {
	f.Add([]byte(`{"data":[{"uuid":"a","content":"x"}],"total":1,"per_page":50,"current_page":1,"is_last_page":true,"from":1,"to":1}`))
	f.Add([]byte(`{"data":{},"total":"3","from":null,"to":null}`))
	f.Add([]byte(`{"data":[1,"two",null,[3]],"extra":{"a":[1,2,3]}}`))
	f.Add([]byte(`{"data":[{"request":{"a":"` + strings.Repeat("b", 6_000) + `"}},{"content":"c"}]}`))
	f.Add([]byte(`{"data":[],"debug":"` + strings.Repeat("d", 5_000) + `"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		page, err := hooksvc.DecodePage(body)
		if err != nil {
			return
		}
		const limit = 5_000
		raw, err := fitPageWithin(page, limit, nil)
		if err != nil {
			t.Fatalf("fitPage: %v", err)
		}
		checkFittedWithin(t, raw, limit)
	})
}
