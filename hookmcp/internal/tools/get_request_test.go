package tools

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/mcptest"
	"github.com/mcpforge/servers/shared/mcptool"
)

func TestGetRequest(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "first")
	body := "{\"event\": \"push\",\n \"ref\": \"main\"}"
	req, _ := http.NewRequest("PUT", h.url+"/"+id+"/hooks/github?delivery=42", bytes.NewBufferString(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	rid := resp.Header.Get("X-Request-Id")
	h.capture(t, id, "POST", "text/plain", "third")
	h.fake.Reset()

	res := h.call(t, "get_request", map[string]any{"token_id": id, "request_id": rid})
	if res.IsError {
		t.Fatal(mcptest.Text(res))
	}
	out := mcptest.Structured(t, res)
	if out["request_id"] != rid || out["method"] != "PUT" || out["body"] != body || out["encoding"] != "text" ||
		out["content_type"] != "application/json" || out["url"] != h.url+"/"+id+"/hooks/github?delivery=42" {
		t.Errorf("structured: %v", out)
	}
	if diff := cmp.Diff(map[string]any{"delivery": "42"}, out["query"]); diff != "" {
		t.Errorf("query (-want +got):\n%s", diff)
	}
	if got := out["headers"].(map[string]any)["x-github-event"]; !cmp.Equal(got, []any{"push"}) {
		t.Errorf("headers[x-github-event] = %v", got)
	}
	if got, framed := mcptool.Unframe(res.Content[2].(*mcp.TextContent).Text); got != body || !framed {
		t.Errorf("the body block holds %q (framed: %v)", got, framed)
	}
	// A client that shows the model only text shows the headers and the
	// query string too.
	contains(t, res.Content[1].(*mcp.TextContent).Text, `"x-github-event":["push"]`, `"query":{"delivery":"42"}`, `"ip":"127.0.0.1"`)
	contains(t, res.Content[0].(*mcp.TextContent).Text, "Request "+rid+": a web request captured at ")
	if diff := cmp.Diff([]string{"GET /token/" + id + "/request/" + rid, "GET /token/" + id + "/request/" + rid + "/raw"}, h.apiCalls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// multipartBody is a form with a field (event=upload) and a file (report,
// report.bin, 3 bytes that are not UTF-8).
func multipartBody() (body, contentType string) {
	var b bytes.Buffer
	form := multipart.NewWriter(&b)
	form.WriteField("event", "upload")
	part, _ := form.CreateFormFile("report", "report.bin")
	part.Write([]byte{0xff, 0x00, 0xfe})
	form.Close()
	return b.String(), form.FormDataContentType()
}

// TestGetRequestMultipart: the hosted service keeps no multipart body, so
// the result says so and names the fields and files instead of showing an
// empty body; file reads an upload's bytes, by its id or its field's name,
// through the service's redirect to storage, which gets no key. (Against
// the fake as it stores multipart captures the way the hosted service does:
// content "", files with ids, a download route.)
func TestGetRequestMultipart(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	body, contentType := multipartBody()
	h.capture(t, id, "POST", contentType, body)
	latest := h.ok(t, "get_latest_request", map[string]any{"token_id": id})
	rid := latest["request_id"].(string)
	res := h.call(t, "get_request", map[string]any{"token_id": id, "request_id": rid})
	out := mcptest.Structured(t, res)
	file := out["files"].(map[string]any)["report"].(map[string]any)
	fileID, _ := file["id"].(string)
	if out["body"] != "" || out["size"] != 0.0 || out["form"].(map[string]any)["event"] != "upload" || file["filename"] != "report.bin" || fileID == "" {
		t.Fatalf("structured: %v", out)
	}
	want := "The service does not keep multipart bodies; fields: event (values in form); files: report (report.bin, 3 bytes, application/octet-stream, id " + fileID + "). get_request with file set to a file's id reads its bytes."
	if out["note"] != want {
		t.Errorf("note = %q\nwant %q", out["note"], want)
	}
	contains(t, mcptest.Text(res), want)
	for _, ref := range []string{fileID, "report"} {
		h.fake.Reset()
		out := h.ok(t, "get_request", map[string]any{"token_id": id, "request_id": rid, "file": ref})
		if out["body"] != "/wD+" || out["encoding"] != "base64" || out["size"] != 3.0 || out["content_type"] != "application/octet-stream" {
			t.Errorf("file %s: %v", ref, out)
		}
		contains(t, out["note"].(string), "The body is the file report (report.bin, 3 bytes, application/octet-stream, id "+fileID+") uploaded in this request")
		var fetched bool
		for _, r := range h.fake.Received() {
			if strings.HasPrefix(r.Path, "/storage/") {
				fetched = true
				if r.Header.Get("Api-Key") != "" {
					t.Errorf("the key was sent to the storage: %s", r)
				}
			}
		}
		if !fetched {
			t.Errorf("file %s: nothing was read from the storage: %v", ref, h.apiCalls())
		}
	}
	h.fake.Reset()
	contains(t, h.failure(t, "get_request", map[string]any{"token_id": id, "request_id": rid, "file": "nope"}),
		`file "nope" is not a file of request `+rid+": its files are: report (report.bin, 3 bytes, application/octet-stream, id "+fileID+"). Pass one of their ids")
	if diff := cmp.Diff([]string{"GET /token/" + id + "/request/" + rid}, h.apiCalls()); diff != "" {
		t.Errorf("calls for an unknown file (-want +got):\n%s", diff)
	}
}

// byHost sends each request to the loopback server standing in for its
// host: the hosted service and a file storage cannot be reached from a
// test. A host it does not know fails the request.
type byHost map[string]*url.URL

func (rt byHost) RoundTrip(req *http.Request) (*http.Response, error) {
	to, ok := rt[req.URL.Host]
	if !ok {
		return nil, fmt.Errorf("no stand-in for host %s", req.URL.Host)
	}
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = to.Scheme, to.Host
	return http.DefaultTransport.RoundTrip(req)
}

// connectHosted connects a server configured for the hosted service
// (https://webhook.site, with HOOKSVC_API_KEY envKey) whose requests go to
// handlers by host: webhook.site's to api, others' to hosts.
func connectHosted(t *testing.T, api http.Handler, hosts map[string]http.Handler) *mcp.ClientSession {
	t.Helper()
	routes := byHost{}
	hosts["webhook.site"] = api
	for host, handler := range hosts {
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		routes[host] = mustParse(t, srv.URL)
	}
	server := NewServer(Options{
		Config: config.Config{APIURL: mustParse(t, "https://webhook.site"), APIKey: envKey, Timeout: 5 * time.Second},
		HTTP:   &http.Client{Transport: routes, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		Logger: slog.New(slog.DiscardHandler), Version: "test",
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	return mcptest.Connect(t, server)
}

// TestGetRequestFileHosted: a file is read through one redirect to https
// storage on another host, which gets neither the key nor a second hop;
// the signed address is never shown; an http address, a second redirect
// and a file over the bound are refused with what happened.
func TestGetRequestFileHosted(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	body, contentType := multipartBody()
	h.capture(t, id, "POST", contentType, body)
	rid := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)

	var mu sync.Mutex
	var location string
	var stored []http.Header
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/download/") {
			mu.Lock()
			defer mu.Unlock()
			if r.Header.Get("Api-Key") != envKey {
				t.Errorf("the download was asked without the key")
			}
			if location == "" {
				w.Write([]byte("served by the API itself"))
				return
			}
			http.Redirect(w, r, location, http.StatusFound)
			return
		}
		h.fake.ServeHTTP(w, r)
	})
	storage := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stored = append(stored, r.Header.Clone())
		mu.Unlock()
		switch r.URL.Path {
		case "/files/report":
			if r.URL.Query().Get("X-Amz-Signature") != "sig-secret" {
				http.Error(w, "bad signature", http.StatusForbidden)
				return
			}
			w.Write([]byte{0xff, 0x00, 0xfe})
		case "/again":
			http.Redirect(w, r, "https://files.example/files/report", http.StatusFound)
		case "/big":
			w.Write(bytes.Repeat([]byte("x"), 10<<20+1))
		}
	})
	session := connectHosted(t, api, map[string]http.Handler{"files.example": storage})
	get := func(loc string) *mcp.CallToolResult {
		mu.Lock()
		location, stored = loc, nil
		mu.Unlock()
		return mcptest.Call(t, context.Background(), session, "get_request", map[string]any{"token_id": id, "request_id": rid, "file": "report"})
	}
	stores := func() []http.Header {
		mu.Lock()
		defer mu.Unlock()
		return stored
	}

	res := get("https://files.example/files/report?X-Amz-Signature=sig-secret")
	out := mcptest.Structured(t, res)
	if res.IsError || out["body"] != "/wD+" || out["size"] != 3.0 {
		t.Fatalf("file: %s", mcptest.Text(res))
	}
	if got := stores(); len(got) != 1 || got[0].Get("Api-Key") != "" || got[0].Get("Cookie") != "" {
		t.Errorf("the storage got %v, want one request without the key", got)
	}
	if text := mcptest.Text(res) + fmt.Sprint(out); strings.Contains(text, "sig-secret") || strings.Contains(text, envKey) {
		t.Errorf("the result shows the signed address or the key: %s", text)
	}

	// A server that answers with the file itself, without a redirect.
	if out := mcptest.Structured(t, get("")); out["body"] != "served by the API itself" || len(stores()) != 0 {
		t.Errorf("a file served without a redirect: %v", out)
	}

	for loc, want := range map[string]string{
		"http://files.example/files/report?X-Amz-Signature=sig-secret": "the capture API sent the file's address as http://files.example/files/report, which is not https: hookmcp follows the storage redirect only to https",
		"https://files.example/again":                                  "the file's storage at files.example redirected again (HTTP 302); hookmcp follows one redirect only, so nothing was fetched",
		"https://files.example/big":                                    "the file is over 10 MiB",
	} {
		res := get(loc)
		if !res.IsError {
			t.Errorf("%s: succeeded: %s", loc, mcptest.Text(res))
			continue
		}
		contains(t, mcptest.Text(res), "Downloading file ", " of request "+rid+" of token "+id+" failed: ", want)
		if strings.Contains(mcptest.Text(res), "sig-secret") {
			t.Errorf("%s: the error shows the signature: %s", loc, mcptest.Text(res))
		}
		if strings.HasPrefix(loc, "http:") && len(stores()) != 0 {
			t.Errorf("the http address was fetched")
		}
		if strings.HasSuffix(loc, "/again") && len(stores()) != 1 {
			t.Errorf("the second redirect was followed: %d requests", len(stores()))
		}
	}
}

