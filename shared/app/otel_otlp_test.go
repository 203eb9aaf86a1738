package app

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	tracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// TestOTLPSenderEndpoint: the general endpoint is a base that /v1/<signal>
// follows; a signal's own is used as it is (its root when it has no path);
// the user info is never part of the URL posted to (nor of an error); a
// value that is not an http or https URL stops the server naming the
// variable, not its value.
func TestOTLPSenderEndpoint(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	for _, tt := range []struct {
		env    map[string]string
		signal string
		want   string
	}{
		{map[string]string{}, "traces", "http://localhost:4318/v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c.example:4318"}, "metrics", "https://c.example:4318/v1/metrics"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://ops:pw_3e1@c:4318/otlp/?x=1"}, "traces", "http://c:4318/otlp/v1/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:9/my/traces"}, "traces", "http://t:9/my/traces"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:9"}, "traces", "http://t:9/"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:9"}, "metrics", "http://c:4318/v1/metrics"},
	} {
		s, err := newOTLPSender(envOf(tt.env), tt.signal, logger)
		if err != nil || s.url != tt.want {
			t.Errorf("%v, %s: URL %v, error %v; want %s", tt.env, tt.signal, s, err, tt.want)
		}
	}
	for _, bad := range []string{"collector:4318", "grpc://pw_3e1@c:4317", "http://", "http://c:4318/%zz"} {
		_, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": bad}), "traces", logger)
		if err == nil || !strings.HasPrefix(err.Error(), "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT must be an http or https URL such as http://collector:4318") || strings.Contains(err.Error(), "pw_3e1") {
			t.Errorf("endpoint %q: error %v, want the variable and the rule, without the value", bad, err)
		}
	}
}

// collectorAnswers is a collector that gives its collectorAnswers in turn (the last one
// from then on), and keeps what it was sent.
type collectorAnswers struct {
	mu       sync.Mutex
	statuses []int
	header   http.Header
	body     []byte
	got      []*http.Request
	bodies   [][]byte
}

func (a *collectorAnswers) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	a.mu.Lock()
	defer a.mu.Unlock()
	status := a.statuses[min(len(a.got), len(a.statuses)-1)]
	a.got, a.bodies = append(a.got, r), append(a.bodies, body)
	for k, v := range a.header {
		w.Header()[k] = v
	}
	w.WriteHeader(status)
	w.Write(a.body)
}

// TestOTLPSenderRetries: 429, 502, 503 and 504 are sent again, after the
// longer of the Retry-After asked for and a backoff of 5 s doubling up to 30 s, for at most a
// minute in all; other refusals at once, and none is retried. The waits
// are counted, not waited.
func TestOTLPSenderRetries(t *testing.T) {
	for _, tt := range []struct {
		name     string
		statuses []int
		after    string
		sent     int
		waits    []time.Duration
		failed   bool
	}{
		{"Retry-After", []int{503, 429, 200}, "7", 3, []time.Duration{7 * time.Second, 14 * time.Second}, false},
		{"backoff", []int{502}, "", 4, []time.Duration{5 * time.Second, 10 * time.Second, 20 * time.Second}, true},
		{"not passing", []int{400}, "7", 1, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := &collectorAnswers{statuses: tt.statuses, header: http.Header{}}
			if tt.after != "" {
				a.header.Set("Retry-After", tt.after)
			}
			collector := httptest.NewServer(a)
			defer collector.Close()
			s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}), "traces", slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			var waits []time.Duration
			s.sleep = func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }
			err = s.send(context.Background(), []byte("body"))
			if (err != nil) != tt.failed || len(a.got) != tt.sent || !slices.Equal(waits, tt.waits) {
				t.Errorf("error %v, %d sent, waits %v; want failed %v, %d sent, waits %v", err, len(a.got), waits, tt.failed, tt.sent, tt.waits)
			}
			if err != nil && !strings.Contains(err.Error(), "failed to send to "+collector.URL+"/v1/traces") {
				t.Errorf("error %v does not name where it was sent", err)
			}
		})
	}
}

