package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
)

// webhook.site's own command-line client (@webhooksite/cli, whcli), pinned
// in scripts/e2e-clients, is a client of the capture API that nobody here
// wrote. These tests run its commands against the fake on loopback (its
// WH_API and WH_WS_HOST point there) and check that each works as against
// the hosted service. scripts/e2e installs it and sets WHCLI; without it
// they are skipped.

const whcliKey = "whcli-key-0001"

// whcliClock is the fake's clock, settable while the fake reads it.
type whcliClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *whcliClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *whcliClock) set(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = at
}

// forwarded is a request the CLI forwarded to the target.
type forwarded struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// whcliStand is the fake, a forward target, and the CLI's environment.
type whcliStand struct {
	fake    *fakehooksvc.Server
	api     *httptest.Server
	clock   *whcliClock
	target  *httptest.Server
	arrived chan forwarded // what the target received, in order
	cli     string
}

func newWhcliStand(t *testing.T) *whcliStand {
	cli := os.Getenv("WHCLI")
	if cli == "" {
		t.Skip("WHCLI is not set; scripts/e2e installs @webhooksite/cli (scripts/e2e-clients) and sets it")
	}
	s := &whcliStand{clock: &whcliClock{now: time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)}, arrived: make(chan forwarded, 100), cli: cli}
	// A sender the token holds is answered by the response the CLI sets,
	// never by the fake's listen timer: the test's context bounds the wait.
	s.fake = fakehooksvc.New(fakehooksvc.Options{APIKeys: []string{whcliKey}, Now: s.clock.Now,
		After: func(time.Duration) <-chan time.Time { return nil }})
	s.api = httptest.NewServer(s.fake)
	t.Cleanup(s.api.Close)
	// The target answers what a local app would; a sender held by the
	// token gets this answer back through the CLI.
	s.target = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		s.arrived <- forwarded{r.Method, r.URL.RequestURI(), r.Header.Clone(), body}
		w.Header().Set("X-Target", "local")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusAccepted)
		io.WriteString(w, "answered by the target")
	}))
	t.Cleanup(s.target.Close)
	return s
}

// call calls the fake's API with the key and decodes its JSON answer.
func (s *whcliStand) call(t *testing.T, method, path, body string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(method, s.api.URL+path, strings.NewReader(body))
	req.Header.Set("Api-Key", whcliKey)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %v", method, path, resp.StatusCode, err)
	}
	return out
}

// capture sends a request to the token's capture URL and returns what the
// sender got back.
func (s *whcliStand) capture(ctx context.Context, token, method, path, contentType, body string, header http.Header) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.api.URL+"/"+token+path, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	for name, values := range header {
		req.Header[name] = values
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	return resp, answer, err
}

// lockedBuffer collects a process's output while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// start runs the CLI with args and the stand's environment; its output is
// logged when the test fails, and it is stopped when the test ends.
func (s *whcliStand) start(t *testing.T, ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.cli, args...)
	cmd.Env = append(os.Environ(), "WH_API="+s.api.URL, "WH_WS_HOST="+s.api.URL, "WH_API_KEY="+whcliKey, "WH_TARGET="+s.target.URL, "WH_LOG_LEVEL=info")
	cmd.Env = append(cmd.Env, env...)
	out := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting whcli: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("whcli %s printed:\n%s", strings.Join(args, " "), out.String())
		}
	})
	return cmd
}

