package fakehooksvc

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestTokenAccountFields: the hosted service's token object carries
// account data (user, team, group, password), which a client that writes
// the token back sends too: it is ignored, read-only fields with it.
func TestTokenAccountFields(t *testing.T) {
	h := start(t)
	owned := h.createWith("key-one-111", `{"group_id":7}`)
	_, _, tok := h.do("GET", "/token/"+owned, "key-one-111", "")
	for name, want := range map[string]any{"user_id": 1001.0, "team_id": 1001.0, "group_id": 7.0, "password": false, "auth_username": nil, "require_auth": true} {
		if value, ok := tok[name]; !ok || value != want {
			t.Errorf("an account's token: %s = %#v (present %v), want %#v", name, value, ok, want)
		}
	}
	public := h.create(`{}`)
	if _, _, tok = h.do("GET", "/token/"+public, "", ""); tok["user_id"] != nil || tok["team_id"] != nil || tok["password"] != false {
		t.Errorf("a public token: %v", tok)
	}
	// The official CLI writes back the whole token as read, listen set as
	// the string its environment gives.
	tok["listen"] = "3"
	tok["created_at"], tok["uuid"], tok["premium"], tok["latest_request_id"] = "1999-01-01 00:00:00", "x", true, "y"
	sent, _ := json.Marshal(tok)
	status, _, back := h.do("PUT", "/token/"+public, "", string(sent))
	if status != 200 || back["listen"] != 3.0 || back["uuid"] != public || back["created_at"] != "2026-11-21 10:00:00" || back["premium"] != false {
		t.Errorf("PUT of the whole token: %d %v", status, back)
	}
	for name, value := range tok {
		if name == "listen" || name == "created_at" || name == "uuid" || name == "premium" || name == "latest_request_id" || name == "updated_at" {
			continue
		}
		if !cmp.Equal(back[name], value) {
			t.Errorf("PUT of the whole token changed %s: %#v, was %#v", name, back[name], value)
		}
	}
	openSource := startWith(t, Options{OpenSource: true})
	_, _, tok = openSource.do("GET", "/token/"+openSource.createWith("key-one-111", `{}`), "key-one-111", "")
	if _, ok := tok["team_id"]; ok {
		t.Errorf("the open-source server's token has no team: %v", tok)
	}
}

// TestListenOnCreate: the hosted service ignores listen on create (an
// update sets it); the open-source mode keeps what it always kept.
func TestListenOnCreate(t *testing.T) {
	h := start(t)
	status, _, tok := h.do("POST", "/token", "", `{"listen":5,"timeout":2}`)
	if status != 201 || tok["listen"] != 0.0 || tok["timeout"] != 2.0 {
		t.Errorf("hosted create with listen 5: %d listen %v timeout %v, want listen 0", status, tok["listen"], tok["timeout"])
	}
	if status, _, tok := h.do("PUT", "/token/"+tok["uuid"].(string), "", `{"listen":5}`); status != 200 || tok["listen"] != 5.0 {
		t.Errorf("update with listen 5: %d %v", status, tok["listen"])
	}
	if status, _, body := h.do("PUT", "/token/"+tok["uuid"].(string), "", `{"listen":11}`); status != 422 || fieldErrors(body)["listen"] == nil {
		t.Errorf("update with listen 11: %d %v", status, body)
	}
}

// sent is what a sender got back from a capture.
type sent struct {
	status int
	header http.Header
	body   string
	err    error
}

// send captures a request in the background, for senders the token holds.
func (h *harness) send(ctx context.Context, id, body string) <-chan sent {
	out := make(chan sent, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", h.srv.URL+"/"+id+"/hook", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			out <- sent{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		out <- sent{resp.StatusCode, resp.Header, string(b), err}
	}()
	return out
}

// held waits until the fake holds a capture of token id and returns the
// request's id.
func (h *harness) held(ctx context.Context, t *testing.T, id string) string {
	t.Helper()
	err := h.fake.Await(ctx, func(rs []Received) bool {
		for _, r := range rs {
			if r.Path == "/"+id+"/hook" {
				return true
			}
		}
		return false
	})
	if err != nil {
		t.Fatalf("no capture arrived: %v", err)
	}
	// The API answers while the sender is held: the lock is not held with
	// it.
	_, _, latest := h.do("GET", "/token/"+id+"/request/latest", "", "")
	rid, _ := latest["uuid"].(string)
	if rid == "" {
		t.Fatalf("latest request while the sender is held: %v", latest)
	}
	return rid
}

func wait[T any](ctx context.Context, t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
		t.Fatal("timed out")
		panic("unreachable")
	}
}

