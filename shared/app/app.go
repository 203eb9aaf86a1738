// Package app runs an MCP server process: the command line both servers share
// (--transport, --listen, --log-level, --version), logging to stderr, the stdio
// and Streamable HTTP transports, exit codes and graceful shutdown.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpforge/servers/shared/mcptool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"
)

// Exit codes of both servers.
const (
	exitOK      = 0
	exitFailure = 1 // the server failed while running
	exitUsage   = 2 // the command line or the environment was wrong
)

// Spec describes one server binary.
type Spec struct {
	Name        string // the binary's name, e.g. "graphqlmcp"
	Usage       string // one line for --help
	Description string // a paragraph for --help
	EnvPrefix   string // prefix of the variables mirroring the shared flags, e.g. "GRAPHQL"
	Flags       []cli.Flag
	// Build makes the server from the parsed command line. An error it returns
	// means bad startup values: its message is printed as one line and the
	// process exits with exitUsage.
	Build func(ctx context.Context, cmd *cli.Command, env Env) (*mcp.Server, error)
	// Hint is printed on stderr when a person starts the server by hand in a
	// terminal over stdio, where it would otherwise sit silently.
	Hint string
	// ScopeCheckedTools are tools not annotated read-only that judge each
	// call themselves, refusing a write when WritesAllowed(ctx) is false
	// (graphqlmcp's graphql_query: a query reads, a mutation writes). An
	// OAuth token with only the read scopes may call them.
	ScopeCheckedTools []string
	// ToolGroupsHelp names the groups of tools --tools and --exclude-tools
	// take besides names, for --help (graphqlmcp: "or the group operations,
	// every saved operation"); empty for a server that defines none.
	ToolGroupsHelp string
}

// Env is what Build receives besides the command line.
type Env struct {
	Logger    *slog.Logger
	UserAgent string
	Version   string
	// Tools is the operator's choice of tools to expose (toolfilter.go).
	Tools mcptool.Filter
	// Transport is how clients connect: "stdio" or "http".
	Transport string
	// Ready is the server's answer to /readyz over HTTP: Build sets a
	// check that its upstream answers (Readiness.Set, UpstreamCheck).
	Ready *Readiness
}

// Streams are the process's standard streams, passed in so that tests can run
// a whole server in-process.
type Streams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Main runs spec as the process and exits with its exit code.
func Main(spec Spec) {
	signalled, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal starts a graceful end of a few seconds; a second
	// one (an impatient Ctrl-C) ends the process at once, as it would
	// without a handler, which is restored before the server hears of the
	// first.
	ctx, cancel := context.WithCancelCause(context.Background())
	context.AfterFunc(signalled, func() {
		stop()
		cancel(context.Cause(signalled))
	})
	code := Run(ctx, spec, os.Args, Streams{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr})
	stop()
	os.Exit(code)
}

// usageError marks an error as the caller's: bad flags or startup values.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// Run runs spec with the command-line args (args[0] is the program name) and
// returns the exit code. It returns when ctx is done or the client goes away.
func Run(ctx context.Context, spec Spec, args []string, std Streams) int {
	version, _ := buildVersion()
	flags := append(append(sharedFlags(spec.EnvPrefix), toolFilterFlags(spec.EnvPrefix, spec.ToolGroupsHelp)...), spec.Flags...)
	versionLine := versionText()
	cmd := &cli.Command{
		Name:        spec.Name,
		Usage:       spec.Usage,
		Description: spec.Description,
		Version:     versionLine,
		Flags:       flags,
		// urfave/cli's own layout puts each flag on one line of up to 170
		// columns; this one fits 80.
		CustomRootCommandHelpTemplate: helpTemplate(spec, flags, versionLine),
		HideHelpCommand:               true,
		Reader:                        std.Stdin,
		Writer:                        std.Stdout, // --help and --version only; a serving process never writes here but through MCP
		ErrWriter:                     std.Stderr,
		ExitErrHandler:                func(context.Context, *cli.Command, error) {},
		OnUsageError: func(_ context.Context, _ *cli.Command, err error, _ bool) error {
			return usageError{err}
		},
		Action: func(ctx context.Context, cmd *cli.Command) error {
			if cmd.Args().Present() {
				return usageError{fmt.Errorf("unexpected argument %s: %s takes flags only; run %s --help to list them", mcptool.QuoteUpTo(cmd.Args().First(), maxQuotedValue), spec.Name, spec.Name)}
			}
			return serve(ctx, spec, cmd, std, version)
		},
	}
	err := cmd.Run(ctx, args)
	if err == nil {
		return exitOK
	}
	if text, ok := describeError(spec, flags, err); ok {
		fmt.Fprintf(std.Stderr, "%s: %s\n", spec.Name, oneLine(text))
		return exitUsage
	}
	var listed interface{ Lines() []string }
	if errors.As(err, &listed) && len(listed.Lines()) > 0 {
		// A list of problems (a file's, each at its place) prints one a
		// line, as a compiler's do, under a first line that says what
		// they stop.
		lines := listed.Lines()
		fmt.Fprintf(std.Stderr, "%s: %s\n", spec.Name, oneLine(lines[0]))
		for _, line := range lines[1:] {
			fmt.Fprintln(std.Stderr, oneLine(line))
		}
	} else {
		fmt.Fprintf(std.Stderr, "%s: %s\n", spec.Name, oneLine(err.Error()))
	}
	var usage usageError
	if errors.As(err, &usage) {
		return exitUsage
	}
	return exitFailure
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func sharedFlags(envPrefix string) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{
			Name:    "transport",
			Value:   "stdio",
			Usage:   "how clients connect: stdio, or http (Streamable HTTP at /mcp)",
			Sources: cli.EnvVars(envPrefix + "_TRANSPORT"),
		},
		&cli.StringFlag{
			Name:  "listen",
			Value: "127.0.0.1:8080",
			Usage: "address to serve Streamable HTTP on, host:port. On the command line it implies --transport http; " +
				"set only as " + envPrefix + "_LISTEN it applies with --transport http and is ignored over stdio",
			// Its own source: see transportFrom.
			Sources: cli.NewValueSourceChain(&listenVariable{key: envPrefix + "_LISTEN"}),
		},
		&cli.StringSliceFlag{
			Name: "allow-origin",
			Usage: "with --transport http: a web origin (https://app.example.com) whose pages may call the server and read its answers (CORS); " +
				"no other page can, local ones included",
			Sources: cli.EnvVars(envPrefix + "_ALLOW_ORIGIN"),
		},
		&cli.StringFlag{
			Name:    "http-token",
			Usage:   "with --transport http: clients must send Authorization: Bearer <this>; required on a non-loopback --listen",
			Sources: cli.EnvVars(envPrefix + "_HTTP_TOKEN"),
		},
		&cli.BoolFlag{
			Name:    "insecure-no-auth",
			Usage:   "with --transport http: serve a non-loopback --listen without --http-token (only behind something that authenticates)",
			Sources: cli.EnvVars(envPrefix + "_INSECURE_NO_AUTH"),
		},
		&cli.StringFlag{
			Name:    "log-level",
			Value:   "info",
			Usage:   "stderr log level: debug, info, warn or error",
			Sources: cli.EnvVars(envPrefix + "_LOG_LEVEL"),
		},
		&cli.StringFlag{
			Name:    "log-format",
			Value:   "text",
			Usage:   "stderr log format: text (key=value) or json (one JSON object a line, for a log collector)",
			Sources: cli.EnvVars(envPrefix + "_LOG_FORMAT"),
		},
	}, oauthFlags(envPrefix)...)
}