func TestGetRequestUnknown(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	missing := "00000000-0000-4000-8000-000000000001"
	contains(t, h.failure(t, "get_request", map[string]any{"token_id": id, "request_id": missing}),
		"request "+missing+" of token "+id+" was not found or expired (HTTP 404)", "list_requests shows the token's request ids")
}

// TestGetRequestJustCaptured: a request read a moment after its capture
// may answer 404 while the service stores it; get_request reads it again,
// on the injected clock, a bounded number of times before saying it does
// not exist.
func TestGetRequestJustCaptured(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "fresh")
	rid := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)
	h.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: 404, Times: 2})
	if out := h.ok(t, "get_request", map[string]any{"token_id": id, "request_id": rid}); out["body"] != "fresh" {
		t.Errorf("after two 404s: %v", out)
	}
	if diff := cmp.Diff([]time.Duration{250 * time.Millisecond, 500 * time.Millisecond}, h.recordedWaits()); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	h.fake.Reset()
	missing := "00000000-0000-4000-8000-000000000001"
	contains(t, h.failure(t, "get_request", map[string]any{"token_id": id, "request_id": missing}),
		"request "+missing+" of token "+id+" was not found or expired (HTTP 404)", "list_requests shows the token's request ids. It was read 5 times over 2.75s, since a request just captured may take a moment to be stored")
	if got := len(h.apiCalls()); got != 5 {
		t.Errorf("%d reads of an unknown request, want 5", got)
	}
}

