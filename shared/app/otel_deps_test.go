package app

import (
	"os/exec"
	"strings"
	"testing"
)

// TestTelemetryLinksNoGRPC: what the servers link for telemetry holds
// neither gRPC nor protobuf's runtime, which the SDK's OTLP exporters
// brought into every binary (otel_otlp.go): only protobuf's wire encoding.
func TestTelemetryLinksNoGRPC(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.HasPrefix(pkg, "google.golang.org/grpc") || strings.HasPrefix(pkg, "github.com/grpc-ecosystem/") ||
			strings.HasPrefix(pkg, "go.opentelemetry.io/proto/") || pkg == "google.golang.org/protobuf/proto" {
			t.Errorf("shared/app links %s", pkg)
		}
	}
}