// TestOTLPSenderHidesEcho: a collector that refuses an export and echoes
// the credential it was sent does not get it into the export's error,
// which is logged, in any spelling.
func TestOTLPSenderHidesEcho(t *testing.T) {
	const credential = "Bearer otlp-echo-secret-8d2e"
	a := &collectorAnswers{statuses: []int{401}, body: []byte(`{"error":"bad token: ` + credential + `","b64":"` + base64.StdEncoding.EncodeToString([]byte(credential)) + `"}`)}
	collector := httptest.NewServer(a)
	defer collector.Close()
	s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL, "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=" + url.PathEscape(credential)}), "traces", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	err = s.send(context.Background(), []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "otlp-echo-secret") || strings.Contains(err.Error(), base64.StdEncoding.EncodeToString([]byte(credential))[:20]) {
		t.Errorf("error %v: want the refusal, without the credential", err)
	}
	if got := a.got[0].Header.Get("Authorization"); got != credential {
		t.Errorf("Authorization sent %q, want the variable's", got)
	}
}

// TestOTLPSenderHeadersAndGzip: a signal's own variable wins over the
// general one (OTEL_EXPORTER_OTLP_TRACES_HEADERS over _HEADERS), values are
// percent-decoded, a pair that cannot be read is left out and logged
// without its text, and gzip compresses the body.
func TestOTLPSenderHeadersAndGzip(t *testing.T) {
	a := &collectorAnswers{statuses: []int{200}}
	collector := httptest.NewServer(a)
	defer collector.Close()
	var logs bytes.Buffer
	env := envOf(map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":       collector.URL,
		"OTEL_EXPORTER_OTLP_HEADERS":        "X-General=g",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS": " X-Mine = a%20b ,broken secret_7f1,X-Bad=%zzsecret_7f1",
		"OTEL_EXPORTER_OTLP_COMPRESSION":    "gzip",
		"OTEL_EXPORTER_OTLP_TIMEOUT":        "soon",
	})
	traces, err := newOTLPSender(env, "traces", slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := newOTLPSender(env, "metrics", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := traces.send(context.Background(), []byte("spans")); err != nil {
		t.Fatal(err)
	}
	if err := metrics.send(context.Background(), []byte("metrics")); err != nil {
		t.Fatal(err)
	}
	spans, points := a.got[0], a.got[1]
	if spans.Header.Get("X-Mine") != "a b" || spans.Header.Get("X-General") != "" || spans.Header.Get("X-Bad") != "" || points.Header.Get("X-General") != "g" {
		t.Errorf("headers sent: traces %v, metrics %v", spans.Header, points.Header)
	}
	for i, want := range []string{"spans", "metrics"} {
		r, err := gzip.NewReader(bytes.NewReader(a.bodies[i]))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(r)
		if a.got[i].Header.Get("Content-Encoding") != "gzip" || string(body) != want || a.got[i].Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("request %d: %v, body %q", i, a.got[i].Header, body)
		}
	}
	text := logs.String()
	if strings.Contains(text, "secret_7f1") || strings.Count(text, "OTEL_EXPORTER_OTLP_HEADERS") != 2 || !strings.Contains(text, "OTEL_EXPORTER_OTLP_TIMEOUT must be a whole number of milliseconds") {
		t.Errorf("log:\n%s\nwant the two bad pairs and the timeout reported, no value", text)
	}
	if traces.client.Timeout != otlpDefaultTimeout {
		t.Errorf("timeout %v, want the default", traces.client.Timeout)
	}
}

