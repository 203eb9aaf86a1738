package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
)

func TestRequestsResourceAllPages(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	for i := range 205 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprint(i))
	}
	h.fake.Reset()
	uri := "hooksvc://token/" + id + "/requests"
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" || res.Contents[0].URI != uri {
		t.Fatalf("contents: %+v", res.Contents)
	}
	var all []map[string]any
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &all); err != nil {
		t.Fatal(err)
	}
	if len(all) != 205 || all[0]["content"] != "0" || all[204]["content"] != "204" {
		t.Errorf("got %d requests, first %v last %v; want 205 oldest first", len(all), all[0]["content"], all[len(all)-1]["content"])
	}
	var pages []string
	for _, r := range h.fake.Received() {
		if r.Header.Get("Api-Key") != envKey {
			t.Errorf("a read went without HOOKSVC_API_KEY")
		}
		pages = append(pages, r.Query.Encode())
	}
	want := []string{}
	for p := 1; p <= 3; p++ {
		want = append(want, url.Values{"sorting": {"oldest"}, "per_page": {"100"}, "page": {fmt.Sprint(p)}}.Encode())
	}
	// Pages 2 and 3 are read at once: each once, in any order.
	slices.Sort(pages)
	if diff := cmp.Diff(want, pages); diff != "" {
		t.Errorf("pages read (-want +got):\n%s", diff)
	}
}

func TestRequestsResourceEmpty(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + id + "/requests"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Contents[0].Text != "[]" {
		t.Errorf("text = %q, want []", res.Contents[0].Text)
	}
}

func TestRequestsResourceErrors(t *testing.T) {
	h := connect(t, config.Config{})
	deleted := h.createToken(t, nil)
	h.ok(t, "delete_token", map[string]any{"token_id": deleted})
	for _, id := range []string{"00000000-0000-4000-8000-000000000000", deleted} {
		_, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + id + "/requests"})
		var wire *jsonrpc.Error
		// This client speaks 2026-07-28, where a missing resource is -32602.
		if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("token %s: err = %v, want resource not found as -32602", id, err)
		}
		contains(t, wire.Message, "Resource not found", "was deleted or has expired", "check its UUID")
		if !strings.Contains(string(wire.Data), `"uri":"hooksvc://token/`+id+`/requests"`) {
			t.Errorf("data = %s, want the URI", wire.Data)
		}
	}
	private := h.createToken(t, map[string]any{"api_key": callKey})
	_, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + private + "/requests"})
	var auth *jsonrpc.Error
	if !errors.As(err, &auth) || auth.Code != jsonrpc.CodeInternalError {
		t.Fatalf("a private token without a key: err = %v, want -32603", err)
	}
	contains(t, auth.Message, "set it in hookmcp's environment")
	if strings.Contains(auth.Message, "pass api_key") || strings.Contains(auth.Message, callKey) {
		t.Errorf("the advice is one a resource cannot follow, or holds the key: %s", auth.Message)
	}
	h.fake.Reset()
	_, err = h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/my-alias/requests"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("alias: err = %v, want invalid params", err)
	}
	contains(t, wire.Message, "token_id must be a token UUID", "does not accept a token's alias", "pass the token's UUID")
	if got := h.fake.Received(); len(got) != 0 {
		t.Errorf("a bad URI reached the API: %v", got)
	}
}

