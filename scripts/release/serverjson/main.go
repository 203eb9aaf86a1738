// Command serverjson prints a server's server.json (graphqlmcp/server.json,
// hookmcp/server.json) for the MCP Registry filled in for one release: the
// version, the MCP Bundle's download address and its SHA-256, which the
// registry requires of an MCPB package and which only the built bundle
// knows. The release workflow runs it; TestFilled validates its output
// against the registry's schema.
//
//	go run ./scripts/release/serverjson -server graphqlmcp -version 0.3.1 -bundle dist/graphqlmcp_0.3.1.mcpb
package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
)

func main() {
	server := flag.String("server", "", "graphqlmcp or hookmcp")
	version := flag.String("version", "", "the release's version without the v: 0.3.1")
	bundle := flag.String("bundle", "", "the release's MCP Bundle (.mcpb)")
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	out, err := run(*root, *server, *version, *bundle)
	if err != nil {
		fmt.Fprintln(os.Stderr, "serverjson:", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}

func run(root, server, version, bundle string) ([]byte, error) {
	if server != "graphqlmcp" && server != "hookmcp" {
		return nil, fmt.Errorf("-server must be graphqlmcp or hookmcp, got %q", server)
	}
	raw, err := os.ReadFile(filepath.Join(root, server, "server.json"))
	if err != nil {
		return nil, err
	}
	sum, err := fileSHA256(bundle)
	if err != nil {
		return nil, fmt.Errorf("-bundle: %w", err)
	}
	return fill(raw, server, version, sum)
}

// semver is the registry's rule for a version (a specific one, no range),
// narrowed to what a release tag of this repository looks like.
var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// fill sets the version of the server and of its one MCPB package, the
// package's download address under the module's release tag, and its hash.
// It keeps every other field as written, in order.
func fill(raw []byte, server, version, sha256Hex string) ([]byte, error) {
	if !semver.MatchString(version) {
		return nil, fmt.Errorf("-version must be a release version without the v, like 0.3.1; got %q", version)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%s/server.json: %w", server, err)
	}
	var packages []map[string]json.RawMessage
	if err := json.Unmarshal(doc["packages"], &packages); err != nil || len(packages) != 1 {
		return nil, fmt.Errorf("%s/server.json: want one package (the MCP Bundle), got %s", server, doc["packages"])
	}
	pkg := packages[0]
	if string(pkg["registryType"]) != `"mcpb"` {
		return nil, fmt.Errorf("%s/server.json: the package's registryType is %s, want \"mcpb\"", server, pkg["registryType"])
	}
	quoted := func(s string) json.RawMessage { b, _ := json.Marshal(s); return b }
	doc["version"] = quoted(version)
	pkg["version"] = quoted(version)
	pkg["identifier"] = quoted(BundleURL(server, version))
	pkg["fileSha256"] = quoted(sha256Hex)
	packages[0] = pkg
	var err error
	if doc["packages"], err = json.Marshal(packages); err != nil {
		return nil, err
	}
	// map keys come out sorted; the registry reads fields by name.
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, out, "", "  "); err != nil {
		return nil, err
	}
	pretty.WriteByte('\n')
	return pretty.Bytes(), nil
}

// BundleURL is where the release workflow publishes a server's bundle: the
// release of the module's tag (graphqlmcp/v0.3.1).
func BundleURL(server, version string) string {
	return "https://github.com/mcpforge/servers/releases/download/" + server + "/v" + version + "/" + server + "_" + version + ".mcpb"
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
