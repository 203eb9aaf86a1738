package fakehooksvc

import (
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// clock is a settable test clock.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

type harness struct {
	t     *testing.T
	srv   *httptest.Server
	fake  *Server
	clock *clock
}

func start(t *testing.T) *harness {
	return startWith(t, Options{})
}

func startWith(t *testing.T, opts Options) *harness {
	c := &clock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}
	opts.APIKeys, opts.Now = []string{"key-one-111", "key-two-222"}, c.Now
	fake := New(opts)
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	return &harness{t: t, srv: srv, fake: fake, clock: c}
}

// do sends a request without following redirects and decodes a JSON answer.
func (h *harness) do(method, path, key, body string) (int, http.Header, map[string]any) {
	h.t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Api-Key", key)
	}
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	json.Unmarshal(raw, &out)
	return resp.StatusCode, resp.Header, out
}

func (h *harness) create(body string) string {
	h.t.Helper()
	return h.createWith("", body)
}

func (h *harness) createWith(key, body string) string {
	h.t.Helper()
	status, _, tok := h.do("POST", "/token", key, body)
	if status != http.StatusCreated {
		h.t.Fatalf("create: %d %v", status, tok)
	}
	return tok["uuid"].(string)
}

func TestTokenLifecycle(t *testing.T) {
	h := start(t)
	id := h.create(`{"default_status":201,"default_content":"hi","timeout":5,"alias":"my-hook","cors":true}`)
	status, _, tok := h.do("GET", "/token/"+id, "", "")
	if status != 200 || tok["default_status"] != 201.0 || tok["alias"] != "my-hook" || tok["expires_at"] != "2026-11-28 10:00:00" {
		t.Fatalf("get: %d %v", status, tok)
	}
	// PUT replaces: what it leaves out goes back to the default.
	status, _, tok = h.do("PUT", "/token/"+id, "", `{"cors":true}`)
	if status != 200 || tok["default_status"] != 200.0 || tok["default_content"] != HostedPlaceholder || tok["timeout"] != 0.0 || tok["alias"] != nil || tok["cors"] != true {
		t.Fatalf("put: %d %v", status, tok)
	}
	if status, _, _ := h.do("DELETE", "/token/"+id, "", ""); status != http.StatusNoContent {
		t.Fatalf("delete: %d", status)
	}
	if status, _, _ := h.do("GET", "/token/"+id, "", ""); status != http.StatusNotFound {
		t.Errorf("deleted token: %d, want 404", status)
	}
	if status, _, _ := h.do("GET", "/token/00000000-0000-4000-8000-000000000000", "", ""); status != http.StatusNotFound {
		t.Errorf("unknown token: %d, want 404", status)
	}
	if status, _, _ := h.do("GET", "/token/my-hook", "", ""); status != http.StatusNotFound {
		t.Errorf("alias in the path: %d, want 404", status)
	}
}

func TestExpiry(t *testing.T) {
	h := start(t)
	id := h.create(`{"expiry":60}`)
	h.clock.now = h.clock.now.Add(61 * time.Second)
	if status, _, _ := h.do("GET", "/token/"+id, "", ""); status != http.StatusNotFound {
		t.Errorf("expired token: %d, want 404", status)
	}
}

// TestHostedDefaults: a new token shows the hosted service's defaults, and
// null settings stay null through a PUT (never 0).
func TestHostedDefaults(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	_, _, tok := h.do("GET", "/token/"+id, "", "")
	want := map[string]any{
		"default_status": 200.0, "default_content_type": "text/html", "default_content": HostedPlaceholder,
		"expiry": nil, "request_limit": nil, "expires_at": "2026-11-28 10:00:00", "description": nil,
	}
	for name, value := range want {
		if tok[name] != value {
			t.Errorf("new token: %s = %#v, want %#v", name, tok[name], value)
		}
	}
	status, _, tok := h.do("PUT", "/token/"+id, "", `{"expiry":null,"request_limit":null,"description":"mine","timeout":30}`)
	if status != 200 || tok["expiry"] != nil || tok["request_limit"] != nil || tok["description"] != "mine" || tok["timeout"] != 30.0 {
		t.Errorf("put with nulls: %d %v", status, tok)
	}
	owned := h.createWith("key-one-111", `{"expiry":null}`)
	if _, _, tok := h.do("GET", "/token/"+owned, "key-one-111", ""); tok["expires_at"] != nil {
		t.Errorf("an account's token with expiry null expires at %v, want never", tok["expires_at"])
	}
}