// TestRequestsResourcePastedToken: the token in the URI may be written as
// a user pastes it: its UUID in any case, its DNS name, or percent-encoded
// (encodeURIComponent) its email address or capture URL; each reads the
// token's requests. A URL of another service is refused without a call.
func TestRequestsResourcePastedToken(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "pasted")
	for _, token := range []string{strings.ToUpper(id), "x." + id + ".dnshook.site", url.QueryEscape(h.url + "/" + id + "/hook?a=b"), url.QueryEscape(id + "@emailhook.site")} {
		uri := "hooksvc://token/" + token + "/requests"
		res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err != nil || !strings.Contains(res.Contents[0].Text, `"content":"pasted"`) || !strings.Contains(res.Contents[0].Text, id) {
			t.Errorf("%s: %v %+v", uri, err, res)
		}
	}
	h.fake.Reset()
	_, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + url.QueryEscape("https://elsewhere.example/"+id) + "/requests"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || !strings.Contains(wire.Message, "HOOKSVC_API_URL") {
		t.Errorf("another service's URL: err = %v", err)
	}
	if got := h.fake.Received(); len(got) != 0 {
		t.Errorf("a refused URI reached the API: %v", got)
	}
}

// TestRequestsResourceNotFoundByVersion: not found is one code per
// protocol version, whether the token is unknown or the URI names no
// resource of this server: -32002 before 2026-07-28, -32602 from it.
func TestRequestsResourceNotFoundByVersion(t *testing.T) {
	h := connect(t, config.Config{})
	for version, want := range map[string]int64{"2025-06-18": -32002, "2025-11-25": -32002, mcptool.NotFoundInvalidParamsSince: jsonrpc.CodeInvalidParams} {
		server := NewServer(Options{Config: config.Config{APIURL: mustParse(t, h.url), Timeout: 5 * time.Second}, HTTP: NewHTTPClient("t"), Logger: slog.New(slog.DiscardHandler), Version: "test"})
		clientTransport, serverTransport := mcp.NewInMemoryTransports()
		if _, err := server.Connect(context.Background(), serverTransport, nil); err != nil {
			t.Fatal(err)
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
		session, err := client.Connect(context.Background(), clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { session.Close() })
		for _, uri := range []string{"hooksvc://token/00000000-0000-4000-8000-000000000000/requests", "file:///etc/passwd", "hooksvc://tokens"} {
			_, err = session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
			var wire *jsonrpc.Error
			if !errors.As(err, &wire) || wire.Code != want || !strings.Contains(wire.Message, "Resource not found: "+uri) {
				t.Errorf("%s, %s: err = %v, want resource not found as %d", version, uri, err, want)
			}
		}
	}
}

func TestResourceListing(t *testing.T) {
	h := connect(t, config.Config{})
	templates, err := h.session.ListResourceTemplates(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(templates.ResourceTemplates) != 1 || templates.ResourceTemplates[0].URITemplate != "hooksvc://token/{token_id}/requests" {
		t.Errorf("templates: %+v", templates.ResourceTemplates)
	}
	resources, err := h.session.ListResources(context.Background(), nil)
	if err != nil || len(resources.Resources) != 0 {
		t.Errorf("without a default token: %v %+v", err, resources)
	}
	id := h.createToken(t, nil)
	withDefault := h.reconnect(t, config.Config{TokenID: id})
	resources, err = withDefault.session.ListResources(context.Background(), nil)
	if err != nil || len(resources.Resources) != 1 || resources.Resources[0].URI != "hooksvc://token/"+id+"/requests" {
		t.Errorf("with a default token: %v %+v", err, resources)
	}
}

// TestRequestsResourceBudget: a token full of large requests gives a
// resource no larger than --resource-max-bytes; pages past the budget are
// not fetched, and a note counts what was left out and names the
// list_requests call that reads it. (1,000 requests of 150 KB once gave a
// 301 MB text and 2.5 GiB of memory.)
func TestRequestsResourceBudget(t *testing.T) {
	h := connect(t, config.Config{ResourceMaxBytes: config.MinResourceMaxBytes})
	id := h.createToken(t, nil)
	for i := range 250 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprintf("%03d:%s", i, strings.Repeat("x", 1_000)))
	}
	h.fake.Reset()
	uri := "hooksvc://token/" + id + "/requests"
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Contents) != 2 || len(res.Contents[0].Text) > config.MinResourceMaxBytes {
		t.Fatalf("%d contents, first %d bytes", len(res.Contents), len(res.Contents[0].Text))
	}
	var kept []map[string]any
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &kept); err != nil {
		t.Fatal(err)
	}
	if n := len(h.fake.Received()); n != 1 {
		t.Errorf("%d pages fetched, want 1: the budget is reached within the first", n)
	}
	note := res.Contents[1].Text
	contains(t, note, fmt.Sprintf("the oldest %d of the token's 250 requests", len(kept)), fmt.Sprintf("the other %d were left out", 250-len(kept)), "--resource-max-bytes")
	var perPage, page int
	if _, err := fmt.Sscanf(note[strings.Index(note, "per_page "):], "per_page %d, from page %d", &perPage, &page); err != nil {
		t.Fatalf("no per_page/page in %q", note)
	}
	next := h.ok(t, "list_requests", map[string]any{"token_id": id, "sorting": "oldest", "per_page": perPage, "page": page})
	first := next["data"].([]any)[0].(map[string]any)["content"].(string)
	if want := fmt.Sprintf("%03d:", len(kept)); !strings.HasPrefix(first, want) {
		t.Errorf("the note's page starts at %.4q, want the first left out (%s)", first, want)
	}
	if _, cut := next["note"]; cut {
		t.Errorf("the note's per_page %d overflows list_requests: %v", perPage, next["note"])
	}
}

