package app

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/redact"
)

// OTLP over HTTP is sent here, not by the SDK's otlptracehttp and
// otlpmetrichttp: those import OTLP's collector packages, which import
// gRPC and grpc-gateway (open-telemetry/opentelemetry-go#2579, #8385), 7 MB
// of a 29 MB binary, linked into every server whether telemetry is on or
// not, and 3 MiB of its memory from the start (the start touches nearly
// every page of a binary's code). The spans and metrics are written as OTLP
// by otel_wire.go. What is sent, and which variables say where and how,
// follow the SDK's exporters and OTLP's specification.

// Where and how long, as the specification's defaults.
const (
	otlpDefaultEndpoint = "http://localhost:4318"
	otlpDefaultTimeout  = 10 * time.Second
	// otlpMaxAnswerBytes bounds what is read of a collector's answer.
	otlpMaxAnswerBytes = 64 << 10
)

// A refused export the collector says is passing (429, 502, 503, 504) is
// sent again, as the SDK's exporters do: after the longer of Retry-After
// and a wait that starts at otlpRetryFirst and doubles up to
// otlpRetryMost, for at most otlpRetryFor of waits in all. A Retry-After
// shorter than the backoff is not taken as it is: a collector answering
// "Retry-After: 0" would otherwise be sent the export in a hot loop.
const (
	otlpRetryFirst = 5 * time.Second
	otlpRetryMost  = 30 * time.Second
	otlpRetryFor   = time.Minute
)

// otlpSender posts a signal's OTLP requests to the collector.
type otlpSender struct {
	client *http.Client
	// url is where the signal is posted, without the user info the
	// variable may hold (Go would send it as basic auth, and errors quote
	// the URL).
	url     string
	headers map[string]string
	// redactor hides the headers' values (a collector's credential) from
	// what a refusing collector wrote, which an export's error quotes.
	redactor redact.Redactor
	gzip     bool
	// sleep waits between attempts (tests give one that does not).
	sleep func(context.Context, time.Duration) error
}

// newOTLPSender reads the OTEL_EXPORTER_OTLP_* variables for signal
// ("traces" or "metrics"): each the signal's own (OTEL_EXPORTER_OTLP_TRACES_HEADERS)
// when set, else the general one. A variable this cannot follow either stops
// the server, naming it (the endpoint, a certificate), or is logged and
// left out (a header pair, the timeout, the compression), as the SDK did.
// No error or log line repeats a value: the endpoint may hold a password,
// the headers a credential.
func newOTLPSender(getenv func(string) string, signal string, logger *slog.Logger) (*otlpSender, error) {
	upper := strings.ToUpper(signal)
	variable := func(name string) string {
		if value := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + upper + "_" + name)); value != "" {
			return "OTEL_EXPORTER_OTLP_" + upper + "_" + name
		}
		return "OTEL_EXPORTER_OTLP_" + name
	}
	value := func(name string) string { return strings.TrimSpace(getenv(variable(name))) }
	sink := otelLogSink{logger}

	endpoint, err := otlpURL(getenv, signal)
	if err != nil {
		return nil, err
	}
	s := &otlpSender{url: endpoint, headers: otlpHeaders(value("HEADERS"), sink), sleep: httpx.Sleep}
	var secrets []string
	for _, v := range s.headers {
		secrets = append(secrets, v)
	}
	s.redactor = redact.New(secrets...)
	switch compression := value("COMPRESSION"); compression {
	case "gzip":
		s.gzip = true
	case "", "none":
	default:
		logger.Warn("telemetry configuration: " + variable("COMPRESSION") + " must be gzip or none; sending uncompressed")
	}
	timeout := otlpDefaultTimeout
	if raw := value("TIMEOUT"); raw != "" {
		ms, err := strconv.Atoi(raw)
		if err != nil || ms <= 0 {
			logger.Warn("telemetry configuration: " + variable("TIMEOUT") + " must be a whole number of milliseconds above 0; using 10000")
		} else {
			timeout = time.Duration(ms) * time.Millisecond
		}
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if transport.TLSClientConfig, err = otlpTLS(value, variable); err != nil {
		return nil, err
	}
	s.client = &http.Client{Transport: transport, Timeout: timeout, CheckRedirect: refuseRedirect}
	return s, nil
}

