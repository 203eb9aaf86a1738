package tools

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/mcpforge/servers/graphqlmcp/internal/coerce"
	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
)

// maxValidationErrors bounds the errors a refusal lists, and
// maxMessageBytes each one's message.
const (
	maxValidationErrors = 10
	maxMessageBytes     = 300
)

// validate checks the chosen operation and its variables against the
// endpoint's schema, as the endpoint would, before anything is sent. It
// returns a note for the result when the operation goes unchecked (the
// endpoint does not describe its schema), and an error that refuses the call
// when the operation or its variables do not match, or when the schema
// could not be fetched for a reason the operation would meet too.
//
// It returns the schema it checked against, for pricing; nil when the
// operation goes unchecked.
func (h *handlers) validate(ctx context.Context, req upstream.Request, call callTarget, chosen operation.Chosen, variables map[string]any) (checker *ast.Schema, unchecked string, err error) {
	if !h.cfg.Validate {
		return nil, "", nil
	}
	got, err := h.schemaOf(ctx, req, false)
	var refused *schema.FetchError
	switch {
	case errors.As(err, &refused) && refused.SendUnchecked:
		if err := h.blameHeaders(ctx, req, call, refused); err != nil {
			return nil, "", err
		}
		return nil, "Not checked against the schema before sending, since introspection failed: " + failureText(refused), nil
	case err != nil:
		return nil, "", err
	}
	checker, err = got.Schema.Validator()
	if err != nil {
		return nil, "Not checked against the schema before sending: the schema does not load in the validator" + validatorReason(err), nil
	}
	errs, total, err := h.rulesCheckAs(ctx, req.Timeout, checker, chosen.Sent, h.redactorAs(call.who))
	if err != nil {
		return nil, "", err
	}
	if len(errs) > 0 {
		return nil, "", quotingAs(h.redactorAs(call.who), invalidOperation(httpx.DisplayURL(req.Target.URL), errs, total))
	}
	redactor := h.redactorAs(call.who)
	if coerced := coerce.Variables(checker, chosen.Op.VariableDefinitions, variables, maxValidationErrors, redactor.String); coerced.Total > 0 {
		return nil, "", quotingAs(redactor, invalidVariables(coerced))
	}
	return checker, "", nil
}

// quoting redacts the startup headers' secrets from a refusal that quotes
// the call's own query or variables, where a user may have pasted one.
func (h *handlers) quoting(err error) error {
	return quotingAs(h.client.Redactor, err)
}

// quotingAs is quoting for a call whose secrets r holds: the startup
// headers' and those its HTTP request forwards (--forward-header). They
// go before a quote is cut, so that no cut leaves part of one showing.
func quotingAs(r upstream.Redactor, err error) error {
	return errors.New(r.String(err.Error()))
}

// callTarget is where a call asked to go, as it gave it, and who asks:
// the headers its HTTP request forwards (--forward-header), which every
// request of the call carries, the introspections included.
type callTarget struct {
	endpoint string
	headers  map[string]string
	who      forwarded
}

// blameHeaders decides whether an introspection that answered without a
// schema failed because of the call's own headers, which the operation
// would be sent with too: it asks again without them. When that gives a
// schema, the headers changed how the endpoint reads a request (the
// operation could be read as another), and the call is refused; when it
// fails the same way, introspection is off whatever the headers, and the
// operation may go unchecked.
func (h *handlers) blameHeaders(ctx context.Context, req upstream.Request, call callTarget, refused *schema.FetchError) error {
	if len(call.headers) == 0 {
		return nil
	}
	// Without the call's headers, but as the same caller: without the
	// forwarded credential the endpoint may refuse anyone, which says
	// nothing of the call's headers.
	bare, err := h.targetAs(call.who, call.endpoint, nil, req.Timeout)
	if err != nil {
		return err
	}
	_, err = h.schemaOf(ctx, bare, false)
	var again *schema.FetchError
	switch {
	case err == nil:
		return fmt.Errorf("introspection of %s failed with this call's headers and succeeds without them, so the operation, which would be sent with them, was not sent: "+
			"the headers change how the endpoint reads a request. Remove or fix the headers (%s); the failure: %s",
			httpx.DisplayURL(req.Target.URL), headerNames(call.headers), failureText(refused))
	case errors.As(err, &again) && again.SendUnchecked:
		return nil
	default:
		return err
	}
}