// TestOTLPSenderCertificate: OTEL_EXPORTER_OTLP_CERTIFICATE names the CA a
// collector's certificate is checked against; without it the collector is
// refused; a file that is not one stops the server naming the variable.
func TestOTLPSenderCertificate(t *testing.T) {
	collector := httptest.NewTLSServer(&collectorAnswers{statuses: []int{200}})
	defer collector.Close()
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: collector.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	for _, tt := range []struct {
		cert string
		ok   bool
	}{{ca, true}, {"", false}} {
		s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL, "OTEL_EXPORTER_OTLP_CERTIFICATE": tt.cert}), "traces", logger)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.send(context.Background(), []byte("x")); (err == nil) != tt.ok {
			t.Errorf("certificate %q: error %v", tt.cert, err)
		}
	}
	notPEM := filepath.Join(dir, "not.pem")
	os.WriteFile(notPEM, []byte("hello"), 0o600)
	for _, file := range []string{notPEM, filepath.Join(dir, "missing.pem")} {
		_, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": file}), "traces", logger)
		if err == nil || !strings.HasPrefix(err.Error(), "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE must name a readable PEM file") {
			t.Errorf("%s: error %v", file, err)
		}
	}
	_, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": ca}), "traces", logger)
	if err == nil || !strings.HasPrefix(err.Error(), "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY must name") {
		t.Errorf("a client certificate without its key: error %v", err)
	}
}

// TestOTLPPartialSuccess: a collector that takes an export but rejects part
// of it says so in its answer, which becomes the export's error.
func TestOTLPPartialSuccess(t *testing.T) {
	answer, err := proto.Marshal(&tracepb.ExportTraceServiceResponse{PartialSuccess: &tracepb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "too old"}})
	if err != nil {
		t.Fatal(err)
	}
	a := &collectorAnswers{statuses: []int{200}, header: http.Header{"Content-Type": {"application/x-protobuf"}}, body: answer}
	collector := httptest.NewServer(a)
	defer collector.Close()
	s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}), "traces", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.send(context.Background(), []byte("x")); err == nil || err.Error() != "OTLP partial success: too old (2 rejected)" {
		t.Errorf("error %v, want the partial success", err)
	}
	a.body = nil
	if err := s.send(context.Background(), []byte("x")); err != nil {
		t.Errorf("an empty answer: error %v", err)
	}
}

// TestOTLPSenderRetriesBounded: a collector that keeps asking for no wait
// (Retry-After: 0) or for an absurd one is not sent the export in a hot
// loop nor waited for past the minute: each wait is at least the backoff,
// as the SDK's max(Retry-After, backoff), so at most 4 attempts are made.
func TestOTLPSenderRetriesBounded(t *testing.T) {
	for _, after := range []string{"0", "1000000000", "99999999999999", "-3"} {
		t.Run(after, func(t *testing.T) {
			a := &collectorAnswers{statuses: []int{503}, header: http.Header{"Retry-After": {after}}}
			collector := httptest.NewServer(a)
			defer collector.Close()
			s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}), "traces", slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			var waited time.Duration
			s.sleep = func(_ context.Context, d time.Duration) error { waited += d; return nil }
			if err := s.send(context.Background(), []byte("x")); err == nil {
				t.Fatal("a collector always answering 503 gave no error")
			}
			if len(a.got) > 4 || waited > otlpRetryFor {
				t.Errorf("Retry-After %s: %d attempts, %v waited; want at most 4 and a minute", after, len(a.got), waited)
			}
		})
	}
}

// TestOTLPSenderNoRedirect: a collector (or something on its path) that
// redirects the export elsewhere does not get the headers, which hold the
// collector's credential, sent to another origin: the redirect is not
// followed and the export fails naming the status.
func TestOTLPSenderNoRedirect(t *testing.T) {
	other := &collectorAnswers{statuses: []int{200}}
	elsewhere := httptest.NewServer(other)
	defer elsewhere.Close()
	for _, status := range []int{301, 302, 307, 308} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/v1/traces", status)
		}))
		s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": redirector.URL, "OTEL_EXPORTER_OTLP_HEADERS": "X-Api-Key=redirect-secret-41"}), "traces", slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		err = s.send(context.Background(), []byte("x"))
		redirector.Close()
		if err == nil || !strings.Contains(err.Error(), strconv.Itoa(status)) || !strings.Contains(err.Error(), "not followed") {
			t.Errorf("%d: error %v, want the redirect refused", status, err)
		}
	}
	if len(other.got) != 0 {
		t.Errorf("the other origin was sent %d requests (headers %v)", len(other.got), other.got[0].Header)
	}
}