// refuseRedirect keeps the sender where the operator pointed it: Go's
// client follows a redirect with every header but Authorization and Cookie,
// so a collector credential in OTEL_EXPORTER_OTLP_HEADERS (X-Api-Key,
// x-honeycomb-team...) would go to whatever origin a redirect names. The SDK
// followed them; a collector has no reason to redirect an export.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// otlpURL is where signal is posted: OTEL_EXPORTER_OTLP_<SIGNAL>_ENDPOINT as
// it is (its root when it has no path), else OTEL_EXPORTER_OTLP_ENDPOINT
// with /v1/<signal> after its path, else the default's.
func otlpURL(getenv func(string) string, signal string) (string, error) {
	name := "OTEL_EXPORTER_OTLP_" + strings.ToUpper(signal) + "_ENDPOINT"
	raw, own := strings.TrimSpace(getenv(name)), true
	if raw == "" {
		name, own = "OTEL_EXPORTER_OTLP_ENDPOINT", false
		if raw = strings.TrimSpace(getenv(name)); raw == "" {
			raw = otlpDefaultEndpoint
		}
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s must be an http or https URL such as http://collector:4318 (its value is not shown: it may hold a password)", name)
	}
	p := u.Path
	switch {
	case !own:
		p = path.Join(p, "/v1/"+signal)
	case p == "":
		p = "/"
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: p}).String(), nil
}

// otlpHeaders reads OTEL_EXPORTER_OTLP_HEADERS' key=value pairs, separated
// by commas, values percent-encoded. A pair it cannot read is left out and
// logged without its text, as otelLogSink logs the SDK's complaints.
func otlpHeaders(raw string, sink otelLogSink) map[string]string {
	headers := map[string]string{}
	if raw == "" {
		return headers
	}
	for _, pair := range strings.Split(raw, ",") {
		name, encoded, found := strings.Cut(pair, "=")
		name = strings.TrimSpace(name)
		if !found || !validHeaderName(name) {
			sink.Error(nil, "parse headers")
			continue
		}
		value, err := url.PathUnescape(encoded)
		if err != nil {
			sink.Error(nil, "escape header value")
			continue
		}
		headers[name] = strings.TrimSpace(value)
	}
	return headers
}

// validHeaderName reports a header name of HTTP's token characters.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// otlpTLS is the TLS configuration the certificate variables ask for, or
// nil for Go's defaults. A file that cannot be read or holds no
// certificate stops the server: a collector reached without the
// certificate meant for it would refuse every export.
func otlpTLS(value func(string) string, variable func(string) string) (*tls.Config, error) {
	var config *tls.Config
	if file := value("CERTIFICATE"); file != "" {
		pem, err := os.ReadFile(file)
		pool := x509.NewCertPool()
		if err != nil || !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s must name a readable PEM file of the collector's CA certificates; %s is not one", variable("CERTIFICATE"), file)
		}
		config = &tls.Config{RootCAs: pool}
	}
	certFile, keyFile := value("CLIENT_CERTIFICATE"), value("CLIENT_KEY")
	if certFile != "" || keyFile != "" {
		rule := fmt.Sprintf("%s and %s must name readable PEM files of a client certificate and its key", variable("CLIENT_CERTIFICATE"), variable("CLIENT_KEY"))
		// Read here, not by tls.LoadX509KeyPair, whose errors quote the
		// path, which can say where the secrets are kept.
		var files [2][]byte
		for i, name := range []string{"CLIENT_CERTIFICATE", "CLIENT_KEY"} {
			file := certFile
			if i == 1 {
				file = keyFile
			}
			if file == "" {
				return nil, fmt.Errorf("%s; %s is not set", rule, variable(name))
			}
			var err error
			if files[i], err = os.ReadFile(file); err != nil {
				reason := err
				var pathErr *fs.PathError
				if errors.As(err, &pathErr) {
					reason = pathErr.Err
				}
				return nil, fmt.Errorf("%s; %s cannot be read: %v (its path is not shown)", rule, variable(name), reason)
			}
		}
		// X509KeyPair's errors name neither a path nor the key's bytes.
		pair, err := tls.X509KeyPair(files[0], files[1])
		if err != nil {
			return nil, fmt.Errorf("%s: %s", rule, shortened(err.Error()))
		}
		if config == nil {
			config = &tls.Config{}
		}
		config.Certificates = []tls.Certificate{pair}
	}
	return config, nil
}

