// Package operations reads the saved GraphQL operations an operator names
// with --operations (.graphql files and folders of them, Apollo persisted
// query manifests, Relay id -> text maps) and describes each as an MCP tool:
// its name, its description, and JSON Schemas of its arguments (the
// operation's variables) and of its result (the selection set).
//
// Loading is all or nothing: every problem found is returned, each placed
// in its file as file:line:col, and no operation is returned with them, so
// that a server never starts with part of what its operator reviewed.
package operations

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpforge/servers/graphqlmcp/internal/regularfile"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
)

// Bounds of what Load reads: a file larger than a query may be is not an
// operation file, and a folder of thousands is not a tool list.
const (
	MaxFileBytes = operation.MaxQueryBytes
	// MaxManifestBytes bounds a manifest, which holds many operations,
	// each of at most MaxFileBytes.
	MaxManifestBytes = 4 << 20
	MaxFiles         = 500
	// MaxEntries bounds what a folder's walk looks at, other files and
	// folders included: a poll walks it every few seconds, and a folder
	// of that many is not one of operations (a repository's root, say).
	MaxEntries    = 10000
	MaxOperations = 200
	// MaxToolName is the longest tool name MCP clients take.
	MaxToolName = 64
)

// Protocol is how a call sends an operation.
type Protocol string

const (
	// Text sends the operation's text (a .graphql file).
	Text Protocol = "text"
	// APQ sends the persisted id as Apollo's automatic persisted query
	// extension, and the text only when the server asks for it (an Apollo
	// persisted-query manifest).
	APQ Protocol = "apq"
	// DocID sends the persisted id as doc_id, as Relay's network layer
	// does, and the text only when the server asks for it (a Relay map).
	DocID Protocol = "doc_id"
)

// Operation is one saved operation.
type Operation struct {
	// Name is the operation's GraphQL name, Tool the tool's name.
	Name, Tool string
	Type       ast.Operation
	// File, Line and Column are where the operation's definition starts;
	// for a manifest, where its text starts in the JSON file.
	File         string
	Line, Column int
	// Comment is the comment lines above the definition, without their #.
	Comment string
	// Chosen is the operation parsed, with the fragments it uses; its
	// Text is what is sent for a .graphql file.
	Chosen operation.Chosen
	// Protocol says how it is sent; ID is the persisted id, and Body the
	// text as the manifest stores it (what the id stands for), for a
	// manifest.
	Protocol Protocol
	ID, Body string
	// blocks place lines of the text Chosen was parsed from in files.
	blocks []block
}

// block is a file's text within the text an operation was parsed from,
// starting at line first (1-based) of it.
type block struct {
	file  string
	first int
	// inJSON is set for a manifest's text, which is one JSON string: a
	// place in it is told as the string's place and the line and column
	// within the text.
	inJSON bool
	line   int
	column int
}

// Problem is one reason the operations cannot be loaded.
type Problem struct {
	File         string
	Line, Column int
	Message      string
}

// Bounds of a refusal: a path or message may be as long as a flag's
// value or a validator's quote.
const (
	maxQuotedPath   = 200
	maxProblemText  = 400
	maxProblemLines = 20
)

func (p Problem) String() string {
	file := truncate(p.File, maxQuotedPath)
	message := truncate(p.Message, maxProblemText)
	if p.Line == 0 {
		return fmt.Sprintf("%s: %s", file, message)
	}
	return fmt.Sprintf("%s:%d:%d: %s", file, p.Line, p.Column, message)
}

// Problems are every problem found, one line each.
type Problems []Problem

// Error lists the first maxProblemLines problems, one a line, and counts
// the rest.
func (ps Problems) Error() string {
	lines := make([]string, 0, min(len(ps), maxProblemLines)+1)
	for i, p := range ps {
		if i == maxProblemLines {
			lines = append(lines, fmt.Sprintf("and %d more problems; fix these and start again to see them", len(ps)-maxProblemLines))
			break
		}
		lines = append(lines, p.String())
	}
	return strings.Join(lines, "\n")
}

