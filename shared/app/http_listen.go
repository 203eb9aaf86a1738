package app

import (
	"errors"
	"net"
	"strings"

	"github.com/urfave/cli/v3"
)

// transportFrom reads --transport and --listen. A --listen given (on the
// command line or in its variable) asks for Streamable HTTP, so it implies
// --transport http, rather than being ignored while the server sits on
// stdio; with --transport stdio said explicitly too, the two disagree and
// the user is asked which one they meant.
func transportFrom(cmd *cli.Command) (string, error) {
	transport, listen := cmd.String("transport"), cmd.String("listen")
	if transport != "stdio" && transport != "http" {
		return "", FlagErrorf("transport", "must be stdio or http; got %q. For example --transport http", transport)
	}
	if cmd.IsSet("listen") {
		if transport == "stdio" && cmd.IsSet("transport") {
			return "", FlagErrorf("listen", "is %s, an address to serve Streamable HTTP on, but --transport is stdio: "+
				"remove --listen to serve over stdio, or use --transport http", listen)
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
		return FlagErrorf("listen", "has no port: %q ends with a colon. For example --listen %s", listen, net.JoinHostPort(host, "8080"))
	case err == nil:
	case errors.As(err, &addrErr) && addrErr.Err == "missing port in address":
		return FlagErrorf("listen", "has no port: %q is a host alone; give host:port. For example --listen %s", listen, net.JoinHostPort(strings.Trim(listen, "[]"), "8080"))
	case errors.As(err, &addrErr) && addrErr.Err == "too many colons in address":
		return FlagErrorf("listen", "must be host:port with an IPv6 host in brackets; got %q. For example --listen [::1]:8080", listen)
	default:
		return FlagErrorf("listen", "must be host:port; got %q. For example --listen 127.0.0.1:8080", listen)
	}
	return nil
}
