// Package fakehooksvc is an in-process stand-in for the hosted webhook-capture
// API (webhook.site), built from what is known of it on the wire: token CRUD
// where PUT resets what it is not sent and takes back the whole token as
// read, the hosted defaults of a new token (an HTML placeholder page, expiry
// and request_limit null), account fields in token objects, Laravel's 422s,
// 404 for unknown, deleted or expired tokens, the listing envelope and its
// pagination formulas, newest/oldest order, date filters and the query
// string syntax (query.go), single requests with their raw bodies, single
// and bulk (singular path) deletes, captures on any path and method answered
// with the token's response and X-Request-Id, multipart captures kept as the
// service keeps them (no raw body; fields, and files downloadable through a
// redirect to storage), email and DNS captures injected by tests, a sender
// held open while the token listens until a response is set for it, private
// tokens (302 without a key, 401 with a wrong one) and injected faults such
// as 429 with Retry-After.
//
// With Options.OpenSource it behaves as the open-source server instead.
//
// Tests start it on loopback with httptest; cmd/fakehooksvc serves it for a
// person who wants to try hookmcp without an account or a network.
package fakehooksvc

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Options configure a fake.
type Options struct {
	// APIKeys are the keys the fake accepts in the Api-Key header. A token
	// created with a key is private to it: read without a key it redirects to
	// a login page, read with another key it answers 401.
	APIKeys []string
	// Now is the fake's clock, for token expiry and request times; time.Now
	// when nil.
	Now func() time.Time
	// OpenSource makes the fake behave as the open-source webhook.site
	// server where it differs from the hosted service: listing and deleting
	// requests ignore date_from, date_to and query (so a filtered delete
	// deletes everything); unknown, deleted and expired tokens answer 410;
	// a new token answers an empty text/plain body and shows expiry 604800
	// and request_limit 10000; timeout is 0 to 10; a PUT silently ignores
	// cors, alias, expiry, listen, request_limit, actions and description;
	// there is no /request/latest/raw; deleting a token answers 200
	// {"status":true}, and deleting a token's requests 200 {"status":b}
	// where b says whether any was deleted (RequestController::deleteByToken
	// returns Redis DEL's count). It still differs from that server in: the
	// answer to deleting one request (200 {"status":true} here, whatever the
	// server says), and its error bodies (the hosted service's envelope
	// here).
	OpenSource bool
	// OmitRequestID leaves the X-Request-Id header out of capture answers,
	// which the hosted service is not known to always send.
	OmitRequestID bool
	// PHPEscapes writes the API's JSON as PHP's json_encode does by default
	// (Laravel's JSON responses): every / as \/ and every character beyond
	// ASCII as \uXXXX.
	PHPEscapes bool
	// NoSocket makes the fake run no live-push socket, as a self-hosted
	// server may not: /socket.io/ answers 404.
	NoSocket bool
	// NotYetStored makes each captured request answer 404 to its first
	// NotYetStored reads by id (GET /token/{id}/request/{rid}, and /raw), as
	// the hosted service may for a moment after a capture while it stores
	// the request. Listings show it at once.
	NotYetStored int
	// After is the timer a held sender waits on (see token listen): it
	// returns a channel that receives once d has passed. time.After when
	// nil; tests give their own to end the wait without the wall clock.
	After func(d time.Duration) <-chan time.Time
}

// Received is one request the fake received, as it arrived.
type Received struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
}

// String describes a request for test failure messages.
func (r Received) String() string {
	return fmt.Sprintf("%s %s?%s %s", r.Method, r.Path, r.Query.Encode(), r.Body)
}

// Fault is an answer the fake gives instead of serving, Times times, to API
// requests of Method (any method when empty).
type Fault struct {
	Method     string
	Path       string // only paths that start with it, when not empty
	Status     int
	RetryAfter string // the Retry-After header, when not empty
	Body       string // defaults to the error envelope
	Times      int
}

// Server is the fake API. It is an http.Handler.
type Server struct {
	now           func() time.Time
	keys          map[string]bool
	openSource    bool
	omitRequestID bool
	phpEscapes    bool
	noSocket      bool
	notYetStored  int
	after         func(time.Duration) <-chan time.Time
	accounts      map[string]int // an account id for each API key
	hub           *socketHub     // live push to socket subscribers (socket.go)

	// mu guards what follows. It is held while one API request is served,
	// never while a sender is held waiting for its response.
	mu       sync.Mutex
	tokens   map[string]*token // by UUID, live ones
	faults   []Fault
	received []Received
	arrived  chan struct{}           // closed, and replaced, when a request arrives
	waiting  map[string]*heldCapture // senders held open, by request UUID
	storage  map[string]*storedFile  // uploaded files, by storage key
	seq      int64
}