// Problem places a problem at line and column of the text o was parsed
// from (a validator's error location); line 0 places it at o's start.
func (o *Operation) Problem(line, column int, message string) Problem {
	if line == 0 || len(o.blocks) == 0 {
		return Problem{File: o.File, Line: o.Line, Column: o.Column, Message: message}
	}
	b := o.blocks[0]
	for _, candidate := range o.blocks {
		if candidate.first <= line {
			b = candidate
		}
	}
	if b.inJSON {
		return Problem{File: b.file, Line: b.line, Column: b.column,
			Message: fmt.Sprintf("operation %s, line %d, column %d of its text: %s", o.Name, line-b.first+1, column, message)}
	}
	return Problem{File: b.file, Line: line - b.first + 1, Column: column, Message: message}
}

// Load reads the operations of paths: files and folders (searched for
// .graphql and .gql files) of GraphQL documents, and .json files holding
// an Apollo persisted-query manifest or a Relay map of ids to texts. It
// returns them in the order of paths and of their place in each file, or
// every problem it found (as Problems) and none of them.
func Load(paths []string) ([]*Operation, error) {
	l := &loader{fragments: map[string]fragmentAt{}}
	for _, path := range paths {
		l.path(path)
	}
	if len(l.problems) == 0 && len(l.ops) == 0 && len(paths) > 0 {
		l.fail(paths[0], 0, 0, "holds fragments but no operation: a tool is made of a named query or mutation; add one")
	}
	if len(l.problems) == 0 {
		l.compose()
	}
	if len(l.problems) == 0 {
		l.name()
	}
	if len(l.problems) > 0 {
		return nil, l.problems
	}
	return l.ops, nil
}

type loader struct {
	files    []*document
	ops      []*Operation
	problems Problems
	// fragments are every .graphql file's fragments by name, to compose
	// an operation with those it spreads from other files.
	fragments map[string]fragmentAt
	seen      map[string]bool
}

type fragmentAt struct {
	doc *document
	def *ast.FragmentDefinition
}

// document is one parsed .graphql file.
type document struct {
	path string
	text string
	doc  *ast.QueryDocument
}

func (l *loader) fail(file string, line, column int, format string, args ...any) {
	l.problems = append(l.problems, Problem{File: file, Line: line, Column: column, Message: fmt.Sprintf(format, args...)})
}

func (l *loader) path(path string) {
	info, err := os.Stat(path)
	if err != nil {
		l.fail(path, 0, 0, "cannot be read (%v); --operations takes .graphql files, folders of them, and persisted-query manifests (.json)", errors.Unwrap(err))
		return
	}
	if !info.IsDir() {
		l.file(path, true)
		return
	}
	var found []string
	entries := 0
	err = walkFolder(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if entries++; entries > MaxEntries {
			return fmt.Errorf("holds more than %d files and folders", MaxEntries)
		}
		if !d.IsDir() && (strings.HasSuffix(d.Name(), ".graphql") || strings.HasSuffix(d.Name(), ".gql")) {
			found = append(found, p)
		}
		if len(found) > MaxFiles {
			return fmt.Errorf("holds more than %d operation files", MaxFiles)
		}
		return nil
	})
	if err != nil {
		l.fail(path, 0, 0, "cannot be read: %v; name a folder of at most %d .graphql files", err, MaxFiles)
		return
	}
	if len(found) == 0 {
		l.fail(path, 0, 0, "holds no .graphql or .gql file; name a folder of operations, or the files themselves")
	}
	for _, p := range found {
		l.file(p, false)
	}
}

