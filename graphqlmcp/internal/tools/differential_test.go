package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/testservers"
	"github.com/mcpforge/servers/shared/mcptest"
)

// diffSchema is a schema of the differential corpus: its file, and how
// many valid operations are generated over it.
type diffSchema struct {
	name  string
	file  string
	valid int
}

// differentialSchemas are GitHub's public schema, the synthetic one built
// for the printer's hard cases, and small real ones vendored under
// testdata/differential (SOURCES.md says whence, under which licence).
func differentialSchemas(github string) []diffSchema {
	return []diffSchema{
		{"github", filepath.Join(github, "schema.json"), 40},
		{"synthetic", filepath.Join("..", "schema", "testdata", "synthetic.graphql"), 100},
		{"swapi", filepath.Join("testdata", "differential", "swapi.graphql"), 30},
		{"starwars", filepath.Join("testdata", "differential", "starwars.graphql"), 30},
		{"graphqljs-harness", filepath.Join("testdata", "differential", "graphqljs-harness.graphql"), 100},
		{"nexus-example", filepath.Join("testdata", "differential", "nexus-example.graphql"), 40},
	}
}

// diffMaxPerClass bounds the mutants of one class over one schema, so that
// the corpus stays quick to run.
const diffMaxPerClass = 5

// diffCaseHeader carries a case's index to the recording endpoint, so
// that calls can run at once and each request be told apart.
const diffCaseHeader = "X-Differential-Case"

// TestDifferential holds graphqlmcp's verdict on operations (sent or
// refused) to graphql-js 16's, the reference implementation's (parse,
// validate, getOperationAST and getVariableValues; refused on any error),
// over a corpus generated from fixed seeds: valid operations over several
// schemas (fields with arguments as literals and as variables of every
// input shape, fragments, inline fragments, directives, aliases) with their
// variables, and one-rule mutants of each (a wrong literal or variable
// value, a missing or unknown name, a conflict, an unused or undefined
// variable, a fragment cycle, ...). graphqlmcp's verdict is the real one:
// a graphql_query call to a server with the schema from --schema, whose
// endpoint records what it receives; and again, for a third of the cases
// of the vendored schemas, with the schema introspected from that
// endpoint. Every disagreement fails the test unless
// testdata/differential/known.txt lists its class with a reason; so does a
// refusal of a variable's value that does not name the variable, as
// graphql-js's message does. scripts/github-schema installs graphql-js,
// Node and GitHub's schema and runs it.
func TestDifferential(t *testing.T) {
	graphqlJS, github := os.Getenv("GRAPHQL_JS_DIR"), os.Getenv("GITHUB_SCHEMA_DIR")
	if graphqlJS == "" || github == "" {
		t.Skip("GRAPHQL_JS_DIR and GITHUB_SCHEMA_DIR are not set; scripts/github-schema runs this test")
	}
	known := readDiffKnown(t, filepath.Join("testdata", "differential", "known.txt"))
	schemas := differentialSchemas(github)

	var cases []diffCase
	loaded := map[string]*schema.Schema{}
	files := map[string]string{}
	for _, ds := range schemas {
		s, err := schema.Load(ds.file, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatalf("%s: %v", ds.file, err)
		}
		loaded[ds.name], files[ds.name] = s, ds.file
		cases = append(cases, diffCorpus(t, ds, s)...)
	}

	// graphql-js judges while graphqlmcp does; the test waits for it
	// however it ends, so that nothing reports after it.
	jsVerdicts, jsDone := make(chan []jsVerdict, 1), make(chan struct{})
	go func() {
		defer close(jsDone)
		jsVerdicts <- graphqlJSVerdicts(t, graphqlJS, files, cases)
	}()
	defer func() { <-jsDone }()
	var vendored []diffSchema
	for _, ds := range schemas {
		if filepath.Ext(ds.file) == ".graphql" {
			vendored = append(vendored, ds)
		}
	}
	answers := introspectionAnswers(t, graphqlJS, vendored)
	ours := graphqlmcpVerdicts(t, loaded, cases)
	// The same cases again over the vendored SDL schemas, where the
	// server introspects its endpoint instead of reading --schema.
	introspected := introspectedVerdicts(t, vendored, answers, cases)
	theirs := <-jsVerdicts
	if len(theirs) != len(cases) {
		t.Fatalf("graphql-js gave %d verdicts for %d cases", len(theirs), len(cases))
	}

	report := newDiffReport(known)
	for i, c := range cases {
		report.add(c, ours[i], theirs[i])
	}
	rows := slices.Clone(schemas)
	for _, ds := range vendored {
		name := ds.name
		for i, c := range cases {
			if v, ok := introspected[name][i]; ok && c.Schema == name {
				c.Schema = name + viaIntrospection
				report.add(c, v, theirs[i])
			}
		}
		rows = append(rows, diffSchema{name: name + viaIntrospection})
	}
	report.log(t, rows)
	report.check(t)
}

