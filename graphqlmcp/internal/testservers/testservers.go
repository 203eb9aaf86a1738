// Package testservers runs real GraphQL servers and misbehaving HTTP servers
// on loopback for graphqlmcp's tests, and records what they receive so tests
// can assert what went over the wire (or that nothing did).
package testservers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	graphql "github.com/graph-gophers/graphql-go"
	"github.com/graph-gophers/graphql-go/example/starwars"
	"github.com/graph-gophers/graphql-go/relay"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// Received is one request a test server got.
type Received struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Recorder wraps a handler and keeps every request it receives.
type Recorder struct {
	next http.Handler

	mu       sync.Mutex
	received []Received
}

// Record returns a Recorder in front of next.
func Record(next http.Handler) *Recorder {
	return &Recorder{next: next}
}

func (r *Recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.mu.Lock()
	r.received = append(r.received, Received{Method: req.Method, Path: req.URL.Path, Header: req.Header.Clone(), Body: body})
	r.mu.Unlock()
	r.next.ServeHTTP(w, req)
}

// Requests returns a copy of what was received so far.
func (r *Recorder) Requests() []Received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Received(nil), r.received...)
}

// Count is the number of requests received so far.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.received)
}

// Introspections and Operations count the requests received so far that
// were introspection queries and that were anything else.
func (r *Recorder) Introspections() int { return r.countKind(true) }

// Operations: see Introspections.
func (r *Recorder) Operations() int { return r.countKind(false) }

func (r *Recorder) countKind(introspection bool) int {
	n := 0
	for _, req := range r.Requests() {
		if bytes.Contains(req.Body, []byte(`"operationName":"IntrospectionQuery"`)) == introspection {
			n++
		}
	}
	return n
}

// Starwars returns the graph-gophers example Star Wars API.
func Starwars(opts ...graphql.SchemaOpt) http.Handler {
	return &relay.Handler{Schema: graphql.MustParseSchema(starwars.Schema, &starwars.Resolver{}, opts...)}
}

// Introspection answers every request with graph-gophers' introspection of
// sdl (deprecated members included), as a server with no resolvers would.
func Introspection(sdl string) http.Handler {
	result, err := graphql.MustParseSchema(sdl, nil).ToJSON()
	if err != nil {
		panic(fmt.Sprintf("testservers: introspecting: %v", err))
	}
	body := append(append([]byte(`{"data":`), result...), '}')
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	})
}

// DeprecationsSchema has a deprecated field and a deprecated enum value.
const DeprecationsSchema = `type Query { name: String old: String @deprecated(reason: "use name") color: Color }
enum Color { RED BLUE @deprecated }`

type deprecationsResolver struct{}

func (deprecationsResolver) Name() *string  { s := "now"; return &s }
func (deprecationsResolver) Old() *string   { s := "then"; return &s }
func (deprecationsResolver) Color() *string { s := "RED"; return &s }

// Deprecations serves DeprecationsSchema with resolvers, so introspection
// honours includeDeprecated.
func Deprecations() http.Handler {
	return &relay.Handler{Schema: graphql.MustParseSchema(DeprecationsSchema, &deprecationsResolver{})}
}

// Start serves h on loopback for the duration of the test, behind a Recorder.
func Start(t testing.TB, h http.Handler) (*httptest.Server, *Recorder) {
	t.Helper()
	rec := Record(h)
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	return srv, rec
}

// Faults serves the failures an endpoint can produce, one per path:
//
//	/html500   500 with an HTML page
//	/nonjson   200 with plain text
//	/empty500  500 with no body
//	/hang      no answer until the client gives up; its context's end is sent on Hung
//	/huge      200 with a JSON body of HugeBytes bytes
//	/echo      200, a GraphQL response whose data are the headers received
//	/partial   200, partial data with an error
//	/errors    200, errors and no data
//	/gql400    400 with a GraphQL response body
//	/redirect  307 to RedirectTo (set it before use)
type Faults struct {
	HugeBytes int
	// RedirectTo is where /redirect points.
	RedirectTo string
	// Arrived receives a value when /hang gets a request; Hung when the
	// client has gone away from it.
	Arrived chan struct{}
	Hung    chan struct{}
}

// NewFaults returns a Faults with buffered notification channels.
func NewFaults() *Faults {
	return &Faults{HugeBytes: 1 << 20, Arrived: make(chan struct{}, 8), Hung: make(chan struct{}, 8)}
}

func (f *Faults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch strings.TrimSuffix(r.URL.Path, "/") {
	case "/html500":
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, "<html><body><h1>Internal Server Error</h1><p>upstream exploded</p></body></html>")
	case "/nonjson":
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "hello, I am not GraphQL")
	case "/empty500":
		w.WriteHeader(http.StatusInternalServerError)
	case "/hang":
		f.Arrived <- struct{}{}
		<-r.Context().Done()
		f.Hung <- struct{}{}
	case "/huge":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":{"blob":"`)
		chunk := strings.Repeat("x", 4096)
		for written := 0; written < f.HugeBytes; written += len(chunk) {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
		io.WriteString(w, `"}}`)
	case "/echo":
		headers := map[string]string{}
		for name, values := range r.Header {
			headers[name] = strings.Join(values, ", ")
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"headers": headers}})
	case "/partial":
		writeJSON(w, http.StatusOK, map[string]any{
			"data":   map[string]any{"hero": map[string]any{"name": "R2-D2", "secret": nil}},
			"errors": []any{map[string]any{"message": "secret is classified", "path": []any{"hero", "secret"}}},
		})
	case "/errors":
		writeJSON(w, http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "Cannot query field \"nope\" on type \"Query\"."}}})
	case "/gql400":
		w.Header().Set("Content-Type", "application/graphql-response+json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"errors":[{"message":"Variable \"$id\" of required type \"ID!\" was not provided."}]}`)
	case "/redirect":
		http.Redirect(w, r, f.RedirectTo, http.StatusTemporaryRedirect)
	default:
		http.NotFound(w, r)
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if err := json.NewEncoder(w).Encode(v); err != nil {
		panic(fmt.Sprintf("testservers: encoding: %v", err))
	}
}

// LastOperationWins stands for an endpoint that executes without validating,
// as graphql-js's execute does when called alone: it picks the last operation
// of the requested name (or the only one), and answers which it ran,
// {"data":{"ran":"mutation Kill"}}, without running anything.
func LastOperationWins() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Query         string `json:"query"`
			OperationName string `json:"operationName"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"errors": []any{map[string]any{"message": err.Error()}}})
			return
		}
		doc, err := parser.ParseQuery(&ast.Source{Input: body.Query})
		if err != nil {
			writeJSON(w, http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": err.Error()}}})
			return
		}
		var ran *ast.OperationDefinition
		for _, op := range doc.Operations {
			if body.OperationName == "" || op.Name == body.OperationName {
				ran = op
			}
		}
		if ran == nil {
			writeJSON(w, http.StatusOK, map[string]any{"errors": []any{map[string]any{"message": "no such operation"}}})
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"data": map[string]any{"ran": strings.TrimSpace(string(ran.Operation) + " " + ran.Name)}})
	})
}