func (l *loader) file(path string, named bool) {
	if l.seen == nil {
		l.seen = map[string]bool{}
	}
	// By the file it is, not the name it is given by: a file reached
	// through a link and by its own path is one file.
	same := path
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		same = resolved
	}
	if abs, err := filepath.Abs(same); err == nil {
		if l.seen[abs] {
			return // named twice, or in a folder named too: one set of tools
		}
		l.seen[abs] = true
	}
	if len(l.files)+1 > MaxFiles {
		l.fail(path, 0, 0, "is one file too many: at most %d operation files are read", MaxFiles)
		return
	}
	limit := MaxFileBytes
	if strings.HasSuffix(path, ".json") {
		limit = MaxManifestBytes
	}
	raw, err := readBounded(path, limit)
	if err != nil {
		l.fail(path, 0, 0, "%v", err)
		return
	}
	if !utf8.Valid(raw) {
		l.fail(path, 0, 0, "is not UTF-8 text; save it as UTF-8")
		return
	}
	if strings.HasSuffix(path, ".json") {
		l.manifest(path, raw)
		return
	}
	if named && !strings.HasSuffix(path, ".graphql") && !strings.HasSuffix(path, ".gql") {
		l.fail(path, 0, 0, "is neither a .graphql/.gql file nor a .json manifest; rename it to say which")
		return
	}
	l.graphql(path, string(raw))
}

// readBounded reads an operations file or manifest: a regular file only,
// up to limit bytes (regularfile.Read says why).
func readBounded(path string, limit int) ([]byte, error) {
	raw, err := regularfile.Read(path, int64(limit))
	var notRegular *regularfile.NotRegularError
	switch {
	case errors.As(err, &notRegular):
		return nil, fmt.Errorf("%v; name .graphql files, folders of them, and .json manifests", err)
	case errors.As(err, new(*regularfile.TooBigError)):
		return nil, fmt.Errorf("is over %d bytes, more than an operation file may be; split it", limit)
	}
	return raw, err
}

// walkFolder is filepath.WalkDir of a folder named through a symbolic link
// too (ops -> /srv/ops), which WalkDir takes for a file: the folder it
// links to is walked, and each path is given under the name the operator
// wrote. Links inside are not followed, so a loop of them ends.
func walkFolder(root string, fn fs.WalkDirFunc) error {
	resolved, err := filepath.EvalSymlinks(root)
	if err != nil || resolved == root {
		return filepath.WalkDir(root, fn)
	}
	return filepath.WalkDir(resolved, func(p string, d fs.DirEntry, err error) error {
		if rel, relErr := filepath.Rel(resolved, p); relErr == nil {
			p = filepath.Join(root, rel)
		}
		return fn(p, d, err)
	})
}

// graphql parses one .graphql file, keeping its operations and fragments.
func (l *loader) graphql(path, text string) {
	doc, err := parse(path, text)
	if err != nil {
		var gqlErr *gqlerror.Error
		if errors.As(err, &gqlErr) && len(gqlErr.Locations) > 0 {
			l.fail(path, gqlErr.Locations[0].Line, gqlErr.Locations[0].Column, "Syntax Error: %s", gqlErr.Message)
		} else {
			l.fail(path, 0, 0, "Syntax Error: %v", err)
		}
		return
	}
	d := &document{path: path, text: text, doc: doc}
	l.files = append(l.files, d)
	for _, def := range doc.Fragments {
		if other, ok := l.fragments[def.Name]; ok {
			l.fail(path, def.Position.Line, def.Position.Column, "fragment %s is defined again; it is defined at %s:%d:%d too: rename one (fragment names are shared by all operation files)",
				def.Name, other.doc.path, other.def.Position.Line, other.def.Position.Column)
			continue
		}
		l.fragments[def.Name] = fragmentAt{doc: d, def: def}
	}
	for _, op := range doc.Operations {
		if op.Name == "" {
			l.fail(path, op.Position.Line, op.Position.Column, "an anonymous %s cannot be a tool: give it a name (%s MyName { ... }), from which the tool's name is made", op.Operation, op.Operation)
			continue
		}
		l.ops = append(l.ops, &Operation{
			Name: op.Name, Type: op.Operation, File: path, Line: op.Position.Line, Column: op.Position.Column,
			Comment: commentAbove(text, op.Position.Line), Protocol: Text,
		})
	}
	if len(doc.Operations) == 0 && len(doc.Fragments) == 0 {
		l.fail(path, 0, 0, "holds no operation; write one such as query MyName { __typename }, or remove the file")
	}
}