// headerNames lists the names of headers, as errors may show them.
func headerNames(headers map[string]string) string {
	names := make([]string, 0, len(headers))
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		names = append(names, httpx.HeaderName(name))
	}
	return strings.Join(names, ", ")
}

// maxListBytes bounds the lines of a refusal's list, so that the refusal,
// its first line and its advice included, stays within what a tool error
// may be (mcptool.MaxErrorText): the lines that do not fit are counted.
const maxListBytes = 1_600

// writeList writes lines as a list, as many as fit maxListBytes, then how
// many more there are (those not written and more besides).
func writeList(b *strings.Builder, lines []string, more int) {
	written := 0
	for _, line := range lines {
		if written > 0 && written+len(line) > maxListBytes {
			break
		}
		b.WriteString("\n- " + line)
		written += len(line) + 3
		more--
	}
	if more += len(lines); more > 0 {
		fmt.Fprintf(b, "\n- and %d more", more)
	}
}

// invalidOperation lists the validator's errors, each with its place in the
// query and the validator's "Did you mean" suggestion where it has one.
func invalidOperation(endpoint string, errs gqlerror.List, total int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "query does not match the schema of %s, so it was not sent:", endpoint)
	errs = errs[:min(len(errs), maxValidationErrors)]
	lines := make([]string, len(errs))
	for i, e := range errs {
		if len(e.Locations) > 0 {
			lines[i] = fmt.Sprintf("line %d, column %d: ", e.Locations[0].Line, e.Locations[0].Column)
		}
		// A message may quote a value whole (a 1 MB string): a prefix
		// says which.
		lines[i] += httpx.Snippet([]byte(e.Message), maxMessageBytes)
	}
	writeList(&b, lines, total-len(errs))
	b.WriteString("\nFix the query and call again; graphql_introspect shows a type's fields (types: [\"Name\"]) or finds a name (search: \"word\").")
	return errors.New(b.String())
}

// invalidVariables lists each problem with the variables as graphql-js
// words it, naming the variable, the place inside its value and the rule.
func invalidVariables(coerced coerce.Result) error {
	var b strings.Builder
	b.WriteString("variables do not match the operation's variable definitions, so it was not sent:")
	lines := make([]string, len(coerced.Errors))
	for i, e := range coerced.Errors {
		// coerce fits each message to maxMessageBytes by shortening its
		// quotes; only a variable named with hundreds of characters is cut.
		lines[i] = httpx.Snippet([]byte(e.Message), maxMessageBytes)
	}
	writeList(&b, lines, coerced.Total-len(coerced.Errors))
	b.WriteString("\nFix variables and call again; graphql_introspect shows an input or enum type's members (types: [\"Name\"]).")
	return errors.New(b.String())
}

// rulesCheck runs gqlparser's validation rules on doc, which
// operation.Choose has bounded so that they finish in a fraction of a
// second. They cannot be cancelled, so they run on a goroutine of their
// own, which the call stops waiting for at its timeout or cancellation; at
// most one rules check per core runs at once, so calls that give up cannot
// pile up work. It keeps the first maxValidationErrors errors (their
// messages are built only for those) and counts the rest.
func (h *handlers) rulesCheck(ctx context.Context, timeout time.Duration, checker *ast.Schema, doc *ast.QueryDocument) (gqlerror.List, int, error) {
	var r upstream.Redactor
	if h.client != nil {
		r = h.client.Redactor
	}
	return h.rulesCheckAs(ctx, timeout, checker, doc, r)
}