func serve(ctx context.Context, spec Spec, cmd *cli.Command, std Streams, version string) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(cmd.String("log-level"))); err != nil {
		return FlagErrorf("log-level", "must be debug, info, warn or error; got %s. For example --log-level debug", mcptool.QuoteUpTo(cmd.String("log-level"), maxQuotedValue))
	}
	logger, err := newLogger(std.Stderr, cmd.String("log-format"), level)
	if err != nil {
		return err
	}
	transport, err := transportFrom(cmd)
	if err != nil {
		return usageError{err}
	}
	var access httpAccess
	if transport == "http" {
		access, err = httpAccessFromCommand(cmd, spec.EnvPrefix)
		if err != nil {
			return usageError{err}
		}
		access.selfChecked = spec.ScopeCheckedTools
	}
	filter, err := toolFilterFrom(cmd)
	if err != nil {
		return usageError{err}
	}
	ready := NewReadiness(logger)
	access.ready = ready
	server, err := spec.Build(ctx, cmd, Env{Logger: logger, UserAgent: userAgent(spec.Name), Version: version, Tools: filter, Transport: transport, Ready: ready})
	if err != nil {
		return usageError{err}
	}
	tel, err := telemetryFromEnv(ctx, os.Getenv, spec.Name, version, logger)
	if err != nil {
		return usageError{err}
	}
	if tel != nil {
		server.AddReceivingMiddleware(tel.middleware)
		defer func() {
			// The last spans and metrics go out after the last answer.
			flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), telemetryShutdownWait)
			defer cancel()
			if err := tel.shutdown(flush); err != nil {
				logger.Warn("telemetry not flushed at exit", "error", shortened(err.Error()))
			}
		}()
	}
	if transport == "http" {
		return serveHTTP(ctx, server, cmd.String("listen"), access, logger)
	}
	if isTerminal(std.Stdin) && spec.Hint != "" {
		fmt.Fprintln(std.Stderr, spec.Hint)
	}
	logger.Debug("serving over stdio")
	return serveStdio(ctx, server, std, logger)
}

// serveStdio serves server on the standard streams until the input ends or
// ctx is done (a signal). Either way every call read is answered before it
// returns (see stdioTransport), within a few seconds.
func serveStdio(ctx context.Context, server *mcp.Server, std Streams, logger *slog.Logger) error {
	end := newShutdown(shutdownGrace)
	server.AddReceivingMiddleware(end.middleware)
	transport := &stdioTransport{in: std.Stdin, out: std.Stdout, logger: logger, shutdown: end, stop: ctx}
	// The session does not get ctx: on a signal the SDK would close it at
	// once and write no more answers. The transport ends it instead.
	ran := make(chan error, 1)
	go func() { ran <- server.Run(transport.sessionContext(context.WithoutCancel(ctx)), transport) }()
	var err error
	select {
	case err = <-ran:
	case <-end.over():
		// Past the grace and the answers' time, a handler that still holds
		// the session (one that ignores its context) does not hold the
		// process.
		select {
		case err = <-ran:
		case <-time.After(shutdownAnswerWait):
			logger.Warn("exiting with a handler still running")
			return nil
		}
	}
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}