// TestRequestsResourceHostileTotal: a page that claims more requests than
// any token holds (as an int, the largest there is) neither crashes the read
// nor sizes its memory past the budget; the text holds what the page holds.
func TestRequestsResourceHostileTotal(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, nil)
	h.fake.Inject(fakehooksvc.Fault{Method: "GET", Status: 200,
		Body: `{"data":[{"uuid":"0a0b0c0d-0000-4000-8000-000000000001","content":"x"}],"total":9223372036854775807,"per_page":100,"current_page":1,"is_last_page":true}`})
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + id + "/requests"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contents[0].Text; got != `[{"uuid":"0a0b0c0d-0000-4000-8000-000000000001","content":"x"}]` {
		t.Errorf("text = %s", got)
	}
}

// TestRequestsResourceKeyRefused: a read of a token private to another
// account says the key in HOOKSVC_API_KEY was refused when one is set, and
// asks for one when none is; neither error holds a key.
func TestRequestsResourceKeyRefused(t *testing.T) {
	h := connect(t, config.Config{})
	id := h.createToken(t, map[string]any{"api_key": callKey})
	uri := "hooksvc://token/" + id + "/requests"
	for _, tc := range []struct {
		key  string
		want string
	}{
		{envKey, "refused the key in HOOKSVC_API_KEY"},
		{"", "set it in hookmcp's environment"},
	} {
		other := h.reconnect(t, config.Config{APIKey: tc.key})
		_, err := other.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		var wire *jsonrpc.Error
		if !errors.As(err, &wire) || !strings.Contains(wire.Message, tc.want) || strings.Contains(wire.Message, envKey) || strings.Contains(wire.Message, callKey) {
			t.Errorf("key %q: err = %v, want %q and no key", tc.key, err, tc.want)
		}
	}
}

// wantResourceText is the resource's text as the server read it one page
// at a time before it read them at once and wrote them encoded: each
// request of the API's pages, oldest first, its escapes respelled
// (jsonx.Unescape) and compacted (json.Compact), in one JSON array.
func wantResourceText(t *testing.T, h *harness, id string) string {
	t.Helper()
	var items []string
	for page := 1; ; page++ {
		resp, err := http.Get(fmt.Sprintf("%s/token/%s/requests?sorting=oldest&per_page=100&page=%d", h.url, id, page))
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Data       []json.RawMessage `json:"data"`
			IsLastPage bool              `json:"is_last_page"`
		}
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range p.Data {
			var item bytes.Buffer
			if err := json.Compact(&item, jsonx.Unescape(d)); err != nil {
				t.Fatal(err)
			}
			items = append(items, item.String())
		}
		if p.IsLastPage || len(p.Data) == 0 {
			return "[" + strings.Join(items, ",") + "]"
		}
	}
}