// parse parses a file as graphql_query parses a query: with its token
// limit, and a panic of the parser's an error.
func parse(path, text string) (doc *ast.QueryDocument, err error) {
	defer func() {
		if p := recover(); p != nil {
			doc, err = nil, fmt.Errorf("the parser failed: %v", p)
		}
	}()
	doc, err = parser.ParseQueryWithTokenLimit(&ast.Source{Name: path, Input: text}, operation.MaxTokens)
	if err != nil && strings.Contains(err.Error(), "exceeded token limit") {
		return nil, fmt.Errorf("more than %d tokens; split the file", operation.MaxTokens)
	}
	return doc, err
}

// compose parses each .graphql operation again with the files of the
// fragments it spreads, as graphql_query parses a query.
func (l *loader) compose() {
	byPath := map[string]*document{}
	for _, d := range l.files {
		byPath[d.path] = d
	}
	for _, op := range l.ops {
		if op.Protocol != Text {
			continue
		}
		d := byPath[op.File]
		files := []*document{d}
		for _, frag := range l.spreadFrom(d, op.Name) {
			if !slices.Contains(files, frag) {
				files = append(files, frag)
			}
		}
		var text strings.Builder
		line := 1
		for i, f := range files {
			if i > 0 {
				text.WriteString("\n")
				line++
			}
			op.blocks = append(op.blocks, block{file: f.path, first: line})
			text.WriteString(f.text)
			line += strings.Count(f.text, "\n")
		}
		chosen, err := operation.Choose(text.String(), op.Name)
		if err != nil {
			l.problems = append(l.problems, op.Problem(0, 0, err.Error()))
			continue
		}
		op.Chosen = chosen
	}
}

// spreadFrom lists the files of the fragments the operation named name in
// d spreads, through fragments; a spread of no fragment is left to the
// validator, which names it.
func (l *loader) spreadFrom(d *document, name string) []*document {
	var files []*document
	seen := map[string]bool{}
	var visit func(set ast.SelectionSet)
	visit = func(set ast.SelectionSet) {
		for _, sel := range set {
			switch sel := sel.(type) {
			case *ast.Field:
				visit(sel.SelectionSet)
			case *ast.InlineFragment:
				visit(sel.SelectionSet)
			case *ast.FragmentSpread:
				if seen[sel.Name] {
					continue
				}
				seen[sel.Name] = true
				if at, ok := l.fragments[sel.Name]; ok {
					files = append(files, at.doc)
					visit(at.def.SelectionSet)
				}
			}
		}
	}
	if op := d.doc.Operations.ForName(name); op != nil {
		visit(op.SelectionSet)
	}
	return files
}

// commentAbove is the block of # lines right above line (1-based) of
// text, without the # and one space after it.
func commentAbove(text string, line int) string {
	lines := strings.Split(text, "\n")
	var comment []string
	for i := line - 2; i >= 0 && i < len(lines); i-- {
		trimmed := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(trimmed, "#") {
			break
		}
		trimmed = strings.TrimPrefix(strings.TrimPrefix(trimmed, "#"), " ")
		comment = append(comment, strings.TrimRight(trimmed, " \t\r"))
	}
	slices.Reverse(comment)
	return strings.TrimSpace(strings.Join(comment, "\n"))
}

// manifest reads an Apollo persisted-query manifest or a Relay map.
func (l *loader) manifest(path string, raw []byte) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		line, column := jsonPlace(raw, jsonErrorOffset(err))
		l.fail(path, line, column, "is not a JSON object (%v): a persisted-query manifest is Apollo's {\"format\": \"apollo-persisted-query-manifest\", ...} or Relay's {\"id\": \"query text\", ...}", err)
		return
	}
	if _, ok := probe["format"]; ok {
		l.apollo(path, raw, probe)
		return
	}
	l.relay(path, raw)
}

type apolloEntry struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Type string `json:"type"`
	Body string `json:"body"`
}

