package mcptest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// CheckNoEscapingEncoders fails t for every call of encoding/json's
// Marshal, MarshalIndent or NewEncoder in the non-test Go files under root,
// except in the files allowed (slash paths relative to root; one ending in
// "/" allows a whole folder). Those escape
// <, >, &, U+2028 and U+2029 (an encoder unless told otherwise), and JSON
// they write for a result reaches the model as "\u003cb\u003e" instead of
// "<b>": results are encoded by jsonx.Marshal, which writes each as itself.
func CheckNoEscapingEncoders(t *testing.T, root string, allowed ...string) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || isAllowed(filepath.ToSlash(rel), allowed) {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		jsonName := ""
		for _, imp := range file.Imports {
			if imp.Path.Value == `"encoding/json"` {
				jsonName = "json"
				if imp.Name != nil {
					jsonName = imp.Name.Name
				}
			}
		}
		if jsonName == "" {
			return nil
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == jsonName && slices.Contains([]string{"Marshal", "MarshalIndent", "NewEncoder"}, sel.Sel.Name) {
				t.Errorf("%s: json.%s escapes <, >, & and U+2028 for HTML; encode with jsonx.Marshal", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func isAllowed(rel string, allowed []string) bool {
	return slices.ContainsFunc(allowed, func(a string) bool {
		return rel == a || strings.HasSuffix(a, "/") && strings.HasPrefix(rel, a)
	})
}