// readAs reads uri in a session of the given protocol version.
func readAs(t *testing.T, h *harness, cfg config.Config, version, uri string) *mcp.ReadResourceResult {
	t.Helper()
	cfg.APIURL, cfg.Timeout = mustParse(t, h.url), 5*time.Second
	server := NewServer(Options{Config: cfg, HTTP: NewHTTPClient("t"), Logger: slog.New(slog.DiscardHandler), Version: "test"})
	clientTransport, serverTransport := mcp.NewInMemoryTransports()
	if _, err := server.Connect(context.Background(), serverTransport, nil); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	res, err := session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRequestsResourceText: the text written straight into its encoding
// reads back as the text of one page at a time, byte for byte, whatever
// the requests hold (escapes a PHP server writes, quotes, backslashes,
// control characters, U+2028, HTML's characters, emoji), in every protocol
// version; the result keeps what the SDK puts around it (its _meta in the
// protocol versions that have one), and a cut read its note.
func TestRequestsResourceText(t *testing.T) {
	h := connectFake(t, fakehooksvc.Options{PHPEscapes: true}, config.Config{})
	id := h.createToken(t, nil)
	bodies := []string{`{"a":"b\"c","path":"/x/y","e":"é😀"}`, "tab\there\nnew line\u2028sep", `back\slash <b>&amp;</b>`, "\x01\x1f", ""}
	for i := range 230 {
		h.capture(t, id, "POST", "application/json", bodies[i%len(bodies)]+strconv.Itoa(i))
	}
	want := wantResourceText(t, h, id)
	uri := requestsURI(id)
	for _, version := range []string{"2025-06-18", "2025-11-25", mcptool.NotFoundInvalidParamsSince} {
		res := readAs(t, h, config.Config{}, version, uri)
		if len(res.Contents) != 1 || res.Contents[0].Text != want || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "application/json" {
			t.Fatalf("%s: %d contents, text of %d bytes, want %d bytes as one page at a time wrote it", version, len(res.Contents), len(res.Contents[0].Text), len(want))
		}
		if _, ok := res.Meta[mcp.MetaKeyServerInfo]; ok != (version == mcptool.NotFoundInvalidParamsSince) {
			t.Errorf("%s: _meta = %v", version, res.Meta)
		}
	}
	cut := readAs(t, h, config.Config{ResourceMaxBytes: config.MinResourceMaxBytes}, mcptool.NotFoundInvalidParamsSince, uri)
	var kept []json.RawMessage
	if len(cut.Contents) != 2 || json.Unmarshal([]byte(cut.Contents[0].Text), &kept) != nil || !strings.HasPrefix(want, strings.TrimSuffix(cut.Contents[0].Text, "]")) {
		t.Fatalf("a cut read: %d contents, not the start of the whole text", len(cut.Contents))
	}
	contains(t, cut.Contents[1].Text, fmt.Sprintf("the oldest %d of the token's 230 requests", len(kept)))
}

// TestRequestsResourceOverStdio: over stdio, where the result's encoding is
// written to the output as it is (app.Verbatim) instead of being encoded
// again by the SDK, the answer's line is byte for byte what the SDK writes
// for the same result (encoded by the SDK itself in an in-memory session),
// whole and cut, the text holding everything a JSON string escapes.
func TestRequestsResourceOverStdio(t *testing.T) {
	h := connectFake(t, fakehooksvc.Options{PHPEscapes: true}, config.Config{})
	id := h.createToken(t, nil)
	bodies := []string{`{"a":"b\"c","path":"/x/y","e":"é😀"}`, "tab\there\nnew line\u2028sep", `back\slash <b>&amp;</b>`, "\x01\x1f", ""}
	for i := range 230 {
		body := bodies[i%len(bodies)] + strconv.Itoa(i)
		if i%100 == 50 {
			// Longer than a chunk of the text: one of its own.
			body = strings.Repeat(`"x"`, chunkSize/3)
		}
		h.capture(t, id, "POST", "application/json", body)
	}
	uri := requestsURI(id)
	for _, cfg := range []config.Config{{ResourceMaxBytes: config.MaxResourceMaxBytes}, {ResourceMaxBytes: config.MinResourceMaxBytes}} {
		cfg.APIURL, cfg.Timeout = mustParse(t, h.url), time.Minute
		sdk := sdkEncodedRead(t, cfg, uri)
		line, verbatim := readOverStdio(t, cfg, uri)
		if want := `{"jsonrpc":"2.0","id":2,"result":` + string(sdk) + "}\n"; line != want {
			t.Errorf("limit %d: the stdio answer (%d bytes) differs from the SDK's encoding (%d bytes) at byte %d: %.80q",
				cfg.ResourceMaxBytes, len(line), len(want), firstDifference(line, want), line[min(firstDifference(line, want), len(line)):])
		}
		if !verbatim {
			t.Errorf("limit %d: the stdio session gave the handler no app.Verbatim", cfg.ResourceMaxBytes)
		}
	}
}

// stdioProtocol is the protocol version both sessions of
// TestRequestsResourceOverStdio speak: one whose results have a _meta.
const stdioProtocol = mcptool.NotFoundInvalidParamsSince

// sdkEncodedRead reads uri in an in-memory session and returns the
// result as the SDK encodes it for the wire (jsonrpc2 encodes a result
// with an Encoder that does not escape HTML).
func sdkEncodedRead(t *testing.T, cfg config.Config, uri string) []byte {
	t.Helper()
	server := NewServer(Options{Config: cfg, HTTP: NewHTTPClient("t"), Logger: slog.New(slog.DiscardHandler), Version: "test"})
	var encoded []byte
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "resources/read" && err == nil {
				var buf bytes.Buffer
				enc := json.NewEncoder(&buf)
				enc.SetEscapeHTML(false)
				if err := enc.Encode(res); err != nil {
					t.Error(err)
				}
				encoded = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
			}
			return res, err
		}
	})
	clientTransport, serverTransport := mcp.NewInMemoryTransports()
	if _, err := server.Connect(context.Background(), serverTransport, nil); err != nil {
		t.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil).Connect(context.Background(), clientTransport, &mcp.ClientSessionOptions{ProtocolVersion: stdioProtocol})
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	if _, err := session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	return encoded
}

