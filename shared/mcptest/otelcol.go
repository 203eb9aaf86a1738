package mcptest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// OTelCall is one tool call of a CheckOTLPCollector run and what its span
// must say.
type OTelCall struct {
	Tool string
	// Args are the call's arguments. Every string in them is a value the
	// telemetry must not hold, so each should be distinctive.
	Args map[string]any
	// Outcome is "ok" or "tool_error", as the span's mcp.tool.outcome.
	Outcome string
	// UpstreamStatus is the status of the last upstream answer the call
	// read, the span's http.response.status_code; 0 when it sent nothing.
	UpstreamStatus int
}

// OTelCheck is a server binary run over Streamable HTTP with its telemetry
// sent to the OpenTelemetry Collector's OTLP receiver.
type OTelCheck struct {
	Binary string
	// Args and Env are the server's own, besides --transport http, --listen
	// and the OTEL_* variables.
	Args, Env []string
	Calls     []OTelCall
	// Secrets must not appear anywhere in what the receiver decoded: the
	// server's header values and API keys.
	Secrets []string
}

// collectorSecret is the collector's credential, sent by the exporters from
// OTEL_EXPORTER_OTLP_HEADERS; the receiver refuses exports without it.
const collectorSecret = "otlp-collector-secret-6f1d0c"

// CheckOTLPCollector starts the OpenTelemetry Collector's own OTLP receiver
// (scripts/otelcol, built from the Collector's Go module; its path in
// OTEL_COLLECTOR_RECEIVER, which scripts/e2e sets), starts the server with
// the standard OTEL_* variables pointing at it, makes c's calls, stops the
// server with SIGTERM (which flushes its telemetry) and checks what the
// receiver decoded: one span per call with the tool's name, outcome and
// upstream status; the calls, errors, duration and upstream-bytes metrics
// counting them; the exports carrying OTEL_EXPORTER_OTLP_HEADERS's
// credential; and none of the calls' argument values, c's secrets or that
// credential anywhere in the data. It skips when OTEL_COLLECTOR_RECEIVER
// is unset.
func CheckOTLPCollector(t *testing.T, c OTelCheck) {
	t.Helper()
	receiver := os.Getenv("OTEL_COLLECTOR_RECEIVER")
	if receiver == "" {
		t.Skip("OTEL_COLLECTOR_RECEIVER is not set to the built scripts/otelcol; scripts/e2e builds it and sets it")
	}
	collectorURL, exportsFile := startCollector(t, receiver)

	name := filepath.Base(c.Binary)
	cmd := exec.Command(c.Binary, append([]string{"--transport", "http", "--listen", "127.0.0.1:0"}, c.Args...)...)
	cmd.Env = append(withoutOTel(os.Environ()), c.Env...)
	cmd.Env = append(cmd.Env,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+collectorURL,
		"OTEL_TRACES_EXPORTER=otlp",
		"OTEL_METRICS_EXPORTER=otlp",
		"OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20"+collectorSecret)
	log := &SyncBuffer{}
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // a safety net
	defer cancel()
	if err := log.Await(ctx, " url="); err != nil {
		t.Fatalf("%s: %v; its log:\n%s", name, err, log.String())
	}
	endpoint := regexp.MustCompile(`url=(http://\S+)`).FindStringSubmatch(log.String())[1]

	session := ConnectClient(t, &mcp.StreamableClientTransport{Endpoint: endpoint})
	var leaks []string
	for _, call := range c.Calls {
		res := Call(t, ctx, session, call.Tool, call.Args)
		if res.IsError != (call.Outcome != "ok") {
			t.Fatalf("%s: isError %v, want the outcome %s: %s", call.Tool, res.IsError, call.Outcome, Text(res))
		}
		leaves(call.Args, "", func(_ string, v any) {
			if s, ok := v.(string); ok {
				leaks = append(leaks, s)
			}
		})
	}
	session.Close()
	Stop(t, cmd)
	if strings.Contains(log.String(), "telemetry export failed") || strings.Contains(log.String(), "telemetry not flushed") {
		t.Errorf("%s could not export its telemetry:\n%s", name, log.String())
	}

	got := readExports(t, exportsFile)
	for _, resource := range got.resources {
		if resource["service.name"] != name {
			t.Errorf("a resource's service.name is %q, want %q", resource["service.name"], name)
		}
	}
	checkSpans(t, got.spans, c.Calls)
	checkMetrics(t, got.points, c.Calls)
	for _, leak := range append(append(leaks, c.Secrets...), collectorSecret) {
		if strings.Contains(got.raw, leak) {
			t.Errorf("the telemetry holds %q", leak)
		}
	}
}