// emailObject turns a request object into what the hosted service shows of
// an email: no method, url or query; sender, destinations, text and html
// content; the subject in its headers.
func emailObject(obj map[string]any, to string) {
	maps.Copy(obj, map[string]any{
		"type": "email", "method": nil, "url": nil, "query": nil, "hostname": "emailhook.site",
		"sender": "Alice <alice@example.com>", "destinations": []any{to, "bob@example.com"},
		"message_id": "m-1@example.com", "checks": map[string]any{"spf": true},
		"text_content": "Invoice 42 is due.", "html_content": "<p>Invoice 42 is due.</p>",
		"headers": map[string]any{"subject": []any{"Invoice 42"}, "from": []any{"Alice <alice@example.com>"}},
	})
}

// TestEmailCapture: an email capture's result keeps its sender,
// destinations, subject, text and html content, and its summary says
// whose mail it is.
func TestEmailCapture(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{envKey, callKey}})
	url := proxyFake(t, fake, nil, func(r *http.Request, obj map[string]any) {
		if data, ok := obj["data"].([]any); ok {
			for _, item := range data {
				emailObject(item.(map[string]any), "to@emailhook.site")
			}
		} else if strings.Contains(r.URL.Path, "/request/") {
			emailObject(obj, "to@emailhook.site")
		}
	})
	h := serve(t, fake, url, config.Config{})
	id := h.createToken(t, nil)
	source := "From: Alice <alice@example.com>\r\nSubject: Invoice 42\r\n\r\nInvoice 42 is due."
	h.capture(t, id, "POST", "text/plain", source)
	want := map[string]any{
		"sender": "Alice <alice@example.com>", "destinations": []any{"to@emailhook.site", "bob@example.com"}, "subject": "Invoice 42",
		"text_content": "Invoice 42 is due.", "html_content": "<p>Invoice 42 is due.</p>",
	}
	for _, tool := range []string{"get_latest_request", "get_request"} {
		args := map[string]any{"token_id": id}
		if tool == "get_request" {
			args["request_id"] = h.ok(t, "get_latest_request", args)["request_id"]
		}
		res := h.call(t, tool, args)
		out := mcptest.Structured(t, res)
		if diff := cmp.Diff(want, out["email"]); diff != "" || out["type"] != "email" || out["body"] != source {
			t.Errorf("%s: email (-want +got):\n%s\n%v", tool, diff, out)
		}
		contains(t, mcptest.Text(res), `: an email captured at `, `"sender":"Alice <alice@example.com>","destinations":["to@emailhook.site","bob@example.com"],"subject":"Invoice 42"`, `"text_content":"Invoice 42 is due."`)
	}
}