// TestSetResponse: with listen set, a capture holds its sender until a
// response is set for it; the set-response call says whether a sender
// took it.
func TestSetResponse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The listen time never passes here: the response set ends the wait.
	h := startWith(t, Options{After: func(time.Duration) <-chan time.Time { return nil }})
	id := h.create(`{"default_content":"default"}`)
	h.do("PUT", "/token/"+id, "", `{"listen":3,"default_content":"default"}`)
	sender := h.send(ctx, id, `{"a":1}`)
	rid := h.held(ctx, t, id)
	path := "/token/" + id + "/request/" + rid + "/response"
	if status, _, body := h.do("PUT", path, "", `{"status":201,"content":"not base64!"}`); status != 422 || fieldErrors(body)["content"] == nil {
		t.Errorf("content not in base64: %d %v", status, body)
	}
	set := fmt.Sprintf(`{"status":201,"content":%q,"headers":{"x-reply":["a","b"],"content-length":["999"],"content-type":["text/csv"]}}`,
		base64.StdEncoding.EncodeToString([]byte("from the target")))
	// The request belongs to id: another token's path does not reach its
	// sender, as the service looks the request up under the token.
	other := h.create(`{}`)
	if status, _, body := h.do("PUT", "/token/"+other+"/request/"+rid+"/response", "", set); status != 404 {
		t.Errorf("set response through another token: %d %v, want 404", status, body)
	}
	if status, _, body := h.do("PUT", path, "", set); status != 200 || body["status"] != 3.0 {
		t.Errorf("set response: %d %v, want 200 status 3", status, body)
	}
	got := wait(ctx, t, sender)
	if got.err != nil || got.status != 201 || got.body != "from the target" || !cmp.Equal(got.header.Values("X-Reply"), []string{"a", "b"}) ||
		got.header.Get("Content-Type") != "text/csv" || got.header.Get("X-Request-Id") != rid {
		t.Errorf("the sender got %d %q %v (%v)", got.status, got.body, got.header, got.err)
	}
	if status, _, body := h.do("PUT", path, "", set); status != 200 || body["status"] != 2.0 {
		t.Errorf("set response with no sender waiting: %d %v, want 200 status 2", status, body)
	}
	big := base64.StdEncoding.EncodeToString(make([]byte, maxBody+1<<20))
	if status, _, _ := h.do("PUT", path, "", `{"content":"`+big+`"}`); status != http.StatusRequestEntityTooLarge {
		t.Errorf("a response over 10 MB: %d, want 413", status)
	}
	if status, _, _ := h.do("PUT", "/token/"+id+"/request/00000000-0000-4000-8000-000000000000/response", "", set); status != 404 {
		t.Errorf("set response of an unknown request: %d, want 404", status)
	}
	if status, _, _ := h.do("PUT", "/token/"+id+"/requests/"+rid+"/response", "", set); status != 404 {
		t.Errorf("the plural path: %d, want 404 (the CLI's path is singular)", status)
	}
}

// TestListenTimeout: a held sender gets the token's response once listen
// seconds pass with no response set; the wait runs on the fake's timer.
func TestListenTimeout(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	timer := make(chan time.Time)
	var waited []time.Duration
	h := startWith(t, Options{After: func(d time.Duration) <-chan time.Time {
		waited = append(waited, d)
		return timer
	}})
	id := h.create(`{}`)
	h.do("PUT", "/token/"+id, "", `{"listen":"4","default_status":202,"default_content":"default"}`)
	sender := h.send(ctx, id, `{}`)
	rid := h.held(ctx, t, id)
	select {
	case timer <- time.Time{}:
	case <-ctx.Done():
		t.Fatal("the held sender never waited on the timer")
	}
	got := wait(ctx, t, sender)
	if got.err != nil || got.status != 202 || got.body != "default" || !cmp.Equal(waited, []time.Duration{4 * time.Second}) {
		t.Errorf("after listen: %d %q (%v), waited %v", got.status, got.body, got.err, waited)
	}
	path := "/token/" + id + "/request/" + rid + "/response"
	if status, _, body := h.do("PUT", path, "", `{"status":200,"content":""}`); status != 200 || body["status"] != 2.0 {
		t.Errorf("set response after the wait: %d %v, want status 2", status, body)
	}
	// A token that does not listen answers at once.
	h.do("PUT", "/token/"+id, "", `{"listen":0,"default_content":"now"}`)
	if got := wait(ctx, t, h.send(ctx, id, `{}`)); got.body != "now" {
		t.Errorf("listen 0: %q", got.body)
	}
}

