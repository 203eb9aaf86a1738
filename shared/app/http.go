package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPHandler serves server over Streamable HTTP at /mcp, stateless (every
// request stands alone, so any number of clients and replicas work), with a
// liveness probe at /healthz. The go-sdk handler rejects requests whose Host
// is not local when they arrive on a loopback address (DNS rebinding).
func HTTPHandler(server *mcp.Server, logger *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(
		func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{Stateless: true, Logger: SDKLogger(logger)},
	))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	return mux
}

// ServeHTTP listens on addr and serves HTTPHandler until ctx is done, then
// shuts down gracefully, giving calls in flight 10 seconds to finish.
func ServeHTTP(ctx context.Context, server *mcp.Server, addr string, logger *slog.Logger) error {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		return usageError{fmt.Errorf("--listen %s: %v", addr, err)}
	}
	logger.Info("serving MCP over Streamable HTTP", "url", "http://"+listener.Addr().String()+"/mcp")
	return Serve(ctx, listener, HTTPHandler(server, logger), logger)
}

// Serve serves handler on listener until ctx is done, then shuts down
// gracefully, giving requests in flight 10 seconds to finish. The loopback
// stand-ins (the sample GraphQL API, the capture-API fake) use it too.
func Serve(ctx context.Context, listener net.Listener, handler http.Handler, logger *slog.Logger) error {
	httpServer := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(listener) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