// TestOpenSourceMode: the open-source server's differences.
func TestOpenSourceMode(t *testing.T) {
	h := startWith(t, Options{OpenSource: true})
	id := h.create(`{"cors":true,"listen":3}`)
	_, _, tok := h.do("GET", "/token/"+id, "", "")
	if tok["default_content_type"] != "text/plain" || tok["default_content"] != "" || tok["expiry"] != 604800.0 || tok["request_limit"] != 10000.0 {
		t.Errorf("new token: %v", tok)
	}
	status, _, tok := h.do("PUT", "/token/"+id, "", `{"default_status":201,"cors":false,"listen":0,"alias":"renamed","expiry":60,"request_limit":5,"actions":true}`)
	if status != 200 || tok["default_status"] != 201.0 || tok["cors"] != true || tok["listen"] != 3.0 || tok["alias"] != nil ||
		tok["expiry"] != 604800.0 || tok["request_limit"] != 10000.0 || tok["actions"] != false {
		t.Errorf("a PUT applies only the response settings: %d %v", status, tok)
	}
	if status, _, errs := h.do("PUT", "/token/"+id, "", `{"timeout":11}`); status != 422 || errs["timeout"] == nil {
		t.Errorf("timeout 11: %d %v", status, errs)
	}
	if status, _, _ := h.do("GET", "/token/00000000-0000-4000-8000-000000000000", "", ""); status != http.StatusGone {
		t.Errorf("unknown token: %d, want 410", status)
	}
	h.captureN(id, 1)
	if status, _, _ := h.do("GET", "/token/"+id+"/request/latest/raw", "", ""); status != http.StatusNotFound {
		t.Errorf("latest/raw: %d, want 404 (no such route)", status)
	}
}

// TestOpenSourceDeletes: as the open-source server, a delete of a token's
// requests answers 200 {"status": whether any was deleted}, and a delete of
// a token 200 {"status":true}; the hosted service's answers stay 204 and
// {"status":true}.
func TestOpenSourceDeletes(t *testing.T) {
	h := startWith(t, Options{OpenSource: true})
	id := h.create(`{}`)
	if status, _, body := h.do("DELETE", "/token/"+id+"/request", "", ""); status != 200 || body["status"] != false {
		t.Errorf("deleting no requests: %d %v, want 200 status false", status, body)
	}
	h.captureN(id, 2)
	if status, _, body := h.do("DELETE", "/token/"+id+"/request", "", ""); status != 200 || body["status"] != true {
		t.Errorf("deleting two requests: %d %v, want 200 status true", status, body)
	}
	if status, _, body := h.do("DELETE", "/token/"+id, "", ""); status != 200 || body["status"] != true {
		t.Errorf("deleting the token: %d %v, want 200 status true", status, body)
	}
	hosted := start(t)
	id = hosted.create(`{}`)
	if status, _, body := hosted.do("DELETE", "/token/"+id+"/request", "", ""); status != 200 || body["status"] != true {
		t.Errorf("hosted, deleting no requests: %d %v, want 200 status true", status, body)
	}
}

