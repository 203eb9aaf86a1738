package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"
)

// githubQuery is a query on GitHub's schema that graphqlmcp checks against
// the schema and prices before sending it.
const githubQuery = `{ viewer { login repositories(first: 10) { nodes { name } } } }`

// githubSchema measures GitHub's public schema served on loopback: the first
// introspection of a fresh server (cold) and the next (cached) against a
// plain fetch of the same JSON, the output's size, graphqlmcp's types and
// search views and a validated query on the cached schema, and each
// server's peak RSS.
func (b *bench) githubSchema(ctx context.Context) error {
	fmt.Fprintln(os.Stderr, "GitHub's schema:")
	introspection, err := os.ReadFile(b.deps.githubSchema)
	if err != nil {
		return err
	}
	api, stop, err := serveGitHub(introspection)
	if err != nil {
		return err
	}
	defer stop()
	plain, err := timeEach(b.sizes.rounds, func() error {
		_, err := fetch(ctx, http.MethodPost, api, `{"query":"query { __schema { types { name } } }"}`)
		return err
	})
	if err != nil {
		return err
	}
	b.add("loopback", "GitHub schema: plain fetch (median)", ms(median(plain)), "ms",
		fmt.Sprintf("%.1f MiB of introspection JSON, read whole by a plain HTTP client", mib(len(introspection)+len(`{"data":}`))))
	for _, g := range []graphqlServer{b.graphqlmcp(), b.peer()} {
		if err := b.githubOn(ctx, g, api, median(plain)); err != nil {
			return err
		}
	}
	return nil
}

func (b *bench) githubOn(ctx context.Context, g graphqlServer, api string, plain time.Duration) error {
	server := g.start(api).server
	var cold, cached, query []time.Duration
	var outBytes int
	var peak float64
	for round := range b.sizes.rounds {
		s, _, err := connect(ctx, g.start(api))
		if err != nil {
			return err
		}
		err = func() error {
			defer s.Close()
			start := time.Now()
			res, err := callOK(ctx, s.ClientSession, g.introspect, map[string]any{})
			if err != nil {
				return err
			}
			cold = append(cold, time.Since(start))
			outBytes = len(text(res))
			start = time.Now()
			if _, err := callOK(ctx, s.ClientSession, g.introspect, map[string]any{}); err != nil {
				return err
			}
			cached = append(cached, time.Since(start))
			start = time.Now()
			if _, err := callOK(ctx, s.ClientSession, g.queryTool, g.queryArgs(githubQuery)); err != nil {
				return err
			}
			query = append(query, time.Since(start))
			if server == "graphqlmcp" && round == 0 {
				if err := b.githubViews(ctx, s); err != nil {
					return err
				}
			}
			hwm, err := peakRSSMiB(s.pid())
			peak = max(peak, hwm)
			return err
		}()
		if err != nil {
			return err
		}
	}
	rounds := fmt.Sprintf("%d fresh servers", len(cold))
	coldNote, cachedNote := "the first call of a fresh server", "the second call"
	if server == peerName {
		cachedNote = "the second call; mcp-graphql fetches the schema at every call"
	}
	b.add(server, "GitHub schema: introspect cold (median)", ms(median(cold)), "ms", coldNote+", "+rounds)
	b.add(server, "GitHub schema: cold ÷ plain fetch", float64(median(cold))/float64(plain), "×", "")
	b.add(server, "GitHub schema: introspect cached (median)", ms(median(cached)), "ms", cachedNote)
	b.add(server, "GitHub schema: introspect output", float64(outBytes)/1024, "KiB", "the text the model reads, default arguments")
	b.add(server, "GitHub schema: query after introspection (median)", ms(median(query)), "ms", githubQuery)
	b.add(server, "GitHub schema: peak RSS", peak, "MiB", "VmHWM after the calls")
	return nil
}

// githubViews times graphqlmcp's types and search views on the cached
// schema.
func (b *bench) githubViews(ctx context.Context, s *session) error {
	for _, view := range []struct {
		name string
		args map[string]any
	}{
		{"types", map[string]any{"types": []string{"Repository"}}},
		{"search", map[string]any{"search": "pullRequest"}},
	} {
		times, err := timeEach(b.sizes.starts, func() error {
			_, err := callOK(ctx, s.ClientSession, "graphql_introspect", view.args)
			return err
		})
		if err != nil {
			return err
		}
		b.add("graphqlmcp", "GitHub schema: cached "+view.name+" (median)", ms(median(times)), "ms", fmt.Sprintf("%d calls, %v", len(times), view.args))
	}
	return nil
}

// serveGitHub answers introspection with GitHub's schema and any other
// query with a small result, on loopback.
func serveGitHub(introspection []byte) (string, func(), error) {
	schemaAnswer := append(append([]byte(`{"data":`), introspection...), '}')
	queryAnswer := []byte(`{"data":{"viewer":{"login":"octocat","repositories":{"nodes":[{"name":"hello-world"}]}}}}`)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body bytes.Buffer
		body.ReadFrom(http.MaxBytesReader(w, r.Body, 1<<20))
		w.Header().Set("Content-Type", "application/json")
		if bytes.Contains(body.Bytes(), []byte("__schema")) {
			w.Write(schemaAnswer)
			return
		}
		w.Write(queryAnswer)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	go srv.Serve(ln)
	return "http://" + ln.Addr().String() + "/graphql", func() { srv.Close() }, nil
}