// readOverStdio reads uri from a server run by app.Run over in-process
// pipes, as the hookmcp binary serves stdio, and returns the answer's line
// and whether the handler was given the session's app.Verbatim.
func readOverStdio(t *testing.T, cfg config.Config, uri string) (line string, verbatim bool) {
	t.Helper()
	spec := app.Spec{Name: "hookmcp", EnvPrefix: "HOOKSVC", Build: func(context.Context, *cli.Command, app.Env) (*mcp.Server, error) {
		server := NewServer(Options{Config: cfg, HTTP: NewHTTPClient("t"), Logger: slog.New(slog.DiscardHandler), Version: "test"})
		server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "resources/read" {
					verbatim = app.VerbatimFrom(ctx) != nil
				}
				return next(ctx, method, req)
			}
		})
		return server, nil
	}}
	clientToServer, in := io.Pipe()
	serverOut, serverToClient := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- app.Run(context.Background(), spec, []string{"hookmcp", "--log-level", "error"}, app.Streams{Stdin: clientToServer, Stdout: serverToClient, Stderr: io.Discard})
		serverToClient.Close()
	}()
	go func() {
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n", stdioProtocol)
		fmt.Fprintf(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":%q}}`+"\n", uri)
	}()
	out := bufio.NewReaderSize(serverOut, 1<<20)
	for {
		next, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to the read: %v", err)
		}
		if strings.HasPrefix(next, `{"jsonrpc":"2.0","id":2,`) {
			line = next
			break
		}
	}
	in.Close()
	io.Copy(io.Discard, out)
	<-done
	return line, verbatim
}