// TestOTLPPartialSuccessRedacted: a partial success's message is the
// collector's words too, and a collector echoing the credential there does
// not get it logged.
func TestOTLPPartialSuccessRedacted(t *testing.T) {
	const credential = "partial-secret-93c1"
	answer, err := proto.Marshal(&tracepb.ExportTraceServiceResponse{PartialSuccess: &tracepb.ExportTracePartialSuccess{RejectedSpans: 1, ErrorMessage: "token " + credential + " over quota"}})
	if err != nil {
		t.Fatal(err)
	}
	collector := httptest.NewServer(&collectorAnswers{statuses: []int{200}, header: http.Header{"Content-Type": {"application/x-protobuf"}}, body: answer})
	defer collector.Close()
	s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL, "OTEL_EXPORTER_OTLP_HEADERS": "X-Token=" + credential}), "traces", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.send(context.Background(), []byte("x")); err == nil || strings.Contains(err.Error(), credential) || !strings.Contains(err.Error(), "over quota") {
		t.Errorf("error %v: want the partial success without the credential", err)
	}
}

// TestOTLPSenderClientCertificate: OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and
// _CLIENT_KEY are the certificate a collector that asks for one (mutual
// TLS) is shown; without them it refuses the export; a CA that did not sign
// the collector's certificate is refused; a key file that is not one stops
// the server without its contents in the error.
func TestOTLPSenderClientCertificate(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return file
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	template := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mcp server"}, NotBefore: time.Unix(0, 0), NotAfter: time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	clientCert := write("client.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
	clientKey := write("client.key", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}))
	parsed, _ := x509.ParseCertificate(der)
	clients := x509.NewCertPool()
	clients.AddCert(parsed)

	collector := httptest.NewUnstartedServer(&collectorAnswers{statuses: []int{200}})
	collector.TLS = &tls.Config{ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients}
	collector.Config.ErrorLog = log.New(io.Discard, "", 0)
	collector.StartTLS()
	defer collector.Close()
	ca := write("ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: collector.Certificate().Raw}))
	// Another CA: the client's own certificate, which did not sign the
	// collector's.
	wrongCA := clientCert
	logger := slog.New(slog.DiscardHandler)
	for _, tt := range []struct {
		name             string
		ca, cert, keyPEM string
		ok               bool
	}{
		{"mutual", ca, clientCert, clientKey, true},
		{"no client certificate", ca, "", "", false},
		{"wrong CA", wrongCA, clientCert, clientKey, false},
	} {
		s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL, "OTEL_EXPORTER_OTLP_CERTIFICATE": tt.ca,
			"OTEL_EXPORTER_OTLP_METRICS_CLIENT_CERTIFICATE": tt.cert, "OTEL_EXPORTER_OTLP_METRICS_CLIENT_KEY": tt.keyPEM}), "metrics", logger)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if err := s.send(context.Background(), []byte("x")); (err == nil) != tt.ok {
			t.Errorf("%s: error %v", tt.name, err)
		}
	}
	const secret = "key-file-secret-5b2e"
	badKey := write("bad.key", []byte("-----BEGIN PRIVATE KEY-----\n"+secret+"\n-----END PRIVATE KEY-----\n"+secret))
	_, err = newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": clientCert, "OTEL_EXPORTER_OTLP_CLIENT_KEY": badKey}), "traces", logger)
	if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_CLIENT_KEY") {
		t.Errorf("a key file that is not one: error %v, want the variables named, not the file's contents", err)
	}
}

