package tools

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/mcpforge/servers/graphqlmcp/internal/complexity"
	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/jsonx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// dryRunChecks are what graphql_query found before the point of sending.
type dryRunChecks struct {
	checked   bool   // validated against the endpoint's schema
	unchecked string // why not, when the endpoint's schema could not be had
	score     complexity.Result
	// guard refuses the mutation, which a dry run checks and prices
	// anyway; nil when the operation may run.
	guard error
	note  string // on how variables were read
}

// DryRun is graphql_query's structured result with dryRun: true, in place
// of a GraphQL response (the output schema admits other members).
type DryRun struct {
	DryRun        bool         `json:"dryRun"`
	Verdict       string       `json:"verdict"`
	Operation     string       `json:"operation"`
	Endpoint      string       `json:"endpoint"`
	Checked       string       `json:"checked"`
	Complexity    int          `json:"complexity"`
	MaxComplexity int          `json:"maxComplexity"`
	Costliest     []DryRunList `json:"costliest,omitempty"`
	// Headers are those the request would carry: the values of Accept
	// and Content-Type, only the names of the others (they may be
	// credentials).
	Headers []string `json:"headers"`
	// Body is the request's body byte for byte (upstream.Payload).
	Body string `json:"body"`
}

// DryRunList is one of the lists that cost the most.
type DryRunList struct {
	Path    string `json:"path"`
	Size    int    `json:"size"`
	Items   int    `json:"items"`
	SizedBy string `json:"sizedBy"`
}

// dryRun answers a call with dryRun: true once every check has passed: the
// verdict, the price and where it comes from, and the request as it would
// go out, with nothing sent. A mutation the guard refuses is refused here
// too, with what the other checks found. Secrets r knows are taken out of
// everything, the query and variables included (a user may paste one).
func (h *handlers) dryRun(req upstream.Request, chosen operation.Chosen, r upstream.Redactor, c dryRunChecks) (*mcp.CallToolResult, mcptool.Document[QueryResult], error) {
	payload, err := upstream.Payload(req)
	if err != nil {
		return nil, nil, err
	}
	endpoint := httpx.DisplayURL(req.Target.URL)
	what := string(chosen.Op.Operation)
	if chosen.Op.Name != "" {
		what += " " + chosen.Op.Name
	}
	out := DryRun{
		DryRun:        true,
		Verdict:       "would be sent",
		Operation:     what,
		Endpoint:      endpoint,
		Checked:       r.String(h.checkedSaid(endpoint, c)), // it may quote an introspection failure
		Complexity:    c.score.Score,
		MaxComplexity: h.cfg.MaxComplexity,
		Headers:       headersShown(req),
		Body:          r.String(string(payload)),
	}
	var lists []string
	for _, cost := range c.score.Costliest {
		list := DryRunList{Path: shortName(cost.Path), Size: cost.Size, Items: cost.Items, SizedBy: sizedBy(cost)}
		out.Costliest = append(out.Costliest, list)
		lists = append(lists, fmt.Sprintf("%s ×%d (%s) = %d %s", list.Path, list.Size, list.SizedBy, list.Items, plural(list.Items, "item", "items")))
	}
	price := fmt.Sprintf("Its price is %d of the ceiling of %d (--maxComplexity): it can return %d list %s", c.score.Score, h.cfg.MaxComplexity, c.score.Score, plural(c.score.Score, "item", "items"))
	if len(lists) > 0 {
		price += "; costliest lists: " + strings.Join(lists, ", ")
	}
	price += "."
	// What the endpoint wrote of its introspection's failure comes after
	// the whole summary, in its frame (uncheckedParts).
	checked, quoted := uncheckedParts(out.Checked)
	if c.guard != nil {
		return nil, nil, fmt.Errorf("dry run, nothing was sent: %v. Apart from that, %s %s%s", c.guard, checked, price, quoted)
	}
	summary := fmt.Sprintf("Dry run: nothing was sent. Without dryRun, this call would send %s to %s%s. %s %s",
		what, endpoint, h.mutationSaid(chosen), capitalize(checked), price)
	if c.note != "" {
		summary += " " + c.note
	}
	summary += " The request's body follows, as it would be sent."
	doc, err := jsonx.Marshal(out)
	if err != nil {
		return nil, nil, fmt.Errorf("encoding the dry run: %w", err)
	}
	return mcptool.Text(r.String(summary)+quoted, out.Body), mcptool.Document[QueryResult](doc), nil
}

// checkedSaid says how the operation was checked before pricing.
func (h *handlers) checkedSaid(endpoint string, c dryRunChecks) string {
	switch {
	case c.checked:
		return "it matches the schema of " + endpoint + ", and its variables fit the operation's variable definitions."
	case !h.cfg.Validate:
		return "it was not checked against the schema (--validate=false), so the endpoint alone judges it."
	case c.unchecked != "":
		said, quoted := uncheckedParts(c.unchecked)
		return "it would be sent unchecked. " + strings.TrimSuffix(said, ".") + "." + quoted
	}
	return "it was not checked against the schema."
}

// mutationSaid says, of a mutation that may run, what lets it.
func (h *handlers) mutationSaid(chosen operation.Chosen) string {
	if chosen.Op.Operation != ast.Mutation {
		return ""
	}
	if h.cfg.Mutations == config.MutationsAlways {
		return " (a mutation: this server runs mutations, --mutations always)"
	}
	return " (a mutation, which allowMutations: true lets run)"
}

// sizedBy says where a list's size comes from, in the words the refusal
// over the ceiling uses (overCeiling).
func sizedBy(c complexity.Cost) string {
	argument := shortName(c.Argument)
	switch c.Sizing {
	case complexity.SizeGiven:
		return "the value given to " + argument
	case complexity.SizeDefault:
		return "the default of " + argument
	case complexity.SizeListLength:
		return "the values given to " + argument
	case complexity.SizeSchemaCount:
		return "counted in the schema"
	}
	if c.Argument == "" {
		return "assumed: the field takes no size argument"
	}
	return "assumed: no " + argument + " given"
}

// headersShown lists the request's headers: a value only where it is
// public (how the body and the answer are framed), else the name alone.
func headersShown(req upstream.Request) []string {
	headers := req.Headers.Clone()
	if headers == nil {
		headers = http.Header{}
	}
	if req.Incremental {
		headers.Set("Accept", upstream.IncrementalAccept)
	}
	var shown []string
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range headers {
			if !yield(name) {
				return
			}
		}
	}) {
		switch {
		case name == "Accept" || name == "Content-Type":
			shown = append(shown, name+": "+headers.Get(name))
		case httpx.ReadsAsHeaderName(name):
			shown = append(shown, name+": (value not shown)")
		default:
			shown = append(shown, httpx.HeaderName(name))
		}
	}
	return shown
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
