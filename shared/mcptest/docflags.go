package mcptest

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// CheckDocFlags checks that the section of doc that starts at heading names
// every flag (`--name`) the binary's --help lists.
func CheckDocFlags(t *testing.T, binary, doc, heading string) {
	t.Helper()
	help, err := exec.Command(binary, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --help: %v\n%s", binary, err, help)
	}
	text, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(text), heading+"\n")
	if start < 0 {
		t.Fatalf("%s has no section %q", doc, heading)
	}
	section := string(text[start+len(heading):])
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	flags := regexp.MustCompile(`(?m)^\s+(?:-\w, )?(--[a-zA-Z][\w-]*)`).FindAllStringSubmatch(string(help), -1)
	if len(flags) < 10 {
		t.Fatalf("--help lists %d flags; the pattern no longer reads it:\n%s", len(flags), help)
	}
	for _, f := range flags {
		if f[1] == "--help" {
			continue
		}
		if !strings.Contains(section, "`"+f[1]+"`") {
			t.Errorf("%s: --help lists %s, which the %q table does not name; add its row", doc, f[1], heading)
		}
	}
}