// TestValidation: a 422 is Laravel's form on the hosted service, naming
// each field and rule; integers may come as strings of digits, as
// Laravel's integer rule takes them.
func TestValidation(t *testing.T) {
	h := start(t)
	h.create(`{"alias":"taken"}`)
	status, _, body := h.do("POST", "/token", "", `{"default_status":99,"timeout":31,"cors":"yes","alias":"a b","request_limit":10001}`)
	want := map[string]any{
		"message": "The given data was invalid.",
		"errors": map[string]any{
			"default_status": []any{"The default status must be between 200 and 599."},
			"timeout":        []any{"The timeout must be between 0 and 30."},
			"cors":           []any{"The cors field must be true or false."},
			"alias":          []any{"The alias format is invalid."},
			"request_limit":  []any{"The request limit must be between 0 and 10000."},
		},
	}
	if status != 422 || !cmp.Equal(body, want) {
		t.Errorf("422: %d %v", status, body)
	}
	if status, _, body := h.do("POST", "/token", "", `{"alias":"taken"}`); status != 422 || fieldErrors(body)["alias"] == nil {
		t.Errorf("duplicate alias: %d %v", status, body)
	}
	if status, _, body := h.do("POST", "/token", "", `{"clone_from":"nope"}`); status != 422 || fieldErrors(body)["clone_from"] == nil {
		t.Errorf("bad clone_from: %d %v", status, body)
	}
	status, _, tok := h.do("POST", "/token", "", `{"default_status":"201","timeout":" 4","cors":"1","actions":0}`)
	if status != 201 || tok["default_status"] != 201.0 || tok["timeout"] != 4.0 || tok["cors"] != true || tok["actions"] != false {
		t.Errorf("integers and booleans as Laravel takes them: %d %v", status, tok)
	}
	if status, _, body := h.do("POST", "/token", "", `{"timeout":1.5}`); status != 422 || fieldErrors(body)["timeout"] == nil {
		t.Errorf("timeout 1.5: %d %v", status, body)
	}
	// The open-source server answers the flat form.
	openSource := startWith(t, Options{OpenSource: true})
	if status, _, body := openSource.do("POST", "/token", "", `{"timeout":11}`); status != 422 || body["timeout"] == nil || body["errors"] != nil {
		t.Errorf("open source, timeout 11: %d %v", status, body)
	}
}

// fieldErrors is the field messages of a 422 in Laravel's form.
func fieldErrors(body map[string]any) map[string]any {
	errs, _ := body["errors"].(map[string]any)
	return errs
}

func TestCloneFrom(t *testing.T) {
	h := start(t)
	h.create(`{"default_content":"cloned","alias":"source"}`)
	status, _, tok := h.do("POST", "/token", "", `{"clone_from":"source","cors":true}`)
	if status != 201 || tok["default_content"] != "cloned" || tok["cors"] != true || tok["alias"] != nil {
		t.Errorf("clone: %d %v", status, tok)
	}
}

func TestPrivateTokens(t *testing.T) {
	h := start(t)
	status, _, tok := h.do("POST", "/token", "key-one-111", `{}`)
	if status != 201 {
		t.Fatal(status)
	}
	id := tok["uuid"].(string)
	status, header, _ := h.do("GET", "/token/"+id, "", "")
	if status != http.StatusFound || !strings.HasSuffix(header.Get("Location"), "/login") {
		t.Errorf("no key: %d %v, want 302 to /login", status, header)
	}
	if status, _, _ := h.do("GET", "/token/"+id, "key-two-222", ""); status != 401 {
		t.Errorf("another key: %d, want 401", status)
	}
	if status, _, _ := h.do("GET", "/token/"+id, "not-a-key", ""); status != 401 {
		t.Errorf("unknown key: %d, want 401", status)
	}
	if status, _, _ := h.do("GET", "/token/"+id, "key-one-111", ""); status != 200 {
		t.Errorf("owner's key: %d, want 200", status)
	}
}

// captureN sends n requests to the token's capture URL, a second apart.
func (h *harness) captureN(id string, n int) {
	h.t.Helper()
	for i := range n {
		resp, err := http.Post(fmt.Sprintf("%s/%s/path?i=%d", h.srv.URL, id, i), "text/plain", strings.NewReader(fmt.Sprintf("body %d", i)))
		if err != nil {
			h.t.Fatal(err)
		}
		resp.Body.Close()
		h.clock.now = h.clock.now.Add(time.Second)
	}
}

