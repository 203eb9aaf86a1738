// Command samplegraphql serves a sample GraphQL API on loopback, so that
// graphqlmcp can be tried with no account and no network:
//
//	go run ./graphqlmcp/cmd/samplegraphql -listen 127.0.0.1:8088   # from a clone
//	graphqlmcp --endpoint http://127.0.0.1:8088/graphql
//
// The API is the Star Wars example of github.com/graph-gophers/graphql-go:
// heroes, humans, droids, starships, a search, and one mutation
// (createReview), with its data in memory.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	graphql "github.com/graph-gophers/graphql-go"
	"github.com/graph-gophers/graphql-go/example/starwars"
	"github.com/graph-gophers/graphql-go/relay"

	"github.com/mcpforge/servers/shared/app"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:8088", "address to listen on")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *listen); err != nil {
		fmt.Fprintln(os.Stderr, "samplegraphql:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, listen string) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	mux := http.NewServeMux()
	mux.Handle("/graphql", &relay.Handler{Schema: graphql.MustParseSchema(starwars.Schema, &starwars.Resolver{})})
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	logger.Info("sample GraphQL API listening; point graphqlmcp at it with --endpoint", "url", "http://"+ln.Addr().String()+"/graphql")
	return app.Serve(ctx, ln, mux, logger)
}