// rulesCheckAs is rulesCheck for a call whose secrets r holds, which its
// messages' quotes leave out.
func (h *handlers) rulesCheckAs(ctx context.Context, timeout time.Duration, checker *ast.Schema, doc *ast.QueryDocument, r upstream.Redactor) (gqlerror.List, int, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stopped := func() error {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("checking the query against the schema took longer than the time limit of %d ms, so it was not sent: split it into smaller operations, or raise timeout", timeout.Milliseconds())
		}
		return ctx.Err()
	}
	select {
	case h.checks <- struct{}{}:
	case <-ctx.Done():
		return nil, 0, stopped()
	}
	type outcome struct {
		errs     gqlerror.List
		total    int
		panicked any
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() { <-h.checks }()
		var out outcome
		defer func() {
			if p := recover(); p != nil {
				out.panicked = fmt.Sprintf("%v (in the validation rules)\n%s", p, debug.Stack())
			}
			done <- out
		}()
		out.errs, out.total = checkRules(h.redactingRules(r), checker, doc)
	}()
	select {
	case out := <-done:
		if out.panicked != nil {
			panic(out.panicked)
		}
		return out.errs, out.total, nil
	case <-ctx.Done():
		return nil, 0, stopped()
	}
}

// redactingRules are h.rules with the check of literals taking the secrets
// r holds (the startup headers', and those the call forwards) out of the
// strings its messages quote, before it cuts them (the query is the call's
// own, where a user may have pasted one).
func (h *handlers) redactingRules(r upstream.Redactor) []validator.Rule {
	if h.client == nil {
		return h.rules
	}
	literal := coerce.LiteralRule(r.String)
	all := slices.Clone(h.rules)
	for i, rule := range all {
		if rule.Name == literal.Name {
			all[i] = literal
		}
	}
	return all
}

// checkRules runs rules on doc, keeping the first maxValidationErrors
// errors (the messages of the others are never built) and counting all.
// An error kept twice (gqlparser walks a fragment once per spread, and
// some of its rules report each time) is kept and counted once.
func checkRules(all []validator.Rule, checker *ast.Schema, doc *ast.QueryDocument) (gqlerror.List, int) {
	total := 0
	kept := map[string]bool{}
	wrapped := make([]validator.Rule, len(all))
	for i, rule := range all {
		wrapped[i] = validator.Rule{Name: rule.Name, RuleFunc: func(observers *validator.Events, addError validator.AddErrFunc) {
			rule.RuleFunc(observers, func(options ...validator.ErrorOption) {
				total++
				if len(kept) >= maxValidationErrors {
					return
				}
				var e gqlerror.Error
				for _, option := range options {
					option(&e)
				}
				key := fmt.Sprint(e.Message, e.Locations)
				if kept[key] {
					total--
					return
				}
				kept[key] = true
				addError(options...)
			})
		}}
	}
	errs := validator.ValidateWithRules(checker, doc, rules.NewRules(wrapped...))
	return errs, total
}

// defaultRules are gqlparser's validation rules, in their names' order, with
// graphql-js's check of literals (coerce.LiteralRule) in place of
// gqlparser's, which is looser, and graphql-js's refusals of what gqlparser
// lets through elsewhere: @defer the schema does not declare, and \u escapes
// of lone surrogates; its NoUnusedVariables, which calls a variable defined
// twice never used, is graphql-js's.
func defaultRules() []validator.Rule {
	inner := rules.NewDefaultRules().GetInner()
	literal := coerce.LiteralRule(nil)
	inner[literal.Name] = literal.RuleFunc
	for _, rule := range []validator.Rule{undeclaredDirectiveRule(), coerce.EscapeRule(), noUnusedVariablesRule()} {
		inner[rule.Name] = rule.RuleFunc
	}
	list := make([]validator.Rule, 0, len(inner))
	for _, name := range slices.Sorted(maps.Keys(inner)) {
		list = append(list, validator.Rule{Name: name, RuleFunc: inner[name]})
	}
	return list
}