// New returns an empty fake.
func New(opts Options) *Server {
	s := &Server{
		now:           opts.Now,
		keys:          map[string]bool{},
		openSource:    opts.OpenSource,
		omitRequestID: opts.OmitRequestID,
		phpEscapes:    opts.PHPEscapes,
		noSocket:      opts.NoSocket,
		notYetStored:  opts.NotYetStored,
		after:         opts.After,
		accounts:      map[string]int{},
		hub:           newSocketHub(),
		tokens:        map[string]*token{},
		arrived:       make(chan struct{}),
		waiting:       map[string]*heldCapture{},
		storage:       map[string]*storedFile{},
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.after == nil {
		s.after = time.After
	}
	for i, k := range opts.APIKeys {
		s.keys[k] = true
		s.accounts[k] = 1001 + i
	}
	return s
}

// Inject queues a fault.
func (s *Server) Inject(f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if f.Times < 1 {
		f.Times = 1
	}
	s.faults = append(s.faults, f)
}

// Received returns a copy of every request received so far, in order:
// each API request and capture as it arrives, each packet a long-polling
// socket client posts once the socket has handled it.
func (s *Server) Received() []Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Received(nil), s.received...)
}

// Await returns once done holds for the requests received so far, or when
// ctx ends; a test waits on it instead of sleeping.
func (s *Server) Await(ctx context.Context, done func([]Received) bool) error {
	for {
		s.mu.Lock()
		ok, arrived := done(s.received), s.arrived
		s.mu.Unlock()
		if ok {
			return nil
		}
		select {
		case <-arrived:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Reset forgets the requests received so far.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = nil
}

// uuidPattern is what the open-source server's routes accept as an id.
var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// newUUID returns a random version 4 UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

const timeLayout = "2006-01-02 15:04:05"

// maxBody is the largest captured body the service takes (413 beyond), and
// of a response set for a waiting sender once decoded from base64.
const maxBody = 10 << 20

// maxRead bounds what the fake reads of any request: a set response's
// content arrives base64-encoded, a third larger than maxBody.
const maxRead = maxBody/3*4 + 1<<20

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The socket holds its connection open, so it is served outside the
	// lock that serialises the API.
	if strings.HasPrefix(r.URL.Path, "/socket.io/") {
		s.serveSocketRecorded(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxRead+1))
	s.mu.Lock()
	unlocked := s.serveLocked(w, r, body)
	s.mu.Unlock()
	// What needs no state of the fake's is done without the lock: a sender
	// held for its response waits, so that the API (and the set-response
	// call that answers it) is served meanwhile, and a listing is encoded,
	// so that pages are served at once, as the hosted service serves them.
	if unlocked != nil {
		unlocked()
	}
}

// serveSocketRecorded serves the socket, and records each packet a
// long-polling client posts once it is handled: a test awaits a client's
// subscription (socket.io-client subscribes over polling before upgrading)
// with Await, instead of guessing when it took effect.
func (s *Server) serveSocketRecorded(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		s.serveSocket(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, maxRead+1))
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.serveSocket(w, r)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.received = append(s.received, Received{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body,
	})
	close(s.arrived)
	s.arrived = make(chan struct{})
}

// serveLocked serves r with s.mu held. What is left to do once the lock is
// released, it returns: the answer to a capture whose token listens, or
// the encoding of a listing (see listRequests).
func (s *Server) serveLocked(w http.ResponseWriter, r *http.Request, body []byte) (unlocked func()) {
	s.received = append(s.received, Received{
		Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body,
	})
	close(s.arrived)
	s.arrived = make(chan struct{})
	segments := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case segments[0] == "token":
		if s.fault(w, r) {
			return nil
		}
		if s.phpEscapes {
			w = phpEscaping{w}
		}
		return s.serveAPI(w, r, segments[1:], body)
	case segments[0] == "storage" && len(segments) == 2:
		s.serveStorage(w, r, segments[1])
	case uuidPattern.MatchString(segments[0]):
		if held := s.capture(w, r, segments, body); held != nil {
			return func() { s.awaitResponse(w, r, held) }
		}
	case r.URL.Path == "/login":
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!DOCTYPE html><html><body><form>Log in</form></body></html>")
	default:
		writeError(w, http.StatusNotFound, "Not found.")
	}
	return nil
}

func (s *Server) fault(w http.ResponseWriter, r *http.Request) bool {
	for i := range s.faults {
		f := &s.faults[i]
		if f.Method != "" && f.Method != r.Method || !strings.HasPrefix(r.URL.Path, f.Path) {
			continue
		}
		f.Times--
		if f.Times == 0 {
			s.faults = append(s.faults[:i], s.faults[i+1:]...)
		}
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		if f.Body != "" {
			w.WriteHeader(f.Status)
			io.WriteString(w, f.Body)
			return true
		}
		writeError(w, f.Status, http.StatusText(f.Status))
		return true
	}
	return false
}

