// Command fakehooksvc serves an in-memory stand-in for the webhook-capture API
// on loopback, so that hookmcp can be tried with no account and no network:
//
//	go run ./hookmcp/cmd/fakehooksvc -listen 127.0.0.1:8089   # from a clone
//	HOOKSVC_API_URL=http://127.0.0.1:8089 hookmcp
//
// Tokens and requests live in memory and are gone when it stops. Requests sent
// to http://127.0.0.1:8089/<token uuid> are captured like the real service's,
// and pushed to subscribers of its socket (/socket.io/); with listen set on the
// token, a sender waits for a response set through the API, as webhook.site's
// own CLI (whcli forward) sets it.
//
// With -php-escapes the API's JSON is spelled as the hosted service spells
// it (PHP's json_encode: https:\/\/..., \u00e9), which the clients of the
// service must undo; scripts/bench runs it so.
//
// It accepts the API key the docs' configurations use, your_hooksvc_api_key
// (docsAPIKey), unless -api-keys names others, so that every documented
// hookmcp entry works against it as written, key and all.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpforge/servers/hookmcp/internal/fakehooksvc"
	"github.com/mcpforge/servers/shared/app"
)

// docsAPIKey is the placeholder key of the docs' hookmcp configurations
// (HOOKSVC_API_KEY=your_hooksvc_api_key), which the fake accepts by default.
const docsAPIKey = "your_hooksvc_api_key"

func main() {
	listen := flag.String("listen", "127.0.0.1:8089", "address to listen on")
	keys := flag.String("api-keys", docsAPIKey, "comma-separated API keys the fake accepts (tokens created with one are private to it); the default is the key the docs' configurations use, so they work as written; a key not listed gets 401")
	phpEscapes := flag.Bool("php-escapes", false, "write the API's JSON as the hosted service's PHP does (every / as \\/, every character beyond ASCII as \\uXXXX) instead of as Go does")
	openSource := flag.Bool("open-source", false, "behave like the open-source server: listing and deleting requests ignore date_from, date_to and query; 410 for unknown tokens; PUT ignores cors, alias, expiry, listen, request_limit and actions; 422s in the flat {\"field\":[...]} form; no response set for a waiting sender")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opts := fakehooksvc.Options{OpenSource: *openSource, PHPEscapes: *phpEscapes}
	if err := run(ctx, *listen, *keys, opts); err != nil {
		fmt.Fprintln(os.Stderr, "fakehooksvc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, listen, keys string, opts fakehooksvc.Options) error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	for _, k := range strings.Split(keys, ",") {
		if k = strings.TrimSpace(k); k != "" {
			opts.APIKeys = append(opts.APIKeys, k)
		}
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return err
	}
	logger.Info("fake capture API listening; point hookmcp at it with HOOKSVC_API_URL", "url", "http://"+ln.Addr().String())
	return app.Serve(ctx, ln, fakehooksvc.New(opts), logger)
}