// send posts body, an encoded export request, again while the collector
// says its refusal is passing and time is left.
func (s *otlpSender) send(ctx context.Context, body []byte) error {
	if s.gzip {
		var zipped bytes.Buffer
		w := gzip.NewWriter(&zipped)
		if _, err := w.Write(body); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		body = zipped.Bytes()
	}
	wait, spent := otlpRetryFirst, time.Duration(0)
	for {
		retry, asked, err := s.post(ctx, body)
		if !retry {
			return err
		}
		wait = max(wait, asked)
		if spent+wait > otlpRetryFor {
			return err
		}
		if slept := s.sleep(ctx, wait); slept != nil {
			return errors.Join(err, slept)
		}
		spent += wait
		wait = min(2*wait, otlpRetryMost)
	}
}

// post sends body once. retry says the refusal is passing, and asked is
// the wait the collector's Retry-After gave, or -1.
func (s *otlpSender) post(ctx context.Context, body []byte) (retry bool, asked time.Duration, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return false, -1, err
	}
	for name, value := range s.headers {
		req.Header.Set(name, value)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("User-Agent", "mcpforge OTLP over HTTP/protobuf exporter")
	if s.gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	resp, err := s.client.Do(req)
	if err != nil {
		// url.Error quotes s.url, which holds no password.
		return false, -1, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, otlpMaxAnswerBytes))
	if err != nil {
		return false, -1, fmt.Errorf("reading the answer of %s: %w", s.url, err)
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if resp.Header.Get("Content-Type") == "application/x-protobuf" {
			return false, -1, partialSuccess(answer, s.redactor)
		}
		return false, -1, nil
	}
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		// Where it points is not quoted: the collector's words.
		return false, -1, fmt.Errorf("failed to send to %s: %s: redirects are not followed (the headers would go with it); set the endpoint to the collector's own URL", s.url, resp.Status)
	}
	text := strings.TrimSpace(s.redactor.String(string(answer)))
	if text == "" {
		text = "(empty)"
	}
	err = fmt.Errorf("failed to send to %s: %s (body: %s)", s.url, resp.Status, shortened(text))
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		asked = -1
		// Over a minute is past what is waited in all, whatever its
		// size: seconds*time.Second would overflow to any wait.
		if seconds, convErr := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); convErr == nil && seconds >= 0 {
			asked = time.Duration(min(seconds, int(otlpRetryFor/time.Second)+1)) * time.Second
		}
		return true, asked, err
	}
	return false, -1, err
}

// partialSuccess reads an export's answer (Export*ServiceResponse: field 1,
// partial_success, holding the count rejected in field 1 and a message in
// field 2, alike for spans and data points) and reports what the collector
// rejected, or nil. The message is the collector's words, which may echo
// the headers: redactor hides their values.
func partialSuccess(answer []byte, redactor redact.Redactor) error {
	inner, ok := protoField(answer, 1, protowire.BytesType)
	if !ok {
		return nil
	}
	var rejected uint64
	if raw, ok := protoField(inner, 1, protowire.VarintType); ok {
		rejected, _ = protowire.ConsumeVarint(raw)
	}
	message := ""
	if raw, ok := protoField(inner, 2, protowire.BytesType); ok {
		message = redactor.String(string(raw))
	}
	if rejected == 0 && message == "" {
		return nil
	}
	return fmt.Errorf("OTLP partial success: %s (%d rejected)", shortened(message), int64(rejected))
}

// protoField finds field number of type typ in msg: a bytes field's
// contents, or a varint's encoding.
func protoField(msg []byte, number protowire.Number, typ protowire.Type) ([]byte, bool) {
	for len(msg) > 0 {
		num, t, n := protowire.ConsumeTag(msg)
		if n < 0 {
			return nil, false
		}
		msg = msg[n:]
		size := protowire.ConsumeFieldValue(num, t, msg)
		if size < 0 {
			return nil, false
		}
		if num == number && t == typ {
			if t == protowire.BytesType {
				value, _ := protowire.ConsumeBytes(msg)
				return value, true
			}
			return msg[:size], true
		}
		msg = msg[size:]
	}
	return nil, false
}

// otlpSpanExporter sends the SDK's spans as OTLP (otel_wire.go).
type otlpSpanExporter struct{ sender *otlpSender }

func (e otlpSpanExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	if len(spans) == 0 {
		return nil
	}
	return e.sender.send(ctx, spansRequest(spans))
}

// Shutdown has nothing to do: ExportSpans holds nothing back.
func (otlpSpanExporter) Shutdown(context.Context) error { return nil }