func TestPagination(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	h.captureN(id, 175)
	status, _, page := h.do("GET", "/token/"+id+"/requests?per_page=40&page=6", "", "")
	want := map[string]any{"data": []any{}, "total": 175.0, "per_page": 40.0, "current_page": 6.0, "is_last_page": true, "from": 201.0, "to": 175.0}
	if status != 200 || !cmp.Equal(page, want) {
		t.Errorf("past the end: %d %v", status, page)
	}
	_, _, page = h.do("GET", "/token/"+id+"/requests?per_page=40&page=5", "", "")
	if len(page["data"].([]any)) != 15 || page["from"] != 161.0 || page["to"] != 175.0 || page["is_last_page"] != true {
		t.Errorf("last page: %v", page)
	}
	_, _, page = h.do("GET", "/token/"+id+"/requests", "", "")
	first := page["data"].([]any)[0].(map[string]any)
	if page["per_page"] != 50.0 || first["content"] != "body 0" {
		t.Errorf("default order is oldest, 50 a page: %v %v", page["per_page"], first["content"])
	}
	_, _, page = h.do("GET", "/token/"+id+"/requests?sorting=newest&per_page=1", "", "")
	if got := page["data"].([]any)[0].(map[string]any)["content"]; got != "body 174" {
		t.Errorf("newest first = %v", got)
	}
	if status, _, body := h.do("GET", "/token/"+id+"/requests?per_page=101", "", ""); status != 422 || fieldErrors(body)["per_page"] == nil {
		t.Errorf("per_page 101: %d %v", status, body)
	}
	// PHP keeps the last of a repeated parameter.
	_, _, page = h.do("GET", "/token/"+id+"/requests?per_page=101&per_page=2&sorting=oldest&sorting=newest", "", "")
	if got := page["data"].([]any); page["per_page"] != 2.0 || got[0].(map[string]any)["content"] != "body 174" {
		t.Errorf("repeated per_page and sorting: per_page %v, first %v", page["per_page"], got[0].(map[string]any)["content"])
	}
	empty := h.create(`{}`)
	_, _, page = h.do("GET", "/token/"+empty+"/requests", "", "")
	want = map[string]any{"data": []any{}, "total": 0.0, "per_page": 50.0, "current_page": 1.0, "is_last_page": true, "from": 1.0, "to": 0.0}
	if !cmp.Equal(page, want) {
		t.Errorf("empty token: %v", page)
	}
}

func TestFilters(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	h.captureN(id, 5) // at 10:00:00 .. 10:00:04
	tests := []struct {
		query string
		want  []string
	}{
		{"date_from=2026-11-21+10:00:03", []string{"body 3", "body 4"}},
		{"date_to=2026-11-21+10:00:01", []string{"body 0", "body 1"}},
		{"query=%222%22", []string{"body 2"}},
		{"query=query.i:1+OR+query.i:4", []string{"body 1", "body 4"}},
		{"query=method:POST+AND+NOT+content:%22body+0%22", []string{"body 1", "body 2", "body 3", "body 4"}},
		{"query=headers.content-type:text/plain+AND+(query.i:0+OR+query.i:2)", []string{"body 0", "body 2"}},
		{"query=_exists_:query.nope", nil},
		// The service's cursor: microseconds since the epoch.
		{fmt.Sprintf("query=sorting:>%d", time.Date(2026, 11, 21, 10, 0, 2, 0, time.UTC).UnixMicro()), []string{"body 3", "body 4"}},
		{fmt.Sprintf("query=sorting:<=%d+AND+method:POST", time.Date(2026, 11, 21, 10, 0, 1, 0, time.UTC).UnixMicro()), []string{"body 0", "body 1"}},
	}
	for _, tt := range tests {
		_, _, page := h.do("GET", "/token/"+id+"/requests?"+tt.query, "", "")
		var got []string
		for _, r := range page["data"].([]any) {
			got = append(got, r.(map[string]any)["content"].(string))
		}
		if !cmp.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.query, got, tt.want)
		}
	}
	if status, _, body := h.do("GET", "/token/"+id+"/requests?date_from=yesterday", "", ""); status != 422 || fieldErrors(body)["date_from"] == nil {
		t.Errorf("bad date: %d %v", status, body)
	}
	if status, _, body := h.do("GET", "/token/"+id+"/requests?query=sorting:>x", "", ""); status != 422 || fieldErrors(body)["query"] == nil {
		t.Errorf("sorting:>x: %d %v", status, body)
	}
}