// TestOtherCaptures: email and DNS captures, as the fake stores them the
// way the hosted service does, read whole: an email's sender,
// destinations, subject, text and html; a lookup's name and type; and a
// request read just after its capture, while the service answers 404 for
// it, is read again until it is there.
func TestOtherCaptures(t *testing.T) {
	h := connectFake(t, fakehooksvc.Options{NotYetStored: 2}, config.Config{})
	id := h.createToken(t, nil)
	rid, err := h.fake.CaptureEmail(id, fakehooksvc.Email{From: "alice@example.com", Subject: "Invoice 42", Text: "Due today.", HTML: "<p>Due today.</p>"})
	if err != nil {
		t.Fatal(err)
	}
	res := h.call(t, "get_request", map[string]any{"token_id": id, "request_id": rid})
	out := mcptest.Structured(t, res)
	want := map[string]any{
		"sender": "alice@example.com", "destinations": []any{fakehooksvc.EmailAddress(id)}, "subject": "Invoice 42",
		"text_content": "Due today.", "html_content": "<p>Due today.</p>",
	}
	if diff := cmp.Diff(want, out["email"]); diff != "" || out["type"] != "email" {
		t.Errorf("email (-want +got):\n%s\n%v", diff, out)
	}
	contains(t, mcptest.Text(res), "Request "+rid+": an email captured at ", `"sender":"alice@example.com","destinations":["`+fakehooksvc.EmailAddress(id)+`"],"subject":"Invoice 42"`)
	if got := len(h.recordedWaits()); got != 2 {
		t.Errorf("%d waits before the email was read, want 2", got)
	}

	rid, err = h.fake.CaptureDNS(id, fakehooksvc.DNSLookup{Name: "probe", Type: "TXT"})
	if err != nil {
		t.Fatal(err)
	}
	res = h.call(t, "get_request", map[string]any{"token_id": id, "request_id": rid})
	out = mcptest.Structured(t, res)
	if out["type"] != "dns" || out["method"] != "TXT" || out["email"] != nil {
		t.Errorf("dns: %v", out)
	}
	contains(t, mcptest.Text(res), "Request "+rid+": a DNS lookup captured at ", "A DNS TXT lookup of probe."+fakehooksvc.DNSName(id)+".")
}