// TestNotYetStored: a capture may answer 404 to its first reads by id,
// while the listing shows it.
func TestNotYetStored(t *testing.T) {
	h := startWith(t, Options{NotYetStored: 2})
	id := h.create(`{}`)
	h.captureN(id, 1)
	_, _, page := h.do("GET", "/token/"+id+"/requests", "", "")
	rid := page["data"].([]any)[0].(map[string]any)["uuid"].(string)
	var statuses []int
	for range 3 {
		status, _, _ := h.do("GET", "/token/"+id+"/request/"+rid, "", "")
		statuses = append(statuses, status)
	}
	if !cmp.Equal(statuses, []int{404, 404, 200}) {
		t.Errorf("reads by id: %v, want 404 404 200", statuses)
	}
}

// TestFaultPath: a fault can be limited to a path.
func TestFaultPath(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	h.fake.Inject(Fault{Method: "GET", Path: "/token/" + id + "/requests", Status: 503})
	if status, _, _ := h.do("GET", "/token/"+id, "", ""); status != 200 {
		t.Errorf("another path: %d", status)
	}
	if status, _, _ := h.do("GET", "/token/"+id+"/requests", "", ""); status != 503 {
		t.Errorf("the fault's path: %d, want 503", status)
	}
}

// TestEmailAndDNS: injected mail and DNS lookups show as the hosted
// service shows them, and the query finds them by their fields.
func TestEmailAndDNS(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	if EmailAddress(id) != id+"@emailhook.site" || DNSName(id) != id+".dnshook.site" {
		t.Errorf("addresses: %s %s", EmailAddress(id), DNSName(id))
	}
	mail, err := h.fake.CaptureEmail(id, Email{From: "shop@example.com", Subject: "Your order", Text: "Order 42 shipped", HTML: "<p>Order <b>42</b> shipped</p>"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, got := h.do("GET", "/token/"+id+"/request/"+mail, "", "")
	headers, _ := got["headers"].(map[string]any)
	for name, want := range map[string]any{
		"type": "email", "sender": "shop@example.com", "destinations": []any{id + "@emailhook.site"},
		"text_content": "Order 42 shipped", "html_content": "<p>Order <b>42</b> shipped</p>", "method": nil, "url": nil, "query": nil,
	} {
		if !cmp.Equal(got[name], want) {
			t.Errorf("email %s = %#v, want %#v", name, got[name], want)
		}
	}
	if !cmp.Equal(headers["subject"], []any{"Your order"}) || !strings.Contains(got["content"].(string), "Subject: Your order") || got["message_id"] == "" {
		t.Errorf("email headers %v, content %q", headers, got["content"])
	}
	dns, err := h.fake.CaptureDNS(id, DNSLookup{Name: "aGVsbG8", Type: "TXT"})
	if err != nil {
		t.Fatal(err)
	}
	_, _, got = h.do("GET", "/token/"+id+"/request/"+dns, "", "")
	if got["type"] != "dns" || got["hostname"] != "aGVsbG8."+id+".dnshook.site" || got["ip"] != "192.0.2.53" {
		t.Errorf("dns: %v", got)
	}
	h.captureN(id, 1)
	for query, want := range map[string][]string{
		"type:email":                          {mail},
		"type:dns":                            {dns},
		`sender:"shop@example.com"`:           {mail},
		"text_content:shipped AND type:email": {mail},
		"NOT type:web":                        {mail, dns},
	} {
		var ids []string
		_, _, page := h.do("GET", "/token/"+id+"/requests?query="+strings.ReplaceAll(query, " ", "+"), "", "")
		for _, r := range page["data"].([]any) {
			ids = append(ids, r.(map[string]any)["uuid"].(string))
		}
		if !cmp.Equal(ids, want) {
			t.Errorf("query %s: %v, want %v", query, ids, want)
		}
	}
	if _, err := h.fake.CaptureEmail("00000000-0000-4000-8000-000000000000", Email{}); err == nil {
		t.Error("an email to no token was captured")
	}
}

// TestPHPQueryString: a captured query string and form read as PHP reads
// them: the last of a repeated name, a list for name[].
func TestPHPQueryString(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	resp, err := http.Post(h.srv.URL+"/"+id+"?a=1&a=2&b[]=x&b[]=y", "application/x-www-form-urlencoded", strings.NewReader("f=1&f=2"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, _, got := h.do("GET", "/token/"+id+"/request/latest", "", "")
	if want := map[string]any{"a": "2", "b": []any{"x", "y"}}; !cmp.Equal(got["query"], want) {
		t.Errorf("query %v, want %v", got["query"], want)
	}
	if want := map[string]any{"f": "2"}; !cmp.Equal(got["request"], want) {
		t.Errorf("request %v, want %v", got["request"], want)
	}
	_, _, page := h.do("GET", "/token/"+id+"/requests?query=query.a:1", "", "")
	if page["total"] != 0.0 {
		t.Errorf("query.a:1 found %v, want none (PHP keeps a=2)", page["total"])
	}
}