// TestWhcliForwardQuery: `whcli forward --query` reads the token (and
// writes it back whole, with listen given as the string of its
// environment), lists the requests the query selects (the help's date
// math among them) and replays each to the target, a multipart one from
// its fields as the hosted service keeps it.
func TestWhcliForwardQuery(t *testing.T) {
	s := newWhcliStand(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	token := s.call(t, "POST", "/token", `{}`)["uuid"].(string)
	// One request 20 days ago, which created_at:[now-14d TO *] leaves out;
	// the others now.
	s.clock.set(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC))
	if _, _, err := s.capture(ctx, token, "POST", "/old", "application/json", `{"old":true}`, nil); err != nil {
		t.Fatal(err)
	}
	s.clock.set(time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC))
	if _, _, err := s.capture(ctx, token, "POST", "/hooks/order?x=1", "application/json", `{"order":42}`, http.Header{"X-Signature": {"sig-1"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.capture(ctx, token, "GET", "/ping", "", "", nil); err != nil {
		t.Fatal(err)
	}
	var form bytes.Buffer
	parts := multipart.NewWriter(&form)
	parts.WriteField("event", "upload")
	file, _ := parts.CreateFormFile("report", "report.csv")
	file.Write([]byte("a,b\n"))
	parts.Close()
	if _, _, err := s.capture(ctx, token, "PUT", "/form", parts.FormDataContentType(), form.String(), nil); err != nil {
		t.Fatal(err)
	}

	cmd := s.start(t, ctx, []string{"WH_LISTEN_TIMEOUT=3"}, "forward", "--token="+token, "--query=created_at:[now-14d TO *] AND NOT method:GET")
	// With a query, the CLI exits once every listed request is replayed.
	if err := cmd.Wait(); err != nil {
		t.Fatalf("whcli forward --query: %v", err)
	}
	close(s.arrived)
	got := map[string]forwarded{}
	for f := range s.arrived {
		got[f.Method+" "+f.Path] = f
	}
	if len(got) != 2 {
		t.Fatalf("the target got %d requests, want the POST and the PUT of today: %v", len(got), got)
	}
	order, ok := got["POST /hooks/order?x=1"]
	if !ok || string(order.Body) != `{"order":42}` || order.Header.Get("X-Signature") != "sig-1" {
		t.Errorf("the POST, as forwarded: %+v", order)
	}
	upload, ok := got["PUT /form"]
	if mediaType, params, _ := mime.ParseMediaType(upload.Header.Get("Content-Type")); !ok || mediaType != "multipart/form-data" {
		t.Errorf("the multipart PUT, as forwarded: %+v", upload)
	} else {
		part, err := multipart.NewReader(bytes.NewReader(upload.Body), params["boundary"]).NextPart()
		if value, _ := io.ReadAll(part); err != nil || part.FormName() != "event" || string(value) != "upload" {
			t.Errorf("the multipart PUT's fields, as forwarded: %q (%v)", upload.Body, err)
		}
	}
	// The CLI wrote the whole token back with listen "3" (a string), and
	// the fake took it as the hosted service does.
	if listen := s.call(t, "GET", "/token/"+token, "")["listen"]; listen != 3.0 {
		t.Errorf("after whcli forward, the token's listen is %v, want 3", listen)
	}
	var put []byte
	for _, r := range s.fake.Received() {
		if r.Method == "PUT" && r.Path == "/token/"+token {
			put = r.Body
		}
	}
	var sent map[string]any
	if err := json.Unmarshal(put, &sent); err != nil || sent["listen"] != "3" || sent["uuid"] != token || sent["created_at"] == nil {
		t.Errorf("the CLI's PUT: %s", put)
	}
	var queries []string
	for _, r := range s.fake.Received() {
		if strings.HasSuffix(r.Path, "/requests") {
			queries = append(queries, r.Query.Get("query"))
		}
	}
	if want := []string{"created_at:[now-14d TO *] AND NOT method:GET"}; !cmp.Equal(queries, want) {
		t.Errorf("the CLI listed with queries %q, want %q", queries, want)
	}
}

// awaitSubscribed waits until the CLI has written the token back (with
// listen) and subscribed to its channel over the socket: a capture made
// before that is, as on the hosted service, never pushed.
func (s *whcliStand) awaitSubscribed(ctx context.Context, t *testing.T, token string, needPut bool) {
	t.Helper()
	err := s.fake.Await(ctx, func(rs []fakehooksvc.Received) bool {
		put, subscribed := !needPut, false
		for _, r := range rs {
			put = put || r.Method == "PUT" && r.Path == "/token/"+token
			subscribed = subscribed || r.Path == "/socket.io/" && strings.Contains(string(r.Body), `"subscribe"`) &&
				strings.Contains(string(r.Body), "private-token."+token)
		}
		return put && subscribed
	})
	if err != nil {
		t.Fatalf("whcli did not subscribe to the token's channel: %v", err)
	}
}

// TestWhcliForwardSocket: `whcli forward` without a query sets listen on
// the token, learns of a new capture over the socket (Socket.IO 2 through
// laravel-echo, long-polling then WebSocket), replays it to the target,
// and sets the target's answer as the response of the sender the token
// holds waiting: the original sender gets the target's status, headers and
// body.
func TestWhcliForwardSocket(t *testing.T) {
	s := newWhcliStand(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	token := s.call(t, "POST", "/token", `{"default_content":"not the target's answer"}`)["uuid"].(string)
	s.start(t, ctx, []string{"WH_LISTEN_TIMEOUT=8"}, "forward", "--token="+token)
	s.awaitSubscribed(ctx, t, token, true)
	if listen := s.call(t, "GET", "/token/"+token, "")["listen"]; listen != 8.0 {
		t.Fatalf("after whcli forward started, the token's listen is %v, want 8", listen)
	}
	type reply struct {
		resp *http.Response
		body []byte
		err  error
	}
	replied := make(chan reply, 1)
	go func() {
		resp, body, err := s.capture(ctx, token, "POST", "/hooks/pay?attempt=2", "application/json", `{"paid":true}`, http.Header{"X-Signature": {"sig-2"}})
		replied <- reply{resp, body, err}
	}()
	var got forwarded
	select {
	case got = <-s.arrived:
	case <-ctx.Done():
		t.Fatal("the target got nothing: whcli did not forward the capture pushed over the socket")
	}
	if got.Method != "POST" || got.Path != "/hooks/pay?attempt=2" || string(got.Body) != `{"paid":true}` || got.Header.Get("X-Signature") != "sig-2" {
		t.Errorf("the target got %+v", got)
	}
	var r reply
	select {
	case r = <-replied:
	case <-ctx.Done():
		t.Fatal("the sender got no answer")
	}
	if r.err != nil || r.resp.StatusCode != http.StatusAccepted || string(r.body) != "answered by the target" || r.resp.Header.Get("X-Target") != "local" {
		t.Fatalf("the sender got %v %q %v, want the target's 202 answer", r.resp, r.body, r.err)
	}
	rid := r.resp.Header.Get("X-Request-Id")
	var set []byte
	for _, rec := range s.fake.Received() {
		if rec.Method == "PUT" && rec.Path == "/token/"+token+"/request/"+rid+"/response" {
			set = rec.Body
		}
	}
	var response struct {
		Status  int                 `json:"status"`
		Headers map[string][]string `json:"headers"`
	}
	if err := json.Unmarshal(set, &response); err != nil || response.Status != http.StatusAccepted || !cmp.Equal(response.Headers["x-target"], []string{"local"}) {
		t.Errorf("the CLI's set response: %s (%v)", set, err)
	}
}

// TestWhcliExec: `whcli exec` runs its command for each capture pushed
// over the socket.
func TestWhcliExec(t *testing.T) {
	s := newWhcliStand(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	token := s.call(t, "POST", "/token", `{}`)["uuid"].(string)
	// The command tells the target it ran: the target's channel is the
	// event the test waits on.
	command := `node -e 'fetch(process.argv[1]).catch(() => process.exit(1))' '` + s.target.URL + `/exec'`
	s.start(t, ctx, nil, "exec", "--token="+token, "--command="+command)
	s.awaitSubscribed(ctx, t, token, false)
	for i := range 2 {
		if _, _, err := s.capture(ctx, token, "POST", "/run", "text/plain", "go", nil); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-s.arrived:
			if got.Method != "GET" || got.Path != "/exec" {
				t.Errorf("capture %d: the command sent %s %s", i, got.Method, got.Path)
			}
		case <-ctx.Done():
			t.Fatalf("capture %d: whcli exec did not run its command", i)
		}
	}
}