// undeclaredDirectiveRule refuses a directive that gqlparser's prelude
// declares for every schema and graphql-js 16 knows only where the schema
// declares it (@defer), as graphql-js's KnownDirectivesRule does: a server
// without it refuses the operation.
func undeclaredDirectiveRule() validator.Rule {
	return validator.Rule{Name: "KnownDirectivesOfTheSchema", RuleFunc: func(observers *validator.Events, addError validator.AddErrFunc) {
		// gqlparser walks a fragment's directives once per spread too.
		seen := map[*ast.Directive]bool{}
		observers.OnDirective(func(_ *validator.Walker, d *ast.Directive) {
			switch d.Name {
			case "include", "skip", "deprecated", "specifiedBy", "oneOf":
				return // graphql-js's specifiedDirectives
			}
			def := d.Definition
			if def == nil || def.Position == nil || def.Position.Src == nil || !def.Position.Src.BuiltIn || seen[d] {
				return
			}
			seen[d] = true
			addError(validator.Message(`Unknown directive "@%s".`, d.Name), core.At(d.Position))
		})
	}}
}

// noUnusedVariablesRule is graphql-js's NoUnusedVariablesRule: a variable is
// used when its name is. gqlparser's marks only the first definition of a
// name used, and so tells a model to remove a variable it uses when it is
// defined twice (which UniqueVariableNames reports).
func noUnusedVariablesRule() validator.Rule {
	return validator.Rule{Name: "NoUnusedVariables", RuleFunc: func(observers *validator.Events, addError validator.AddErrFunc) {
		observers.OnOperation(func(_ *validator.Walker, op *ast.OperationDefinition) {
			used := map[string]bool{}
			for _, def := range op.VariableDefinitions {
				used[def.Variable] = used[def.Variable] || def.Used
			}
			for _, def := range op.VariableDefinitions {
				switch {
				case used[def.Variable]:
				case op.Name != "":
					addError(validator.Message(`Variable "$%s" is never used in operation "%s".`, def.Variable, op.Name), core.At(def.Position))
				default:
					addError(validator.Message(`Variable "$%s" is never used.`, def.Variable), core.At(def.Position))
				}
			}
		})
	}}
}

// validatorReason ends a note that the validator cannot load a schema: its
// reason names the endpoint's types and fields, and a parse error quotes
// its text, so it comes after the server's words, framed as the
// endpoint's.
func validatorReason(err error) string {
	return "; its reason, which names the endpoint's types and fields, is quoted below\n" +
		mcptool.Untrusted("why the validator cannot load the endpoint's schema", httpx.Snippet([]byte(err.Error()), 300))
}

// uncheckedParts splits a note of validate's that an operation goes
// unchecked into the server's sentence and the endpoint's words it quotes
// after it, on lines of their own and framed ("" when it quotes none). A
// text that adds to the note adds to said and keeps quoted last: framed
// again, or followed on its line, the server's words would read as the
// endpoint's or the endpoint's as the server's.
func uncheckedParts(note string) (said, quoted string) {
	if at := strings.Index(note, "\n<<<untrusted-"); at >= 0 {
		return note[:at], note[at:]
	}
	return note, ""
}

// failureText is err's message within about 300 bytes, for a note that
// quotes it. An endpoint's words that the message quotes last, framed as
// third-party data (upstream.NotGraphQLError, schema.FetchError: their
// Said is the sentence before the frame), stay whole after the cut
// sentence: a cut through the frame would leave it open. They are bounded
// already (300 bytes of the answer, five of its errors).
func failureText(err error) string {
	var quoting interface{ Said() string }
	if errors.As(err, &quoting) {
		if said, all := quoting.Said(), err.Error(); strings.HasPrefix(all, said) {
			return httpx.Snippet([]byte(said), 300) + all[len(said):]
		}
	}
	return httpx.Snippet([]byte(err.Error()), 300)
}

// addToSentence is err's message with add put at the end of the server's
// own sentence: before the endpoint's framed words, which an error quotes
// last (upstream.NotGraphQLError, schema.FetchError), so that the frame
// stays last.
func addToSentence(err error, add string) string {
	var quoting interface{ Said() string }
	if errors.As(err, &quoting) {
		if said, all := quoting.Said(), err.Error(); strings.HasPrefix(all, said) {
			return said + add + all[len(said):]
		}
	}
	return err.Error() + add
}
