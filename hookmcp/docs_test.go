package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpforge/servers/shared/mcptest"
)

// toolNames are the tools tools/list gives, sorted.
var toolNames = []string{"create_token", "delete_request", "delete_requests", "delete_token", "get_latest_request", "get_request", "get_token", "list_requests", "send_test_request", "update_token", "wait_for_request"}

// TestToolListing checks what docs/clients.md says hookmcp offers.
func TestToolListing(t *testing.T) {
	mcptest.CheckToolListing(t, "../docs/clients.md", "hookmcp", toolNames)
}

// TestClientDocs checks the assistant configurations in docs/clients.md and
// README.md: every JSON block parses, and every configuration of hookmcp
// starts the built binary and answers tools/list.
func TestClientDocs(t *testing.T) {
	for _, doc := range []string{"../docs/clients.md", "../README.md"} {
		t.Run(doc, func(t *testing.T) {
			mcptest.CheckClientDocs(t, doc, mcptest.DocServer{Name: "hookmcp", Binary: binary, EnvPrefix: "HOOKSVC_"})
		})
	}
}

// TestSecurityDocNamesRealTests: every test and fuzz target docs/security.md
// gives as proof exists in the repository.
func TestSecurityDocNamesRealTests(t *testing.T) {
	doc, err := os.ReadFile("../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	err = filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != ".." {
			return filepath.SkipDir
		}
		if strings.HasSuffix(path, "_test.go") {
			source, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range regexp.MustCompile(`(?m)^func ((?:Test|Fuzz)\w+)\(`).FindAllSubmatch(source, -1) {
				defined[string(m[1])] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("`((?:Test|Fuzz)[A-Z]\\w*)`").FindAllStringSubmatch(string(doc), -1) {
		if !defined[m[1]] {
			t.Errorf("docs/security.md names %s, which no test file defines", m[1])
		}
	}
}