func firstDifference(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestRequestsResourceCutLater: a read whose budget runs out in a later
// page reads the pages up to that one and no page after it.
func TestRequestsResourceCutLater(t *testing.T) {
	h := connect(t, config.Config{ResourceMaxBytes: 200_000})
	id := h.createToken(t, nil)
	for i := range 700 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprint(i))
	}
	h.fake.Reset()
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: requestsURI(id)})
	if err != nil {
		t.Fatal(err)
	}
	var kept []json.RawMessage
	if len(res.Contents) != 2 || json.Unmarshal([]byte(res.Contents[0].Text), &kept) != nil {
		t.Fatalf("%d contents, want the text and the note", len(res.Contents))
	}
	cutPage := len(kept)/resourcePerPage + 1
	if cutPage < 2 {
		t.Fatalf("the cut is in page %d: make the requests smaller", cutPage)
	}
	var pages []string
	for _, r := range h.fake.Received() {
		pages = append(pages, r.Query.Get("page"))
	}
	slices.Sort(pages)
	var want []string
	for p := 1; p <= cutPage; p++ {
		want = append(want, strconv.Itoa(p))
	}
	slices.Sort(want)
	if !slices.Equal(pages, want) {
		t.Errorf("pages read %v; want %v: the cut is in page %d (%d requests kept)", pages, want, cutPage, len(kept))
	}
}

// TestRequestsResourceFailsMidway: a page that fails after others were
// read fails the whole read with its error, as a read of one page at a
// time did: nothing is half answered.
func TestRequestsResourceFailsMidway(t *testing.T) {
	fake := fakehooksvc.New(fakehooksvc.Options{})
	failing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("page") == "3" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprint(w, `{"success":false,"error":{"message":"the database is away","id":null}}`)
			return
		}
		fake.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(failing)
	t.Cleanup(srv.Close)
	h := serve(t, fake, srv.URL, config.Config{})
	id := h.createToken(t, nil)
	for i := range 450 {
		h.capture(t, id, "POST", "text/plain", fmt.Sprint(i))
	}
	_, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: requestsURI(id)})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInternalError || !strings.Contains(wire.Message, "the database is away") {
		t.Fatalf("err = %v, want page 3's error", err)
	}
}

