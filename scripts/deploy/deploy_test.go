// Package deploy holds the deployment examples docs/deploy.md shows (a
// systemd unit, a Kubernetes manifest) and the tests that check them.
package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestSystemdUnit runs systemd's own checker, systemd-analyze verify, on
// hookmcp.service, with ExecStart pointed at an executable (verify checks
// that it exists). Any line it prints about the unit fails the test: an
// unknown or misspelt directive is only a warning to systemd.
func TestSystemdUnit(t *testing.T) {
	// scripts/test sets DEPLOY_SYSTEMD_ANALYZE (deps.sh); a run without it
	// uses the machine's, if any.
	analyze := os.Getenv("DEPLOY_SYSTEMD_ANALYZE")
	if analyze == "" {
		var err error
		if analyze, err = exec.LookPath("systemd-analyze"); err != nil {
			t.Skip("systemd-analyze is not installed (Debian's systemd package; scripts/deploy/deps.sh installs it); the unit is not checked")
		}
	}
	unit, err := os.ReadFile("hookmcp.service")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	const binary = "/usr/local/bin/hookmcp"
	if !bytes.Contains(unit, []byte("ExecStart="+binary+" --transport http --listen 0.0.0.0:8080")) {
		t.Fatalf("hookmcp.service does not start %s over HTTP on port 8080", binary)
	}
	unit = bytes.ReplaceAll(unit, []byte(binary), []byte(self))
	path := filepath.Join(dir, "hookmcp.service")
	if err := os.WriteFile(path, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("hookmcp.service")) {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
	// The check itself: a misspelt directive is caught.
	bad := filepath.Join(dir, "bad.service")
	if err := os.WriteFile(bad, bytes.Replace(unit, []byte("ProtectClock="), []byte("ProtectClok="), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := exec.Command(analyze, "verify", bad).CombinedOutput(); !bytes.Contains(out, []byte("ProtectClok")) {
		t.Errorf("systemd-analyze verify let a misspelt directive through: %s", out)
	}
}

// TestKubernetesManifest decodes graphqlmcp.yaml into Kubernetes' own API
// types, strictly (an unknown or misspelt field fails), and checks what
// makes the example work: several replicas, the container listening where
// its port, probes and Service point, /healthz as liveness and /readyz as
// readiness, the token and headers from a Secret, never written inline.
func TestKubernetesManifest(t *testing.T) {
	data, err := os.ReadFile("graphqlmcp.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var deployment appsv1.Deployment
	var service corev1.Service
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var kind struct{ Kind string }
		if err := yaml.Unmarshal([]byte(doc), &kind); err != nil {
			t.Fatal(err)
		}
		var into any
		switch kind.Kind {
		case "Deployment":
			into = &deployment
		case "Service":
			into = &service
		default:
			t.Fatalf("unexpected kind %q", kind.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), into); err != nil {
			t.Fatalf("%s: %v", kind.Kind, err)
		}
	}
	if deployment.APIVersion != "apps/v1" || service.APIVersion != "v1" {
		t.Errorf("apiVersions %q, %q; want apps/v1 and v1", deployment.APIVersion, service.APIVersion)
	}
	if deployment.Spec.Replicas == nil || *deployment.Spec.Replicas < 2 {
		t.Error("the Deployment should run several replicas")
	}
	labels := deployment.Spec.Template.Labels
	for k, v := range deployment.Spec.Selector.MatchLabels {
		if labels[k] != v {
			t.Errorf("the selector's %s=%s is not on the pod template", k, v)
		}
	}
	for k, v := range service.Spec.Selector {
		if labels[k] != v {
			t.Errorf("the Service's selector %s=%s is not on the pods", k, v)
		}
	}
	if len(deployment.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("want one container")
	}
	c := deployment.Spec.Template.Spec.Containers[0]
	args := strings.Join(c.Args, " ")
	if !strings.Contains(args, "--transport http --listen 0.0.0.0:8080") {
		t.Errorf("args %q: want --transport http --listen 0.0.0.0:8080", args)
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 8080 || c.Ports[0].Name != "http" {
		t.Errorf("ports %+v: want one named http on 8080", c.Ports)
	}
	if p := c.LivenessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" || p.HTTPGet.Port.String() != "http" {
		t.Errorf("liveness probe %+v: want GET /healthz on port http", p)
	}
	if p := c.ReadinessProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/readyz" || p.HTTPGet.Port.String() != "http" || p.TimeoutSeconds <= 3 {
		t.Errorf("readiness probe %+v: want GET /readyz on port http with a timeout over the check's 3 s", p)
	}
	secrets := map[string]bool{}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			secrets[e.Name] = true
		} else if strings.Contains(e.Name, "TOKEN") || strings.Contains(e.Name, "HEADERS") {
			t.Errorf("%s is written inline; it is a secret: take it from a Secret", e.Name)
		}
	}
	for _, name := range []string{"GRAPHQL_HTTP_TOKEN", "GRAPHQL_HEADERS"} {
		if !secrets[name] {
			t.Errorf("%s does not come from a Secret", name)
		}
	}
	if len(service.Spec.Ports) != 1 || service.Spec.Ports[0].TargetPort.String() != "http" {
		t.Errorf("Service ports %+v: want one with targetPort http", service.Spec.Ports)
	}
	if sc := c.SecurityContext; sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Error("the container should run with a read-only root and no capabilities")
	}
}