func (l *loader) apollo(path string, raw []byte, probe map[string]json.RawMessage) {
	var format string
	var version int
	_ = json.Unmarshal(probe["format"], &format)
	_ = json.Unmarshal(probe["version"], &version)
	if format != "apollo-persisted-query-manifest" || version != 1 {
		l.fail(path, 1, 1, "has format %s version %s; the Apollo persisted-query manifest this reads has \"format\": \"apollo-persisted-query-manifest\", \"version\": 1", probe["format"], probe["version"])
		return
	}
	var entries []apolloEntry
	if err := json.Unmarshal(probe["operations"], &entries); err != nil {
		l.fail(path, 1, 1, "has no list of operations of {\"id\", \"name\", \"type\", \"body\"} (%v)", err)
		return
	}
	places := stringPlaces(raw, "body")
	for i, e := range entries {
		line, column := 1, 1
		if i < len(places) {
			line, column = jsonPlace(raw, places[i])
		}
		if e.ID == "" || e.Body == "" || e.Name == "" {
			l.fail(path, line, column, "operation %d has no id, name or body; each entry of an Apollo manifest has all three", i+1)
			continue
		}
		l.persisted(path, line, column, e.ID, e.Name, e.Body, APQ)
	}
}

func (l *loader) relay(path string, raw []byte) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	if _, err := dec.Token(); err != nil {
		l.fail(path, 1, 1, "is not a JSON object: %v", err)
		return
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			l.fail(path, 1, 1, "is not a JSON object: %v", err)
			return
		}
		at := int(dec.InputOffset())
		var text string
		if err := dec.Decode(&text); err != nil {
			line, column := jsonPlace(raw, valueStart(raw, at))
			l.fail(path, line, column, "maps id %v to something other than a string; a Relay map is {\"id\": \"query text\", ...}", key)
			return
		}
		line, column := jsonPlace(raw, valueStart(raw, at))
		l.persisted(path, line, column, key.(string), "", text, DocID)
	}
}

// persisted reads the text of one manifest entry, placed at line and
// column of the JSON file; name, when given, chooses its operation.
func (l *loader) persisted(path string, line, column int, id, name, body string, protocol Protocol) {
	op := &Operation{File: path, Line: line, Column: column, Protocol: protocol, ID: id, Body: body,
		blocks: []block{{file: path, first: 1, inJSON: true, line: line, column: column}}}
	chosen, err := operation.Choose(body, name)
	if err != nil {
		l.fail(path, line, column, "the text of id %s: %v", truncate(id, 80), err)
		return
	}
	if chosen.Op.Name == "" {
		l.fail(path, line, column, "the text of id %s is an anonymous %s, which cannot be a tool: give it a name", truncate(id, 80), chosen.Op.Operation)
		return
	}
	op.Name, op.Type, op.Chosen = chosen.Op.Name, chosen.Op.Operation, chosen
	op.Comment = commentAbove(body, chosen.Op.Position.Line)
	l.ops = append(l.ops, op)
}

// name gives each operation its tool's name, and refuses two that would
// share one.
func (l *loader) name() {
	if len(l.ops) > MaxOperations {
		l.fail(l.ops[MaxOperations].File, l.ops[MaxOperations].Line, l.ops[MaxOperations].Column,
			"is operation %d; at most %d saved operations become tools: split them over servers", MaxOperations+1, MaxOperations)
		return
	}
	taken := map[string]*Operation{}
	for _, op := range l.ops {
		op.Tool = ToolName(op.Name)
		if len(op.Tool) > MaxToolName {
			l.problems = append(l.problems, op.Problem(0, 0, fmt.Sprintf("operation %s makes a tool name of %d characters, over the %d clients take: shorten the operation's name", op.Name, len(op.Tool), MaxToolName)))
			continue
		}
		if other, ok := taken[op.Tool]; ok {
			l.problems = append(l.problems, op.Problem(0, 0, fmt.Sprintf("operation %s makes the tool name %s, as operation %s at %s:%d:%d does: rename one of them",
				op.Name, op.Tool, other.Name, other.File, other.Line, other.Column)))
			continue
		}
		taken[op.Tool] = op
	}
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