func TestDeleteRequests(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	h.captureN(id, 4)
	if status, header, _ := h.do("DELETE", "/token/"+id+"/requests", "", ""); status != 405 || header.Get("Allow") == "" {
		t.Errorf("plural delete: %d, want 405", status)
	}
	if status, _, body := h.do("DELETE", "/token/"+id+"/request?date_to=2026-11-21+10:00:01", "", ""); status != 200 || body["status"] != true {
		t.Errorf("filtered delete: %d %v", status, body)
	}
	_, _, page := h.do("GET", "/token/"+id+"/requests", "", "")
	if page["total"] != 2.0 {
		t.Errorf("after deleting up to 10:00:01, total = %v, want 2", page["total"])
	}
	h.do("DELETE", "/token/"+id+"/request", "", "")
	if _, _, page := h.do("GET", "/token/"+id+"/requests", "", ""); page["total"] != 0.0 {
		t.Errorf("after deleting all, total = %v", page["total"])
	}
}

func TestLatestAndRaw(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	if status, _, _ := h.do("GET", "/token/"+id+"/request/latest", "", ""); status != 404 {
		t.Errorf("latest of an empty token: %d, want 404", status)
	}
	resp, err := http.Post(h.srv.URL+"/"+id, "application/json; charset=utf-8", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	_, _, latest := h.do("GET", "/token/"+id+"/request/latest", "", "")
	if latest["content"] != `{"a":1}` || latest["query"] != nil {
		t.Errorf("latest: %v", latest)
	}
	raw, err := http.Get(h.srv.URL + "/token/" + id + "/request/latest/raw")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(raw.Body)
	raw.Body.Close()
	if string(body) != `{"a":1}` || raw.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("raw: %q %q", body, raw.Header.Get("Content-Type"))
	}
}

func TestCapture(t *testing.T) {
	h := start(t)
	id := h.create(`{"default_status":202,"default_content":"ok","request_limit":2}`)
	resp, err := http.Get(h.srv.URL + "/" + id + "/418")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 418 || resp.Header.Get("X-Token-Id") != id || resp.Header.Get("X-Request-Id") == "" {
		t.Errorf("capture with a status path: %d %v", resp.StatusCode, resp.Header)
	}
	h.captureN(id, 3)
	_, _, page := h.do("GET", "/token/"+id+"/requests", "", "")
	if page["total"] != 2.0 {
		t.Errorf("request_limit 2 kept %v", page["total"])
	}
	// Any method, any path below the token.
	req, _ := http.NewRequest("PATCH", h.srv.URL+"/"+id+"/a/b/c?x=1", strings.NewReader("p"))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	rid := resp.Header.Get("X-Request-Id")
	_, _, one := h.do("GET", "/token/"+id+"/request/"+rid, "", "")
	if resp.StatusCode != 202 || one["method"] != "PATCH" || one["url"] != h.srv.URL+"/"+id+"/a/b/c?x=1" || one["note"] != nil {
		t.Errorf("PATCH on a sub-path: %d %v", resp.StatusCode, one)
	}
	none := h.create(`{"request_limit":0}`)
	h.captureN(none, 1)
	if _, _, page := h.do("GET", "/token/"+none+"/requests", "", ""); page["total"] != 0.0 {
		t.Errorf("request_limit 0 kept %v", page["total"])
	}
}