// startCollector starts the receiver and returns its OTLP/HTTP URL and the
// file it writes each export to. It refuses exports without the collector's
// credential, so an export that arrives proves the exporter sent it.
func startCollector(t *testing.T, receiver string) (url, exportsFile string) {
	t.Helper()
	exportsFile = filepath.Join(t.TempDir(), "exports.jsonl")
	cmd := exec.Command(receiver, "-out", exportsFile)
	cmd.Env = append(os.Environ(), "OTELCOL_REQUIRE_AUTHORIZATION=Bearer "+collectorSecret)
	stderr := &SyncBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url = scanFor(stdout, regexp.MustCompile(`^endpoint=(http://\S+)$`))
	if url == "" {
		// Its log is all read once it has exited.
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the OTLP receiver %s printed no endpoint; its log:\n%s", receiver, stderr.String())
	}
	return url, exportsFile
}

// withoutOTel drops the OTEL_* variables of the test's own environment,
// which would change what the server exports.
func withoutOTel(env []string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, "OTEL_") })
}

// otelSpan is a span as the receiver decoded it.
type otelSpan struct {
	name  string
	attrs map[string]string
}

func (s otelSpan) String() string {
	keys := slices.Sorted(maps.Keys(s.attrs))
	var b strings.Builder
	b.WriteString(s.name)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%s", k, s.attrs[k])
	}
	return b.String()
}

// otelExports is what the receiver wrote, decoded from OTLP JSON.
type otelExports struct {
	raw       string
	resources []map[string]string
	spans     []otelSpan
	// points maps a metric's name to its series, by their attributes
	// written k=v,k=v sorted, to the value of the last point: a sum's value
	// or a histogram's count. The SDK's temporality is cumulative, so the
	// last point holds the total.
	points map[string]map[string]int64
}

// OTLP JSON, as the Collector's pdata writes it: the parts read here.
type otlpAttr struct {
	Key   string `json:"key"`
	Value struct {
		StringValue *string `json:"stringValue"`
		IntValue    *string `json:"intValue"` // int64 is a string in OTLP JSON
	} `json:"value"`
}

type otlpPoint struct {
	Attributes []otlpAttr `json:"attributes"`
	AsInt      *string    `json:"asInt"`
	Count      *string    `json:"count"`
}

type otlpLine struct {
	ResourceSpans []struct {
		Resource   struct{ Attributes []otlpAttr } `json:"resource"`
		ScopeSpans []struct {
			Spans []struct {
				Name       string     `json:"name"`
				Attributes []otlpAttr `json:"attributes"`
			} `json:"spans"`
		} `json:"scopeSpans"`
	} `json:"resourceSpans"`
	ResourceMetrics []struct {
		Resource     struct{ Attributes []otlpAttr } `json:"resource"`
		ScopeMetrics []struct {
			Metrics []struct {
				Name      string                            `json:"name"`
				Sum       *struct{ DataPoints []otlpPoint } `json:"sum"`
				Histogram *struct{ DataPoints []otlpPoint } `json:"histogram"`
			} `json:"metrics"`
		} `json:"scopeMetrics"`
	} `json:"resourceMetrics"`
}

func attrMap(attrs []otlpAttr) map[string]string {
	m := map[string]string{}
	for _, a := range attrs {
		switch {
		case a.Value.StringValue != nil:
			m[a.Key] = *a.Value.StringValue
		case a.Value.IntValue != nil:
			m[a.Key] = *a.Value.IntValue
		default:
			m[a.Key] = "(not a string or an int)"
		}
	}
	return m
}

// seriesKey writes a series' attributes as k=v,k=v, sorted.
func seriesKey(attrs map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		parts = append(parts, k+"="+attrs[k])
	}
	return strings.Join(parts, ",")
}