// FuzzResourceItem holds compactItem to what the resource wrote before it
// skipped jsonx.Unescape on requests that need none and compacted them
// itself: json.Compact(jsonx.Unescape(item)), for any JSON value, of the
// request as results show it (requestItem).
func FuzzResourceItem(f *testing.F) {
	for _, seed := range []string{
		`{"content":"b\"c","url":"\/x\u00e9\ud83d\ude00"}`, `{ "content" : [ 1 , 2 ] ,"method":"\b\f\n\r\t\\"}`, "{\"content\":\"\xff\"}", `{"content":"\ud800"}`,
		`{"content":"\u2028 \u003c"}`, "{\"content\":\"\u2028\"}", `[1, 2]`, `"x"`, `{"content":"\\u0041"}`, `{"content":"\\/"}`,
		`{"team_id":"t","content":"\/y","size":1e400}`, `{"te\u0061m_id":"t","\u0063ontent":"y","\u0063ontent\u0000":"z"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, item []byte) {
		if !json.Valid(item) {
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, jsonx.Unescape(requestItem(item))); err != nil {
			t.Fatal(err)
		}
		// dst holds what the text held before.
		before := []byte(`[{"url":"https://left.over/from/the/last/request"},`)
		if got := compactItem(before, item); !bytes.Equal(got[len(before):], want.Bytes()) || !bytes.HasPrefix(got, before) {
			t.Fatalf("compactItem(%q) = %q, want %q", item, got[len(before):], want.Bytes())
		}
	})
}

// TestResourceItemAllocatesNothing: a request as the hosted service writes
// it (every / escaped, letters beyond ASCII as \u escapes, numbers) is
// respelled and compacted into the read's reused buffer without
// allocating: no garbage per request grows with the resource's text.
func TestResourceItemAllocatesNothing(t *testing.T) {
	item := json.RawMessage(`{"uuid":"0b5c0d7e-7f34-4a8f-9d8e-1f2a3b4c5d6e","type":"web","method":"POST","size":553,"sorting":1764140000123456,` +
		`"url":"https:\/\/webhook.site\/0b5c0d7e\/hook?x=1","ip":"127.0.0.1","city":"Z\u00fcrich","headers":{"user-agent":["curl\/8.5"]},` +
		`"content":"{\"html_url\":\"https:\/\/github.com\/octocat\",\"name\":\"Zo\u00eb\"}","created_at":"2026-11-26 08:00:00"}`)
	var dst []byte
	dst = compactItem(dst, item)
	if bytes.Contains(dst, []byte(`\/`)) || !bytes.Contains(dst, []byte("Zürich")) {
		t.Fatalf("compactItem wrote %s", dst)
	}
	if allocs := testing.AllocsPerRun(100, func() { dst = compactItem(dst[:0], item) }); allocs != 0 {
		t.Errorf("compactItem allocated %.0f times per request, want 0", allocs)
	}
}

// FuzzReadEncoding: a text written in chunks, in one piece or two, is
// written out as the JSON string encoding/json writes for it, whatever its
// bytes, between the rest of its result.
func FuzzReadEncoding(f *testing.F) {
	for _, seed := range []string{`{"a":"b\"c"}`, "\\", "\x00\x1f\x7f", "\u2028\u2029", "é😀", "\xff\xfe", "<&>", "\xed\xa0\x80"} {
		f.Add([]byte(seed), 1)
	}
	f.Fuzz(func(t *testing.T, text []byte, cut int) {
		if cut < 0 || cut > len(text) {
			cut = len(text)
		}
		c := &chunkedText{}
		c.write(text[:cut])
		c.write(text[cut:])
		var out bytes.Buffer
		e := &readEncoding{before: []byte(`{"text":`), after: []byte(`}`), text: c}
		if _, err := e.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		// As the SDK's Encoder writes it: without HTML escapes.
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(map[string]string{"text": string(text)})
		if got := out.String(); got != strings.TrimSuffix(want.String(), "\n") {
			t.Fatalf("%q is written as %q, want %q", text, got, want.String())
		}
	})
}

// FuzzBlockEnd: a text cut where blockEnd says escapes in its two pieces
// as it escapes whole, whatever its bytes and wherever the cut is asked.
func FuzzBlockEnd(f *testing.F) {
	for _, seed := range []string{"é😀€", "\xff\x80\x80\x80\x80", "ab\xe2\x82", "\xf0\x9f\x98"} {
		f.Add([]byte(seed), 2)
	}
	f.Fuzz(func(t *testing.T, text []byte, n int) {
		if n <= 0 {
			return
		}
		cut := blockEnd(text, n)
		// Past n only to keep the text's first character whole.
		if cut <= 0 && len(text) > 0 || cut > len(text) || cut > max(n, utf8.UTFMax) {
			t.Fatalf("blockEnd(%q, %d) = %d", text, n, cut)
		}
		whole := appendEscaped(nil, text)
		pieces := appendEscaped(appendEscaped(nil, text[:cut]), text[cut:])
		if !bytes.Equal(whole, pieces) {
			t.Fatalf("%q cut at %d escapes as %q, whole as %q", text, cut, pieces, whole)
		}
	})
}

// TestChunkedText: a text is written in chunks that are never copied once
// written, whatever the size of its pieces (a request larger than a chunk
// gets one of its own), and is written out whole, escaped a block at a
// time, characters beyond ASCII at every block's end included.
func TestChunkedText(t *testing.T) {
	c := &chunkedText{}
	var want strings.Builder
	var firsts []*byte
	for i, size := range []int{10, chunkSize / 3, chunkSize / 3, chunkSize / 2, 3 * chunkSize, 5, chunkSize - 1, 1, 7} {
		piece := []byte(strings.Repeat(string(rune('a'+i)), size%3) + strings.Repeat("é😀\"", size/7))
		c.write(piece)
		want.Write(piece)
		for j, chunk := range c.chunks {
			if j < len(firsts) && &chunk[0] != firsts[j] {
				t.Fatalf("chunk %d was copied when piece %d was written", j, i)
			}
		}
		firsts = firsts[:0]
		for _, chunk := range c.chunks {
			firsts = append(firsts, &chunk[0])
		}
	}
	if len(c.chunks) < 4 || c.size != want.Len() {
		t.Errorf("%d chunks of %d bytes, want the text's %d bytes in several", len(c.chunks), c.size, want.Len())
	}
	var out bytes.Buffer
	if _, err := (&readEncoding{text: c}).WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got != want.String() {
		t.Errorf("the chunks are written as %d bytes that read back as %d (%v), want %d", out.Len(), len(got), err, want.Len())
	}
}

// TestRequestsResourceURIHidesKey: a URI that holds HOOKSVC_API_KEY (pasted
// with a capture URL, or in place of the token) is echoed without it, in
// the answer and in the refusal.
func TestRequestsResourceURIHidesKey(t *testing.T) {
	h := connect(t, config.Config{APIKey: envKey})
	id := h.createToken(t, nil)
	h.capture(t, id, "POST", "text/plain", "x")
	res, err := h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + url.QueryEscape(h.url+"/"+id+"?key="+envKey) + "/requests"})
	if err != nil || len(res.Contents) != 1 || strings.Contains(res.Contents[0].URI, envKey) || !strings.Contains(res.Contents[0].Text, id) {
		t.Errorf("err = %v, contents %+v", err, res)
	}
	_, err = h.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + envKey + "/requests"})
	var wire *jsonrpc.Error
	if !errors.As(err, &wire) || wire.Code != jsonrpc.CodeInvalidParams || strings.Contains(wire.Message, envKey) || !strings.Contains(wire.Message, "token_id must be a token UUID") {
		t.Errorf("the key as the token: err = %v", err)
	}
}

// TestRequestsResourceKeepsOnlyRequestFields: the requests resource drops
// account fields (team_id) from each request, and writes a number float64
// cannot hold as a string, as list_requests does.
func TestRequestsResourceKeepsOnlyRequestFields(t *testing.T) {
	h := connect(t, config.Config{})
	page := `{"data":[{"uuid":"` + someToken + `","method":"POST","sorting":1,"team_id":"team-4711","content":"","size":1e400}],"total":1,"per_page":100,"current_page":1,"is_last_page":true,"from":1,"to":1}`
	api := h.reconnect(t, config.Config{APIURL: mustParse(t, answering(t, 200, "application/json", page)), APIKey: envKey})
	res, err := api.session.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "hooksvc://token/" + someToken + "/requests"})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Contents[0].Text
	if strings.Contains(text, "team-4711") || strings.Contains(text, "team_id") {
		t.Errorf("an account field reaches the requests resource: %.300s", text)
	}
	if !strings.Contains(text, `"method":"POST"`) || !strings.Contains(text, `"size":"1e400"`) {
		t.Errorf("want the request's own fields, its huge size as a string: %.300s", text)
	}
}