// TestOTLPSenderCancelled: an export waiting out a collector's Retry-After
// (30 s, forever) ends when its context does, not after the wait. (At
// shutdown the SDK's batcher exports with its own timeout, OTEL_BSP_EXPORT_TIMEOUT,
// as it did with the SDK's exporters; the shutdown itself returns at its
// 5 s deadline and the process exits.)
func TestOTLPSenderCancelled(t *testing.T) {
	asked := make(chan struct{}, 16)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(http.StatusServiceUnavailable)
		select {
		case asked <- struct{}{}:
		default:
		}
	}))
	defer collector.Close()
	s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}), "traces", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	sent := make(chan error, 1)
	go func() { sent <- s.send(ctx, []byte("x")) }()
	<-asked // refused, and now waiting 30 s
	cancel()
	// A safety net, far under the 30 s the collector asked for.
	select {
	case err := <-sent:
		if err == nil || !strings.Contains(err.Error(), "context canceled") {
			t.Errorf("error %v, want the cancellation", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the export was held past its context by the collector's Retry-After")
	}
}

// TestOTLPSenderKeyPathNotShown: a client key or certificate that cannot be
// read stops the server naming the variable and why, not the path, which
// can say where secrets are kept.
func TestOTLPSenderKeyPathNotShown(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vault-path-7c3d")
	for _, env := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE": filepath.Join(dir, "c.pem"), "OTEL_EXPORTER_OTLP_CLIENT_KEY": filepath.Join(dir, "k.pem")},
		{"OTEL_EXPORTER_OTLP_CLIENT_KEY": filepath.Join(dir, "k.pem")},
	} {
		_, err := newOTLPSender(envOf(env), "traces", slog.New(slog.DiscardHandler))
		if err == nil || strings.Contains(err.Error(), "vault-path-7c3d") || !strings.Contains(err.Error(), "OTEL_EXPORTER_OTLP_CLIENT_") {
			t.Errorf("%v: error %v, want the variable without the path", env, err)
		}
	}
}

// TestOTLPSenderAnswerBounded: a collector's answer that unpacks to 64 MiB
// (a gzip bomb, in a refusal or a partial success) is read no further
// than 64 KiB, and its quote in the error is short.
func TestOTLPSenderAnswerBounded(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zw.Write(bytes.Repeat([]byte("a"), 64<<20))
	zw.Close()
	for _, status := range []int{400, 200} {
		collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Encoding", "gzip")
			w.Header().Set("Content-Type", "application/x-protobuf")
			w.WriteHeader(status)
			w.Write(bomb.Bytes())
		}))
		s, err := newOTLPSender(envOf(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}), "traces", slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err = s.send(context.Background(), []byte("x"))
		runtime.ReadMemStats(&after)
		collector.Close()
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 8<<20 {
			t.Errorf("%d: reading the answer allocated %d bytes", status, grew)
		}
		if err != nil && len(err.Error()) > 2000 {
			t.Errorf("%d: error of %d bytes", status, len(err.Error()))
		}
	}
}

// TestOTLPTemporality: OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE
// gives each kind of instrument the temporality the SDK's exporter gives
// it, for every value the specification names and one it does not.
func TestOTLPTemporality(t *testing.T) {
	kinds := []sdkmetric.InstrumentKind{sdkmetric.InstrumentKindCounter, sdkmetric.InstrumentKindUpDownCounter, sdkmetric.InstrumentKindHistogram,
		sdkmetric.InstrumentKindObservableCounter, sdkmetric.InstrumentKindObservableUpDownCounter, sdkmetric.InstrumentKindObservableGauge, sdkmetric.InstrumentKindGauge}
	for _, preference := range []string{"", "cumulative", "Delta", "lowmemory", "fast"} {
		t.Run(preference, func(t *testing.T) {
			const variable = "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE"
			t.Setenv(variable, preference)
			sdk, err := otlpmetrichttp.New(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			ours := newOTLPMetricExporter(nil, envOf(map[string]string{variable: preference}), slog.New(slog.DiscardHandler))
			for _, kind := range kinds {
				if got, want := ours.Temporality(kind), sdk.Temporality(kind); got != want {
					t.Errorf("%v: %v, the SDK's exporter %v", kind, got, want)
				}
			}
		})
	}
}