// TestGetRequestStorageAddressHoldingKeyRefused: a storage address that
// carries the configured key or the call's (in any case: an API that signs
// storage URLs with the caller's key, or a hostile one echoing it) is not
// followed, the error says why, and no log line holds the key.
func TestGetRequestStorageAddressHoldingKeyRefused(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	body, contentType := multipartBody()
	h.capture(t, id, "POST", contentType, body)
	rid := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)

	var mu sync.Mutex
	var stored []string
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/download/") {
			k := r.Header.Get("Api-Key")
			http.Redirect(w, r, "https://files.example/files/"+strings.ToUpper(k)+"?token="+k, http.StatusFound)
			return
		}
		h.fake.ServeHTTP(w, r)
	})
	storage := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		stored = append(stored, r.URL.String())
		mu.Unlock()
		w.Write([]byte("ok"))
	})
	routes := byHost{}
	for host, handler := range map[string]http.Handler{"webhook.site": api, "files.example": storage} {
		srv := httptest.NewServer(handler)
		t.Cleanup(srv.Close)
		routes[host] = mustParse(t, srv.URL)
	}
	logs := &mcptest.SyncBuffer{}
	server := NewServer(Options{
		Config: config.Config{APIURL: mustParse(t, "https://webhook.site"), APIKey: envKey, Timeout: 5 * time.Second},
		HTTP:   &http.Client{Transport: routes, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), Version: "test",
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	session := mcptest.Connect(t, server)
	for _, key := range []string{"", callKey} {
		args := map[string]any{"token_id": id, "request_id": rid, "file": "report"}
		if key != "" {
			args["api_key"] = key
		}
		res := mcptest.Call(t, context.Background(), session, "get_request", args)
		text := mcptest.Text(res)
		if !res.IsError || !strings.Contains(text, "holding the API key") || !strings.Contains(text, "nothing was fetched") {
			t.Errorf("api_key %q: want a refusal naming the key in the storage address, got isError=%v %s", key, res.IsError, text)
		}
		if strings.Contains(strings.ToLower(text), strings.ToLower(envKey)) || strings.Contains(strings.ToLower(text), strings.ToLower(callKey)) {
			t.Errorf("api_key %q: the error shows a key: %s", key, text)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(stored) != 0 {
		t.Errorf("the storage host was asked for %q; want nothing fetched", stored)
	}
	for _, line := range strings.Split(strings.ToLower(logs.String()), "\n") {
		if strings.Contains(line, strings.ToLower(envKey)) || strings.Contains(line, strings.ToLower(callKey)) {
			t.Errorf("a log line holds a key: %s", line)
		}
	}
}

// loopbackResolver resolves every name to 127.0.0.1: loopback servers
// stand in for hosts with public names.
type loopbackResolver struct{}

func (loopbackResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
}

// TestGetRequestStorageOnInternalAddressRefused: with the API on a public
// name, the storage hop to a loopback, private, link-local, metadata or
// shared address (by IP, or by a name resolving to one) is refused before
// any connection, saying why; the API's own calls are not held to that.
func TestGetRequestStorageOnInternalAddressRefused(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	body, contentType := multipartBody()
	h.capture(t, id, "POST", contentType, body)
	rid := h.ok(t, "get_latest_request", map[string]any{"token_id": id})["request_id"].(string)
	var mu sync.Mutex
	location := ""
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/download/") {
			mu.Lock()
			defer mu.Unlock()
			http.Redirect(w, r, location, http.StatusFound)
			return
		}
		h.fake.ServeHTTP(w, r)
	}))
	t.Cleanup(api.Close)
	base := "http://api.example:" + mustParse(t, api.URL).Port()
	server := NewServer(Options{
		Config: config.Config{APIURL: mustParse(t, base), Timeout: 5 * time.Second},
		HTTP:   newHTTPClient("hookmcp-test", loopbackResolver{}),
		Logger: slog.New(slog.DiscardHandler), Version: "test",
		Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() },
	})
	session := mcptest.Connect(t, server)
	for _, loc := range []string{
		"https://files.example/f", "https://127.0.0.1:1/f", "https://[::1]/f", "https://169.254.169.254/latest/meta-data",
		"https://10.0.0.7/f", "https://192.168.1.1/f", "https://100.100.100.200/f", "https://[fd00:ec2::254]/f", "https://[::ffff:127.0.0.1]/f",
	} {
		mu.Lock()
		location = loc
		mu.Unlock()
		res := mcptest.Call(t, context.Background(), session, "get_request", map[string]any{"token_id": id, "request_id": rid, "file": "report"})
		text := mcptest.Text(res)
		if !res.IsError || !strings.Contains(text, "only when the capture API itself is on one") || !strings.Contains(text, "nothing was fetched") {
			t.Errorf("storage at %s: want a refusal of the address, got isError=%v %s", loc, res.IsError, text)
		}
	}
}

// TestGetRequestFileIDBounded: a file id the API gives is sent only when
// of a sane length, and errors quote it bounded and escaped.
func TestGetRequestFileIDBounded(t *testing.T) {
	h := connect(t, config.Config{})
	long := strings.Repeat("i\"d", 2000)
	item := `{"uuid":"` + someToken + `","method":"POST","sorting":1,"content":"","files":{"f":{"id":"` + strings.ReplaceAll(long, `"`, `\"`) + `","filename":"a.txt"}}}`
	api := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, 200, "application/json", item)), APIKey: envKey})
	got := api.failure(t, "get_request", map[string]any{"token_id": someToken, "request_id": someToken, "file": "f"})
	contains(t, got, "an id of 6000 bytes", "nothing was fetched", `"i\"di\"d`)
	if len(got) > 1_000 {
		t.Errorf("the error is %d bytes: %.300s", len(got), got)
	}
}
