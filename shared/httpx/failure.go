package httpx

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// FailureKind says why an exchange got no answer, so that a server can add
// which of its settings holds the thing to change.
type FailureKind int

// The kinds of Failure.
const (
	// FailedOther is any other failure; its Reason is the transport's text.
	FailedOther FailureKind = iota
	// Refused: the host answered, but nothing listens on the port.
	Refused
	// NoSuchHost: the host name does not resolve.
	NoSuchHost
	// Unreachable: no route to the host, or no answer to the connection.
	Unreachable
	// TimedOut: the request's own deadline (WithTimeout) fired; After says
	// how long was waited.
	TimedOut
	// Cancelled: the caller gave up.
	Cancelled
	// NotTLS: an https URL names a server that speaks plain HTTP.
	NotTLS
	// BadCertificate: the server's TLS certificate is not trusted for its
	// name.
	BadCertificate
	// ClosedEarly: the connection closed before an HTTP answer came.
	ClosedEarly
	// NoAnswer: the connection was made, but the server did not answer
	// (its TLS handshake or its HTTP answer) within the transport's own
	// limit.
	NoAnswer
	// DeadlinePassed: the caller's own deadline (not WithTimeout's, say a
	// tool's wait limit) ended before an answer came; After says how long
	// the request had waited.
	DeadlinePassed
	// RefusedAddress: nothing was sent, because the URL's host resolves to
	// an address the client's rule refuses, or, through a proxy, does not
	// resolve here (see Options.Guard).
	RefusedAddress
)

// Failure is an exchange that got no answer. Its Reason names what happened
// and, for the kinds whose fix is the same wherever the URL came from, what
// to check; it never holds the URL's path or query, which may carry a secret.
type Failure struct {
	Kind FailureKind
	// After is the deadline that fired, for TimedOut.
	After  time.Duration
	Reason string
}

func (f *Failure) Error() string { return f.Reason }

// timeoutCause marks a context whose deadline was set by WithTimeout.
type timeoutCause struct{ After time.Duration }

func (e *timeoutCause) Error() string { return timedOutText(e.After) }

func timedOutText(d time.Duration) string {
	return fmt.Sprintf("timed out after %d ms", d.Milliseconds())
}

// WithTimeout bounds ctx by d. When d fires, Explain turns the resulting error
// into a TimedOut *Failure that says how long was waited.
func WithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, d, &timeoutCause{After: d})
}

// AsFailure returns err's *Failure, or nil.
func AsFailure(err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		return f
	}
	return nil
}

// Explain turns err, returned by a request made under ctx, into a *Failure:
// the timeout that fired, a cancellation, or the transport failure said in
// words a person (or a model) can act on, without the URL wrapper (whose
// query string may hold a secret).
func Explain(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if cause := context.Cause(ctx); cause != nil {
		var timeout *timeoutCause
		if errors.As(cause, &timeout) {
			return &Failure{Kind: TimedOut, After: timeout.After, Reason: timedOutText(timeout.After)}
		}
		if errors.Is(cause, context.Canceled) {
			return &Failure{Kind: Cancelled, Reason: "the request was cancelled by the client"}
		}
		// A deadline set by the caller is not the network's doing: the
		// connection may have been fine, and the answer merely late.
		if errors.Is(cause, context.DeadlineExceeded) {
			return &Failure{Kind: DeadlinePassed, Reason: "no answer came before the time limit of the call ended"}
		}
	}
	host := ""
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		if u, perr := url.Parse(urlErr.URL); perr == nil {
			host = u.Host
		}
		err = urlErr.Err
	}
	return classify(host, err)
}

// classify names a transport failure. host is the URL's host[:port] as
// written, which says more to the reader than the address dialled.
func classify(host string, err error) *Failure {
	var dnsErr *net.DNSError
	var unknownAuthority x509.UnknownAuthorityError
	var badName x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	var verify *tls.CertificateVerificationError
	var record tls.RecordHeaderError
	var netErr net.Error
	where := host
	if where == "" {
		where = "the server"
	}
	var refusedAddr *AddressError
	var refusedHost *HostError
	switch {
	case errors.As(err, &refusedAddr):
		return &Failure{Kind: RefusedAddress, Reason: refusedAddr.Error()}
	case errors.As(err, &refusedHost):
		return &Failure{Kind: FailedOther, Reason: refusedHost.Error()}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &Failure{Kind: Refused, Reason: fmt.Sprintf("the connection to %s was refused: no server is listening there. "+
			"Check the URL's host and port, and that the server is running", where)}
	case errors.As(err, &dnsErr):
		name := dnsErr.Name
		if name == "" {
			name = hostOnly(host)
		}
		if dnsErr.IsNotFound {
			return &Failure{Kind: NoSuchHost, Reason: fmt.Sprintf("the host name %q does not exist (DNS found no such host). "+
				"Check the URL's host name for a typo", name)}
		}
		return &Failure{Kind: NoSuchHost, Reason: fmt.Sprintf("the host name %q could not be looked up (%s). "+
			"Check the URL's host name, and this machine's DNS and network", name, dnsErr.Err)}
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return &Failure{Kind: Unreachable, Reason: fmt.Sprintf("%s cannot be reached from this machine (no route to it). "+
			"Check the URL's host, and this machine's network", where)}
	case errors.As(err, &unknownAuthority), errors.As(err, &badName), errors.As(err, &invalidCert), errors.As(err, &verify):
		return &Failure{Kind: BadCertificate, Reason: fmt.Sprintf("the TLS certificate of %s is not trusted: %s. "+
			"Check the URL's host name; a server with a private or self-signed certificate needs its CA in SSL_CERT_FILE", where, certDetail(err))}
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return &Failure{Kind: NotTLS, Reason: fmt.Sprintf("%s answered in plain HTTP, not HTTPS: use an http:// URL for it, "+
			"or check the port", where)}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return &Failure{Kind: ClosedEarly, Reason: fmt.Sprintf("%s closed the connection without an HTTP answer. "+
			"Check the URL's port and scheme (http:// or https://), and that the server there speaks HTTP", where)}
	case errors.As(err, &netErr) && netErr.Timeout() && isDial(err):
		return &Failure{Kind: Unreachable, Reason: fmt.Sprintf("connecting to %s took too long (no answer to the connection). "+
			"Check the URL's host and port, and any firewall between", where)}
	case errors.As(err, &netErr) && netErr.Timeout():
		return &Failure{Kind: NoAnswer, Reason: fmt.Sprintf("%s accepted the connection but did not answer in time. "+
			"Check that the URL's port and scheme are the server's HTTP(S) ones, or try again later", where)}
	}
	return &Failure{Kind: FailedOther, Reason: err.Error()}
}

// isDial reports whether err happened while connecting: only then does a
// timeout say anything of the host, the port or a firewall.
func isDial(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// certDetail is the certificate problem without Go's "tls: failed to
// verify certificate: x509: " preamble.
func certDetail(err error) string {
	text := err.Error()
	if i := strings.LastIndex(text, "x509: "); i >= 0 {
		return text[i+len("x509: "):]
	}
	return text
}

func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}
