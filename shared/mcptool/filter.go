package mcptool

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Filter is the operator's choice of the tools a server lists and runs
// (--tools, --exclude-tools, --read-only). The zero Filter allows every tool.
//
// Exclude is applied after Only, so that it can take tools out of a group
// that Only names (every saved operation but one); app.CheckToolFilter
// refuses the choices that contradict themselves (a name in both lists, a
// tool named in Only that the rest leaves out).
type Filter struct {
	// Only, when not empty, names the tools (or groups of tools, such as
	// graphqlmcp's "operations") that are listed; no other is.
	Only []string
	// Exclude names tools or groups that are never listed.
	Exclude []string
	// ReadOnly lists only tools annotated read-only.
	ReadOnly bool
}

// IsZero reports a filter that allows every tool.
func (f Filter) IsZero() bool {
	return len(f.Only) == 0 && len(f.Exclude) == 0 && !f.ReadOnly
}

// Allows reports whether a tool named name, in groups, annotated read-only
// or not, is listed and callable under f.
func (f Filter) Allows(name string, groups []string, readOnly bool) bool {
	if f.ReadOnly && !readOnly {
		return false
	}
	if names(f.Exclude, name, groups) {
		return false
	}
	return len(f.Only) == 0 || names(f.Only, name, groups)
}

// names reports whether list names the tool name or one of its groups.
func names(list []string, name string, groups []string) bool {
	if slices.Contains(list, name) {
		return true
	}
	for _, g := range groups {
		if slices.Contains(list, g) {
			return true
		}
	}
	return false
}

// Offered is a tool a server has, whether the filter lists it or not: what
// the filter judges it by.
type Offered struct {
	Name     string
	Groups   []string
	ReadOnly bool
}

// Filterable is a Registrar the filter can judge.
type Filterable interface {
	Registrar
	Offered() Offered
}

// Offered is t as the filter judges it: its name, and whether it is
// annotated read-only.
func (t Tool[In, Out]) Offered() Offered {
	return Offered{Name: t.Name, ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint}
}

// Register adds to s, in order, the tools f allows, and returns every tool
// it was given, added or not, for the operator's names to be checked
// against (app.CheckToolFilter).
func (f Filter) Register(s *mcp.Server, tools ...Filterable) []Offered {
	offered := make([]Offered, 0, len(tools))
	for _, t := range tools {
		o := t.Offered()
		offered = append(offered, o)
		if f.Allows(o.Name, o.Groups, o.ReadOnly) {
			t.Register(s)
		}
	}
	return offered
}

// Why says why f leaves out o, in the operator's terms, or "" when f lists
// it.
func (f Filter) Why(o Offered) string {
	switch {
	case f.Allows(o.Name, o.Groups, o.ReadOnly):
		return ""
	case f.ReadOnly && !o.ReadOnly:
		return "--read-only offers only the tools that read, and this one changes or sends something"
	case names(f.Exclude, o.Name, o.Groups):
		return "--exclude-tools leaves it out"
	default:
		return "--tools names the tools offered, and not this one"
	}
}

// Withheld is a receiving middleware that answers a call to a tool the
// server has but f leaves out (one of offered) with why it is not there,
// instead of the go-sdk's bare "unknown tool": the model, or the person
// reading its error, learns that the operator chose this, not that the
// tool does not exist. The answer stays the protocol error the SDK gives
// (invalid params), as the protocol has it for a tool not listed.
func (f Filter) Withheld(offered []Offered) mcp.Middleware {
	return f.WithheldFrom(func() []Offered { return offered })
}

// WithheldFrom is Withheld for a server whose tools change while it runs
// (graphqlmcp's saved operations, reloaded): current gives every tool the
// server has at the time of the call, so that a tool a reload adds and f
// leaves out is answered with why, and one a reload removed is unknown.
func (f Filter) WithheldFrom(current func() []Offered) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			result, err := next(ctx, method, req)
			call, ok := req.(*mcp.CallToolRequest)
			var rpcErr *jsonrpc.Error
			if !ok || method != "tools/call" || call.Params == nil || !errors.As(err, &rpcErr) || rpcErr.Message != fmt.Sprintf("unknown tool %q", call.Params.Name) {
				return result, err
			}
			all := current()
			i := slices.IndexFunc(all, func(o Offered) bool { return o.Name == call.Params.Name })
			if i < 0 {
				return result, err
			}
			reason := f.Why(all[i])
			if reason == "" {
				return result, err
			}
			return nil, &jsonrpc.Error{
				Code:    rpcErr.Code,
				Message: fmt.Sprintf("unknown tool %q: this server has it, but its operator does not offer it here (%s); call a tool that tools/list names", call.Params.Name, reason),
			}
		}
	}
}

// Instructions is what a server's instructions add under f, each sentence
// on a line of its own after a newline: the instructions name tools that
// f may leave out, and the model should not go looking for them.
func (f Filter) Instructions() string {
	var b strings.Builder
	if f.ReadOnly {
		b.WriteString("\nThis server is read-only (its operator's choice, --read-only): it offers only the tools that read; a tool named here that changes or sends something is not available.")
	}
	if len(f.Only) > 0 || len(f.Exclude) > 0 {
		b.WriteString("\nThe operator chose the tools this server offers (--tools, --exclude-tools): a tool named here that tools/list lacks is not available.")
	}
	return b.String()
}