// viaIntrospection marks a schema's cases run with the schema introspected
// from the endpoint.
const viaIntrospection = "@introspection"

// diffCorpus generates the valid operations over one schema and their
// mutants, at most diffMaxPerClass of each class.
func diffCorpus(t *testing.T, ds diffSchema, s *schema.Schema) []diffCase {
	t.Helper()
	checker, err := s.Validator()
	if err != nil {
		t.Fatalf("%s: %v", ds.name, err)
	}
	seed := fnv.New64a()
	seed.Write([]byte(ds.name))
	g := &diffGenerator{s: checker, r: rand.New(rand.NewPCG(seed.Sum64(), 26)), name: ds.name}
	var out []diffCase
	perClass := map[string]int{}
	// After the first ds.valid operations, up to three times as many more
	// are drawn, each kept only when it brings a class of mutant not seen
	// yet: rare shapes (a Float variable, a @oneOf member given by a
	// variable) get their mutants without a larger corpus.
	for i := range 4 * ds.valid {
		valid, text := g.valid(i)
		mutants := g.mutants(valid, text)
		if i >= ds.valid && !slices.ContainsFunc(mutants, func(m diffCase) bool { return perClass[m.Class] == 0 }) {
			continue
		}
		out = append(out, valid)
		for _, m := range mutants {
			if perClass[m.Class] < diffMaxPerClass {
				perClass[m.Class]++
				out = append(out, m)
			}
		}
	}
	return out
}

type jsVerdict struct {
	Refused bool     `json:"refused"`
	Errors  []string `json:"errors"`
}

// graphqlJSVerdicts runs every case through graphql-js in one Node
// process (scripts/graphql-js/verdict.mjs).
func graphqlJSVerdicts(t *testing.T, graphqlJS string, files map[string]string, cases []diffCase) []jsVerdict {
	absolute := map[string]string{}
	for name, file := range files {
		abs, err := filepath.Abs(file)
		if err != nil {
			t.Error(err)
			return nil
		}
		absolute[name] = abs
	}
	input, err := json.Marshal(map[string]any{"schemas": absolute, "cases": cases})
	if err != nil {
		t.Error(err)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("..", "..", "..", "scripts", "graphql-js", "verdict.mjs"))
	cmd.Env = append(os.Environ(), "GRAPHQL_JS_DIR="+graphqlJS)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("node verdict.mjs: %v\n%s", err, stderr.String())
		return nil
	}
	var verdicts []jsVerdict
	if err := json.Unmarshal(out, &verdicts); err != nil {
		t.Errorf("node verdict.mjs: %v", err)
	}
	return verdicts
}

// ourVerdict is what graphqlmcp did with a case: sent it to the endpoint,
// or refused it with a message.
type ourVerdict struct {
	sent    bool
	message string
}