func readExports(t *testing.T, file string) otelExports {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the receiver wrote no exports: %v", err)
	}
	got := otelExports{raw: string(data), points: map[string]map[string]int64{}}
	lines := bufio.NewScanner(strings.NewReader(got.raw))
	lines.Buffer(nil, 16<<20)
	for lines.Scan() {
		var line otlpLine
		if err := json.Unmarshal(lines.Bytes(), &line); err != nil {
			t.Fatalf("an export is not OTLP JSON: %v: %s", err, lines.Text())
		}
		for _, rs := range line.ResourceSpans {
			got.resources = append(got.resources, attrMap(rs.Resource.Attributes))
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					got.spans = append(got.spans, otelSpan{name: s.Name, attrs: attrMap(s.Attributes)})
				}
			}
		}
		for _, rm := range line.ResourceMetrics {
			got.resources = append(got.resources, attrMap(rm.Resource.Attributes))
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					var points []otlpPoint
					switch {
					case m.Sum != nil:
						points = m.Sum.DataPoints
					case m.Histogram != nil:
						points = m.Histogram.DataPoints
					}
					for _, p := range points {
						value := p.AsInt
						if m.Histogram != nil {
							value = p.Count
						}
						var n int64
						if value != nil {
							fmt.Sscan(*value, &n)
						}
						if got.points[m.Name] == nil {
							got.points[m.Name] = map[string]int64{}
						}
						got.points[m.Name][seriesKey(attrMap(p.Attributes))] = n
					}
				}
			}
		}
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	return got
}

// checkSpans wants one span per call, in the calls' order (each call ends
// before the next starts), named for its tool with its outcome and upstream
// status.
func checkSpans(t *testing.T, spans []otelSpan, calls []OTelCall) {
	t.Helper()
	var all []string
	for _, s := range spans {
		all = append(all, s.String())
	}
	if len(spans) != len(calls) {
		t.Fatalf("%d spans received, want one per call (%d):\n%s", len(spans), len(calls), strings.Join(all, "\n"))
	}
	for i, call := range calls {
		s := spans[i]
		status := ""
		if call.UpstreamStatus != 0 {
			status = fmt.Sprint(call.UpstreamStatus)
		}
		if s.name != "tools/call "+call.Tool || s.attrs["gen_ai.tool.name"] != call.Tool ||
			s.attrs["mcp.tool.outcome"] != call.Outcome || s.attrs["http.response.status_code"] != status {
			t.Errorf("span %d: %s\nwant tools/call %s with gen_ai.tool.name=%s mcp.tool.outcome=%s http.response.status_code=%s", i, s, call.Tool, call.Tool, call.Outcome, status)
		}
	}
}

// checkMetrics wants the calls counted by tool and outcome in the calls,
// errors and duration metrics, and the upstream bytes of each tool whose
// successful calls read an upstream answer.
func checkMetrics(t *testing.T, points map[string]map[string]int64, calls []OTelCall) {
	t.Helper()
	calls1 := map[string]int64{}
	errs := map[string]int64{}
	upstream := map[string]bool{}
	for _, call := range calls {
		key := seriesKey(map[string]string{"gen_ai.tool.name": call.Tool, "mcp.tool.outcome": call.Outcome})
		calls1[key]++
		if call.Outcome != "ok" {
			errs[key]++
		}
		if call.Outcome == "ok" && call.UpstreamStatus != 0 {
			upstream[call.Tool] = true
		}
	}
	for metric, want := range map[string]map[string]int64{
		"mcp.server.tool.calls":    calls1,
		"mcp.server.tool.errors":   errs,
		"mcp.server.tool.duration": calls1,
	} {
		if !maps.Equal(points[metric], want) {
			t.Errorf("%s: %v, want %v", metric, points[metric], want)
		}
	}
	bytes := points["mcp.server.upstream.response.bytes"]
	for tool := range upstream {
		if bytes["gen_ai.tool.name="+tool] <= 0 {
			t.Errorf("mcp.server.upstream.response.bytes: %v, want bytes for %s", bytes, tool)
		}
	}
}