// TestMultipart: a multipart capture is kept as the hosted service keeps
// it: no raw body, the fields in request, the files described in files,
// and each file's bytes behind a redirect to storage.
func TestMultipart(t *testing.T) {
	h := start(t)
	id := h.create(`{}`)
	var body strings.Builder
	form := multipart.NewWriter(&body)
	form.WriteField("event", "upload")
	part, _ := form.CreateFormFile("report", "report.csv")
	part.Write([]byte("a,b\n1,2\n"))
	form.Close()
	resp, err := http.Post(h.srv.URL+"/"+id, form.FormDataContentType(), strings.NewReader(body.String()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	rid := resp.Header.Get("X-Request-Id")
	_, _, one := h.do("GET", "/token/"+id+"/request/"+rid, "", "")
	files, _ := one["files"].(map[string]any)
	report, _ := files["report"].(map[string]any)
	want := map[string]any{"id": report["id"], "filename": "report.csv", "name": "report", "size": 8.0, "content_type": "application/octet-stream"}
	if !cmp.Equal(report, want) || report["id"] == nil || one["request"].(map[string]any)["event"] != "upload" {
		t.Errorf("multipart: files %v, request %v", one["files"], one["request"])
	}
	if one["content"] != "" || one["size"] != float64(body.Len()) {
		t.Errorf("content %q, size %v: want no body kept and the size received (%d)", one["content"], one["size"], body.Len())
	}
	if raw := h.get(t, "/token/"+id+"/request/"+rid+"/raw"); string(raw.body) != "" {
		t.Errorf("raw body of a multipart capture: %q, want none", raw.body)
	}
	download := "/token/" + id + "/request/" + rid + "/download/" + report["id"].(string)
	status, header, _ := h.do("GET", download, "", "")
	location := header.Get("Location")
	if status != http.StatusFound || !strings.HasPrefix(location, h.srv.URL+"/storage/") {
		t.Fatalf("download: %d to %q, want 302 to the storage", status, location)
	}
	stored := h.get(t, strings.TrimPrefix(location, h.srv.URL))
	if string(stored.body) != "a,b\n1,2\n" || stored.contentType != "application/octet-stream" {
		t.Errorf("stored file: %q %q", stored.body, stored.contentType)
	}
	if status, _, _ := h.do("GET", "/token/"+id+"/request/"+rid+"/download/00000000-0000-4000-8000-000000000000", "", ""); status != 404 {
		t.Errorf("unknown file: %d, want 404", status)
	}
}

type answer struct {
	status      int
	contentType string
	body        []byte
}

// get reads path without a key and without following redirects.
func (h *harness) get(t *testing.T, path string) answer {
	t.Helper()
	resp, err := http.Get(h.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), body}
}

func TestOmitRequestID(t *testing.T) {
	h := startWith(t, Options{OmitRequestID: true})
	id := h.create(`{}`)
	resp, err := http.Post(h.srv.URL+"/"+id, "text/plain", strings.NewReader("x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("X-Request-Id") != "" || resp.Header.Get("X-Token-Id") != id {
		t.Errorf("headers: %v", resp.Header)
	}
}

func TestFaults(t *testing.T) {
	h := start(t)
	h.fake.Inject(Fault{Method: "GET", Status: 429, RetryAfter: "2"})
	id := h.create(`{}`)
	status, header, _ := h.do("GET", "/token/"+id, "", "")
	if status != 429 || header.Get("Retry-After") != "2" {
		t.Errorf("injected: %d %v", status, header)
	}
	if status, _, _ := h.do("GET", "/token/"+id, "", ""); status != 200 {
		t.Errorf("after the fault: %d", status)
	}
	if got := len(h.fake.Received()); got != 3 {
		t.Errorf("received %d requests, want 3", got)
	}
}