// graphqlmcpVerdicts calls graphql_query for every case, on one server
// per schema (the schema as --schema gives it, mutations allowed, a
// ceiling no price reaches), a few calls at a time. A case is sent when
// the endpoint received it.
func graphqlmcpVerdicts(t *testing.T, loaded map[string]*schema.Schema, cases []diffCase) []ourVerdict {
	var mu sync.Mutex
	got := map[int]bool{}
	srv, _ := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if i, err := strconv.Atoi(r.Header.Get(diffCaseHeader)); err == nil {
			mu.Lock()
			got[i] = true
			mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"data":{}}`))
	}))
	sessions := map[string]*mcp.ClientSession{}
	for name, s := range loaded {
		cfg := testConfig(t, srv.URL)
		cfg.Schema, cfg.Validate = s, true
		cfg.Mutations = config.MutationsAlways
		cfg.MaxComplexity = math.MaxInt
		cfg.Timeout = 30 * time.Second
		sessions[name] = connect(t, cfg, nil).session
	}
	verdicts := make([]ourVerdict, len(cases))
	next := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := cases[i]
				args := diffCallArguments(c)
				args["headers"] = map[string]any{diffCaseHeader: strconv.Itoa(i)}
				res, err := sessions[c.Schema].CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: args})
				if err != nil {
					verdicts[i].message = "protocol error: " + err.Error()
					continue
				}
				verdicts[i].message = mcptest.Text(res)
			}
		}()
	}
	for i := range cases {
		next <- i
	}
	close(next)
	wg.Wait()
	for i := range verdicts {
		verdicts[i].sent = got[i]
	}
	return verdicts
}

// diffKnownEntry is a line of known.txt: a class of disagreement, with the
// verdict graphqlmcp gives, and why.
type diffKnownEntry struct {
	pattern string // path.Match pattern over "schema:class"
	ours    string // "sent" or "refused"
	reason  string
	line    int
	matched int
}

// readDiffKnown reads known.txt: per line, a pattern over "schema:class"
// (path.Match: * stays within a / segment), graphqlmcp's verdict (sent or
// refused) and the reason, separated by tabs; # starts a comment line.
func readDiffKnown(t *testing.T, file string) []*diffKnownEntry {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*diffKnownEntry
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 || (parts[1] != "sent" && parts[1] != "refused") || strings.TrimSpace(parts[2]) == "" {
			t.Fatalf("%s:%d: want pattern<TAB>sent|refused<TAB>reason, got %q", file, n, line)
		}
		if _, err := path.Match(parts[0], ""); err != nil {
			t.Fatalf("%s:%d: pattern %q: %v", file, n, parts[0], err)
		}
		out = append(out, &diffKnownEntry{pattern: parts[0], ours: parts[1], reason: parts[2], line: n})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// diffReport tallies the verdicts.
type diffReport struct {
	known []*diffKnownEntry
	// per schema
	cases, valid, mutants, agreed map[string]int
	listed                        map[*diffKnownEntry]int
	unlisted                      map[string][]diffDisagreement // by schema:class
	// per class, over all schemas
	classCases, classAgreed map[string]int
	// invalid are valid cases graphql-js refused: the generator's faults
	invalid []diffDisagreement
	// unnamed are variable mutants both refused where graphqlmcp's
	// message does not name the variable
	unnamed map[string][]diffDisagreement
	// named counts the variable mutants both refused
	named int
}

type diffDisagreement struct {
	c      diffCase
	ours   ourVerdict
	theirs jsVerdict
}

func newDiffReport(known []*diffKnownEntry) *diffReport {
	return &diffReport{known: known, cases: map[string]int{}, valid: map[string]int{}, mutants: map[string]int{}, agreed: map[string]int{},
		listed: map[*diffKnownEntry]int{}, unlisted: map[string][]diffDisagreement{}, classCases: map[string]int{}, classAgreed: map[string]int{}, unnamed: map[string][]diffDisagreement{}}
}

func (r *diffReport) add(c diffCase, ours ourVerdict, theirs jsVerdict) {
	r.cases[c.Schema]++
	r.classCases[c.Class]++
	if c.Class == "valid" {
		r.valid[c.Schema]++
		if theirs.Refused {
			r.invalid = append(r.invalid, diffDisagreement{c, ours, theirs})
		}
	} else {
		r.mutants[c.Schema]++
	}
	if ours.sent == !theirs.Refused {
		r.agreed[c.Schema]++
		r.classAgreed[c.Class]++
		// A refused variable names the variable, as graphql-js does, so
		// the caller can fix it in one call.
		if c.Variable != "" && !ours.sent {
			r.named++
			if !strings.Contains(ours.message, `"$`+c.Variable+`"`) {
				r.unnamed[c.Class] = append(r.unnamed[c.Class], diffDisagreement{c, ours, theirs})
			}
		}
		return
	}
	key := c.Schema + ":" + c.Class
	verdict := "refused"
	if ours.sent {
		verdict = "sent"
	}
	for _, k := range r.known {
		if ok, _ := path.Match(k.pattern, key); ok && k.ours == verdict {
			k.matched++
			r.listed[k]++
			return
		}
	}
	r.unlisted[key+" ("+verdict+")"] = append(r.unlisted[key+" ("+verdict+")"], diffDisagreement{c, ours, theirs})
}

func (r *diffReport) log(t *testing.T, schemas []diffSchema) {
	t.Helper()
	total := map[string]int{}
	for _, ds := range schemas {
		n := ds.name
		t.Logf("%-32s %5d cases: %4d valid, %5d mutants; %5d agreed", n, r.cases[n], r.valid[n], r.mutants[n], r.agreed[n])
		total["cases"] += r.cases[n]
		total["valid"] += r.valid[n]
		total["mutants"] += r.mutants[n]
		total["agreed"] += r.agreed[n]
	}
	t.Logf("%-32s %5d cases: %4d valid, %5d mutants; %5d agreed", "all", total["cases"], total["valid"], total["mutants"], total["agreed"])
	var classes []string
	for _, class := range slices.Sorted(maps.Keys(r.classCases)) {
		classes = append(classes, fmt.Sprintf("%s %d/%d", class, r.classAgreed[class], r.classCases[class]))
	}
	t.Logf("agreed/cases by class: %s", strings.Join(classes, ", "))
	t.Logf("%d refusals of a variable's value, each to name the variable", r.named)
	for _, k := range r.known {
		if k.matched > 0 {
			t.Logf("listed (known.txt:%d) %s, graphqlmcp %s: %d cases: %s", k.line, k.pattern, k.ours, k.matched, k.reason)
		}
	}
}

// check fails the test for every disagreement known.txt does not list,
// with up to three examples of each class, and for every by-design entry
// that no case matches any more.
func (r *diffReport) check(t *testing.T) {
	t.Helper()
	for i, d := range r.invalid {
		if i == 5 {
			t.Errorf("… and %d more valid cases that graphql-js refuses", len(r.invalid)-5)
			break
		}
		vars, _ := json.Marshal(d.c.Variables)
		t.Errorf("the generator made an operation graphql-js refuses (%s): %s\n  query: %s\n  variables: %s", d.c.Schema, strings.Join(d.theirs.Errors, " | "), d.c.Query, vars)
	}
	for _, class := range slices.Sorted(maps.Keys(r.unnamed)) {
		d := r.unnamed[class][0]
		vars, _ := json.Marshal(d.c.Variables)
		t.Errorf("%s: %d refusals do not name the variable (\"$%s\"), as graphql-js does; for example:\n  query: %s\n  variables: %s\n  graphql-js: %s\n  graphqlmcp: %.400s",
			class, len(r.unnamed[class]), d.c.Variable, d.c.Query, vars, strings.Join(d.theirs.Errors, " | "), d.ours.message)
	}
	keys := slices.Sorted(maps.Keys(r.unlisted))
	for _, key := range keys {
		ds := r.unlisted[key]
		var b strings.Builder
		fmt.Fprintf(&b, "%s: %d cases where graphqlmcp and graphql-js disagree, not in known.txt; for example:", key, len(ds))
		for i, d := range ds {
			if i == 3 {
				break
			}
			vars, _ := json.Marshal(d.c.Variables)
			fmt.Fprintf(&b, "\n  query: %s\n  operationName: %s\n  variables: %s\n  graphql-js: %s\n  graphqlmcp: sent=%v %.400s",
				d.c.Query, d.c.OperationName, vars, strings.Join(d.theirs.Errors, " | "), d.ours.sent, d.ours.message)
		}
		t.Error(b.String())
	}
	for _, k := range r.known {
		if k.matched == 0 {
			if strings.HasPrefix(k.reason, "open:") {
				t.Logf("known.txt:%d %s matches no disagreement now: remove it", k.line, k.pattern)
			} else {
				t.Errorf("known.txt:%d %s (graphqlmcp %s) matches no disagreement: remove it, or the corpus lost the cases it covers", k.line, k.pattern, k.ours)
			}
		}
	}
}

// introspectionAnswers are graphql-js's introspection answers for the SDL
// of each schema (scripts/graphql-js/check.mjs introspect), by name.
func introspectionAnswers(t *testing.T, graphqlJS string, schemas []diffSchema) map[string][]byte {
	answers := make([][]byte, len(schemas))
	var wg sync.WaitGroup
	for i, ds := range schemas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", filepath.Join("..", "..", "..", "scripts", "graphql-js", "check.mjs"), "introspect", ds.file)
			cmd.Env = append(os.Environ(), "GRAPHQL_JS_DIR="+graphqlJS)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			answer, err := cmd.Output()
			if err != nil {
				t.Errorf("node check.mjs introspect %s: %v\n%s", ds.file, err, stderr.String())
				return
			}
			answers[i] = answer
		}()
	}
	wg.Wait()
	out := map[string][]byte{}
	for i, ds := range schemas {
		if answers[i] != nil {
			out[ds.name] = answers[i]
		}
	}
	return out
}

// introspectedVerdicts runs every third case of each schema through a
// server without --schema, whose endpoint answers introspection with
// answers[schema]; by schema and case index. One schema's calls go one
// after another, told apart by the endpoint's count of operations: a
// header of each call's own would make each call's endpoint one of its
// own, introspected again.
func introspectedVerdicts(t *testing.T, schemas []diffSchema, answers map[string][]byte, cases []diffCase) map[string]map[int]ourVerdict {
	type route struct {
		name    string
		session *mcp.ClientSession
		rec     *testservers.Recorder
	}
	var routes []route
	for _, ds := range schemas {
		answer, ok := answers[ds.name]
		if !ok {
			continue
		}
		srv, rec := testservers.Start(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"operationName":"IntrospectionQuery"`)) {
				w.Write(answer)
				return
			}
			w.Write([]byte(`{"data":{}}`))
		}))
		cfg := testConfig(t, srv.URL)
		cfg.Validate, cfg.Mutations, cfg.MaxComplexity, cfg.Timeout = true, config.MutationsAlways, math.MaxInt, 30*time.Second
		routes = append(routes, route{ds.name, connect(t, cfg, nil).session, rec})
	}
	out := map[string]map[int]ourVerdict{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, r := range routes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got := map[int]ourVerdict{}
			n := 0
			for i, c := range cases {
				if c.Schema != r.name {
					continue
				}
				if n++; n%3 != 1 {
					continue
				}
				before := r.rec.Operations()
				res, err := r.session.CallTool(context.Background(), &mcp.CallToolParams{Name: "graphql_query", Arguments: diffCallArguments(c)})
				v := ourVerdict{sent: r.rec.Operations() > before}
				if err != nil {
					v.message = "protocol error: " + err.Error()
				} else {
					v.message = mcptest.Text(res)
				}
				got[i] = v
			}
			if r.rec.Introspections() == 0 {
				t.Errorf("%s: the server never introspected the endpoint", r.name)
			}
			mu.Lock()
			out[r.name] = got
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// diffCallArguments are graphql_query's arguments for c.
func diffCallArguments(c diffCase) map[string]any {
	args := map[string]any{"query": c.Query}
	if c.OperationName != "" {
		args["operationName"] = c.OperationName
	}
	if c.Variables != nil {
		args["variables"] = c.Variables
	}
	return args
}
