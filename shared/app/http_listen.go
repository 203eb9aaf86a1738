package app

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	"github.com/mcpforge/servers/shared/mcptool"
	"github.com/urfave/cli/v3"
)

// transportFrom reads --transport and --listen. A --listen given on the
// command line asks for Streamable HTTP, so it implies --transport http,
// rather than being ignored while the server sits on stdio; with
// --transport stdio said explicitly too, the two disagree and the user is
// asked which one they meant. Its variable (GRAPHQL_LISTEN, ...) alone
// does not switch transports: a stdio client that starts the server in an
// environment where it is set (a shell that exported it for an HTTP
// server) would wait for ever on a server that listens instead. The
// variable gives the address when the transport is http.
func transportFrom(cmd *cli.Command) (string, error) {
	transport, listen := cmd.String("transport"), cmd.String("listen")
	if transport != "stdio" && transport != "http" {
		return "", FlagErrorf("transport", "must be stdio or http; got %s. For example --transport http", mcptool.QuoteUpTo(transport, maxQuotedValue))
	}
	if cmd.IsSet("listen") && !listenFromEnv(cmd) {
		if transport == "stdio" && cmd.IsSet("transport") {
			return "", FlagErrorf("listen", "is %s, an address to serve Streamable HTTP on, but --transport is stdio: "+
				"remove --listen to serve over stdio, or use --transport http", shortened(listen))
		}
		transport = "http"
	}
	if transport == "http" {
		if err := checkListen(listen); err != nil {
			return "", err
		}
	}
	return transport, nil
}

// listenVariable is --listen's environment variable. It notes whether it
// gave the flag its value: urfave/cli looks a flag's sources up only when
// the command line did not set the flag, and a value alone cannot tell
// (the same address may be in both).
type listenVariable struct {
	key  string
	used bool
}

func (v *listenVariable) Lookup() (string, bool) {
	value, ok := os.LookupEnv(v.key)
	v.used = ok
	return value, ok
}

// IsFromEnv and Key make --help and errors name the variable.
func (v *listenVariable) IsFromEnv() bool  { return true }
func (v *listenVariable) Key() string      { return v.key }
func (v *listenVariable) String() string   { return fmt.Sprintf("environment variable %q", v.key) }
func (v *listenVariable) GoString() string { return fmt.Sprintf("&listenVariable{key:%q}", v.key) }

// listenFromEnv reports a --listen whose value came from its variable, not
// from the command line.
func listenFromEnv(cmd *cli.Command) bool {
	for _, flag := range cmd.Flags {
		if f, ok := flag.(*cli.StringFlag); ok && f.Name == "listen" {
			for _, source := range f.Sources.Chain {
				if v, ok := source.(*listenVariable); ok && v.used {
					return true
				}
			}
		}
	}
	return false
}

// checkListen refuses a --listen that is not host:port, saying what is
// missing, before any other rule (a loopback host without its port is not
// "not a loopback address").
func checkListen(listen string) error {
	// A port out of range or a service name is left to net.Listen, whose
	// error names it.
	host, port, err := net.SplitHostPort(listen)
	var addrErr *net.AddrError
	switch {
	case err == nil && port == "":
		return FlagErrorf("listen", "has no port: %s ends with a colon. For example --listen %s", mcptool.QuoteUpTo(listen, maxQuotedValue), shortened(net.JoinHostPort(host, "8080")))
	case err == nil:
	case errors.As(err, &addrErr) && addrErr.Err == "missing port in address":
		return FlagErrorf("listen", "has no port: %s is a host alone; give host:port. For example --listen %s", mcptool.QuoteUpTo(listen, maxQuotedValue), shortened(net.JoinHostPort(strings.Trim(listen, "[]"), "8080")))
	case errors.As(err, &addrErr) && addrErr.Err == "too many colons in address":
		return FlagErrorf("listen", "must be host:port with an IPv6 host in brackets; got %s. For example --listen [::1]:8080", mcptool.QuoteUpTo(listen, maxQuotedValue))
	default:
		return FlagErrorf("listen", "must be host:port; got %s. For example --listen 127.0.0.1:8080", mcptool.QuoteUpTo(listen, maxQuotedValue))
	}
	return nil
}
