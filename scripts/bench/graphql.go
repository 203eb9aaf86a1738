package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// peerName is the npm GraphQL MCP server graphqlmcp is measured against.
const peerName = "mcp-graphql"

// graphqlServer is one GraphQL MCP server under measure: how to start it
// against an endpoint, and its tools.
type graphqlServer struct {
	start      func(endpoint string) launch
	queryTool  string
	queryArgs  func(query string) map[string]any
	introspect string
}

func (b *bench) graphqlmcp() graphqlServer {
	return graphqlServer{
		start: func(endpoint string) launch {
			return launch{server: "graphqlmcp", path: filepath.Join(b.procs.Bin, "graphqlmcp"), args: []string{"--endpoint", endpoint}, version: true}
		},
		queryTool:  "graphql_query",
		queryArgs:  func(query string) map[string]any { return map[string]any{"query": query} },
		introspect: "graphql_introspect",
	}
}

// peer is mcp-graphql 2.0.4 run by the pinned Node: it takes its endpoint
// from $ENDPOINT, and its tools are query-graphql and introspect-schema.
func (b *bench) peer() graphqlServer {
	return graphqlServer{
		start: func(endpoint string) launch {
			return launch{server: peerName, path: b.deps.node, args: []string{b.deps.peer}, env: []string{"ENDPOINT=" + endpoint}}
		},
		queryTool:  "query-graphql",
		queryArgs:  func(query string) map[string]any { return map[string]any{"query": query} },
		introspect: "introspect-schema",
	}
}

// smallQuery is the query of the latency and concurrency measures.
const smallQuery = `{ hero { name } }`

func (b *bench) graphql(ctx context.Context) error {
	fmt.Fprintln(os.Stderr, "graphqlmcp and", peerName+":")
	api, _, err := b.procs.Start("samplegraphql", "-listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	slow, stop, err := delayed(api, 100*time.Millisecond)
	if err != nil {
		return err
	}
	defer stop()
	for _, g := range []graphqlServer{b.graphqlmcp(), b.peer()} {
		l := g.start(api)
		s, err := b.measured(ctx, l)
		if err != nil {
			return err
		}
		body, _ := json.Marshal(map[string]any{"query": smallQuery})
		err = b.latency(ctx, l.server, s, g.queryTool, g.queryArgs(smallQuery), func() error {
			_, err := fetch(ctx, http.MethodPost, api, string(body))
			return err
		})
		s.Close()
		if err != nil {
			return err
		}
		if err := b.concurrency(ctx, g, slow); err != nil {
			return err
		}
	}
	return b.httpClients(ctx, api)
}

// delayed starts a proxy to api that answers each request 100 ms late, and
// returns its URL.
func delayed(api string, delay time.Duration) (string, func(), error) {
	target, err := url.Parse(api)
	if err != nil {
		return "", nil, err
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	slow := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		proxy.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	go slow.Serve(ln)
	return "http://" + ln.Addr().String() + target.Path, func() { slow.Close() }, nil
}

// concurrency sends 16 calls at once on one stdio session to an upstream
// that answers each in 100 ms: the ideal is 100 ms in all.
func (b *bench) concurrency(ctx context.Context, g graphqlServer, slowURL string) error {
	l := g.start(slowURL)
	s, _, err := connect(ctx, l)
	if err != nil {
		return err
	}
	defer s.Close()
	// The first call is made before the measure: graphqlmcp's first call
	// of a session fetches the schema.
	if _, err := callOK(ctx, s.ClientSession, g.queryTool, g.queryArgs(smallQuery)); err != nil {
		return err
	}
	const inFlight = 16
	var walls []time.Duration
	for range b.sizes.rounds {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, inFlight)
		for range inFlight {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := callOK(ctx, s.ClientSession, g.queryTool, g.queryArgs(smallQuery))
				errs <- err
			}()
		}
		wg.Wait()
		walls = append(walls, time.Since(start))
		close(errs)
		for err := range errs {
			if err != nil {
				return err
			}
		}
	}
	b.add(l.server, "16 concurrent 100 ms calls (median wall)", ms(median(walls)), "ms", fmt.Sprintf("one stdio session, %d rounds; ideal 100 ms", len(walls)))
	return nil
}

// httpClients serves graphqlmcp over Streamable HTTP and has many clients
// call it at once: throughput, latency, failures, and the server's memory
// before and after. (mcp-graphql serves stdio only.)
func (b *bench) httpClients(ctx context.Context, api string) error {
	endpoint, proc, err := b.procs.Start("graphqlmcp", "--endpoint", api, "--transport", "http", "--listen", "127.0.0.1:0")
	if err != nil {
		return err
	}
	pid := proc.Pid
	transport := &http.Transport{MaxIdleConnsPerHost: b.sizes.clients}
	sessions := make([]*mcp.ClientSession, b.sizes.clients)
	for i := range sessions {
		client := mcp.NewClient(&mcp.Implementation{Name: "mcpforge-bench-http", Version: "v1"}, nil)
		s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: transport}}, nil)
		if err != nil {
			return fmt.Errorf("HTTP client %d: %w", i, err)
		}
		defer s.Close()
		sessions[i] = s
	}
	args := map[string]any{"query": smallQuery}
	// One call first: the schema is fetched and cached before the measure.
	if _, err := callOK(ctx, sessions[0], "graphql_query", args); err != nil {
		return err
	}
	before, err := rssMiB(pid)
	if err != nil {
		return err
	}
	perClient := b.sizes.total / b.sizes.clients
	times := make([][]time.Duration, len(sessions))
	var failures atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for i, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range perClient {
				began := time.Now()
				if _, err := callOK(ctx, s, "graphql_query", args); err != nil {
					failures.Add(1)
					continue
				}
				times[i] = append(times[i], time.Since(began))
			}
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	after, err := rssMiB(pid)
	if err != nil {
		return err
	}
	all := slices.Concat(times...)
	label := fmt.Sprintf("%d clients, %d calls", len(sessions), perClient*len(sessions))
	b.add("graphqlmcp", "HTTP calls/s", float64(perClient*len(sessions))/wall.Seconds(), "calls/s", label)
	b.add("graphqlmcp", "HTTP call p50", us(percentile(all, 50)), "µs", label)
	b.add("graphqlmcp", "HTTP call p99", us(percentile(all, 99)), "µs", label)
	b.add("graphqlmcp", "HTTP failures", float64(failures.Load()), "calls", label)
	b.add("graphqlmcp", "HTTP RSS before the calls", before, "MiB", "schema cached, clients connected")
	b.add("graphqlmcp", "HTTP RSS after the calls", after, "MiB", label)
	return nil
}