// serveAPI routes /token/... ; rest is the path after "token". What it
// returns is done once s.mu is released (see serveLocked).
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request, rest []string, body []byte) (unlocked func()) {
	key := r.Header.Get("Api-Key")
	if key != "" && !s.keys[key] {
		writeError(w, http.StatusUnauthorized, "Unauthenticated.")
		return nil
	}
	if len(rest) == 0 {
		if r.Method == http.MethodGet && !s.openSource {
			s.listTokens(w, r, key)
			return nil
		}
		if r.Method != http.MethodPost {
			methodNotAllowed(w, "POST")
			return nil
		}
		s.createToken(w, key, body)
		return nil
	}
	t, ok := s.lookup(w, r, rest[0], key)
	if !ok {
		return nil
	}
	switch {
	case len(rest) == 1:
		switch r.Method {
		case http.MethodGet:
			writeJSON(w, http.StatusOK, s.tokenJSON(t))
		case http.MethodPut:
			s.updateToken(w, t, body)
		case http.MethodDelete:
			delete(s.tokens, t.UUID)
			if s.openSource {
				writeJSON(w, http.StatusOK, map[string]any{"status": true})
				return nil
			}
			w.WriteHeader(http.StatusNoContent)
		default:
			methodNotAllowed(w, "GET, HEAD, PUT, DELETE")
		}
	case len(rest) == 2 && rest[1] == "requests":
		if r.Method != http.MethodGet {
			methodNotAllowed(w, "GET, HEAD")
			return nil
		}
		return s.listRequests(w, r, t)
	case len(rest) == 2 && rest[1] == "request":
		if r.Method != http.MethodDelete {
			methodNotAllowed(w, "DELETE")
			return nil
		}
		s.deleteRequests(w, r, t)
	case len(rest) == 3 && rest[1] == "request":
		s.serveOneRequest(w, r, t, rest[2], false)
	case len(rest) == 4 && rest[1] == "request" && rest[3] == "raw" && !(s.openSource && rest[2] == "latest"):
		s.serveOneRequest(w, r, t, rest[2], true)
	case len(rest) == 4 && rest[1] == "request" && rest[3] == "response" && !s.openSource:
		s.setResponse(w, r, t, rest[2], body)
	case len(rest) == 5 && rest[1] == "request" && rest[3] == "download":
		s.download(w, r, t, rest[2], rest[4])
	default:
		writeError(w, http.StatusNotFound, "Not found.")
	}
	return nil
}

// lookup finds a live token and checks that key may use it. It answers the
// request itself when not.
func (s *Server) lookup(w http.ResponseWriter, r *http.Request, id, key string) (*token, bool) {
	if !uuidPattern.MatchString(id) {
		writeError(w, http.StatusNotFound, "Not found.")
		return nil, false
	}
	t, ok := s.live(w, id)
	if !ok {
		return nil, false
	}
	if t.owner != "" && key == "" {
		login := "http://" + r.Host + "/login"
		w.Header().Set("Location", login)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusFound)
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><meta http-equiv="refresh" content="0;url='%s'" /></head><body>Redirecting to %s.</body></html>`, login, login)
		return nil, false
	}
	if t.owner != "" && key != t.owner {
		writeError(w, http.StatusUnauthorized, "Unauthorized.")
		return nil, false
	}
	return t, true
}

// live finds a token that is neither deleted nor expired, else answers 404
// (the hosted service) or 410 (the open-source server, even for a token
// that never existed).
func (s *Server) live(w http.ResponseWriter, id string) (*token, bool) {
	if t := s.liveToken(id); t != nil {
		return t, true
	}
	if s.openSource {
		writeError(w, http.StatusGone, "Token expired or deleted.")
	} else {
		writeError(w, http.StatusNotFound, "Token not found.")
	}
	return nil, false
}

// liveToken is the token with id unless it is deleted or expired.
func (s *Server) liveToken(id string) *token {
	t := s.tokens[id]
	if t != nil && t.expired(s.now()) {
		delete(s.tokens, id)
		t = nil
	}
	return t
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeError(w, http.StatusMethodNotAllowed, "The method is not supported for this route.")
}

// writeInvalid answers 422 with the field messages: in Laravel's form on
// the hosted service, flat ({"field":[...]}) as the open-source server has
// them.
func (s *Server) writeInvalid(w http.ResponseWriter, errs validationErrors) {
	if s.openSource {
		writeJSON(w, http.StatusUnprocessableEntity, errs)
		return
	}
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "The given data was invalid.", "errors": errs})
}

// writeError writes the API's error envelope.
func writeError(w http.ResponseWriter, status int, message string) {
	writeJSON(w, status, map[string]any{"success": false, "error": map[string]any{"message": message, "id": nil}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// phpEscaping writes JSON answers as PHP's json_encode does by default. In
// JSON, a / or a byte beyond ASCII can only be inside a string, so the
// whole answer is rewritten byte by byte.
type phpEscaping struct{ http.ResponseWriter }

func (w phpEscaping) Write(p []byte) (int, error) {
	if !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") {
		return w.ResponseWriter.Write(p)
	}
	var out strings.Builder
	for _, r := range string(p) {
		switch {
		case r == '/':
			out.WriteString(`\/`)
		case r < utf8.RuneSelf:
			out.WriteRune(r)
		case r > 0xFFFF:
			hi, lo := utf16.EncodeRune(r)
			fmt.Fprintf(&out, `\u%04x\u%04x`, hi, lo)
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	if _, err := io.WriteString(w.ResponseWriter, out.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
