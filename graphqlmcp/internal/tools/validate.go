package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/validator"

	"github.com/mcpforge/servers/graphqlmcp/internal/operation"
	"github.com/mcpforge/servers/graphqlmcp/internal/schema"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
)

// maxValidationErrors bounds the errors a refusal lists.
const maxValidationErrors = 10

// validate checks the chosen operation and its variables against the
// endpoint's schema, as the endpoint would, before anything is sent. It
// returns a note for the result when the operation goes unchecked (the
// endpoint does not describe its schema), and an error that refuses the call
// when the operation or its variables do not match, or when the schema
// could not be fetched for a reason the operation would meet too.
//
// It returns the schema it checked against, for pricing; nil when the
// operation goes unchecked.
func (h *handlers) validate(ctx context.Context, req upstream.Request, chosen operation.Chosen, variables map[string]any) (checker *ast.Schema, unchecked string, err error) {
	if !h.cfg.Validate {
		return nil, "", nil
	}
	got, err := h.schemaOf(ctx, req, false)
	var refused *schema.FetchError
	switch {
	case errors.As(err, &refused) && refused.SendUnchecked:
		return nil, "Not checked against the schema before sending: " + httpx.Snippet([]byte(refused.Error()), 300), nil
	case err != nil:
		return nil, "", err
	}
	checker, err = got.Schema.Validator()
	if err != nil {
		return nil, "Not checked against the schema before sending: the schema does not load in the validator: " + httpx.Snippet([]byte(err.Error()), 300), nil
	}
	if errs := validator.Validate(checker, chosen.Sent); len(errs) > 0 {
		return nil, "", invalidOperation(httpx.DisplayURL(req.Target.URL), errs)
	}
	if _, gqlErr := validator.VariableValues(checker, chosen.Op, variables); gqlErr != nil {
		return nil, "", fmt.Errorf("variables do not match the operation's variable definitions, so it was not sent: %s; fix variables and call again",
			strings.TrimRight(variableMessage(gqlErr), "."))
	}
	return checker, "", nil
}

// invalidOperation lists the validator's errors, each with its place in the
// query and the validator's "Did you mean" suggestion where it has one.
func invalidOperation(endpoint string, errs gqlerror.List) error {
	var b strings.Builder
	fmt.Fprintf(&b, "query does not match the schema of %s, so it was not sent:", endpoint)
	for i, e := range errs {
		if i == maxValidationErrors {
			fmt.Fprintf(&b, "\n- and %d more", len(errs)-maxValidationErrors)
			break
		}
		b.WriteString("\n- ")
		if len(e.Locations) > 0 {
			fmt.Fprintf(&b, "line %d, column %d: ", e.Locations[0].Line, e.Locations[0].Column)
		}
		b.WriteString(e.Message)
	}
	b.WriteString("\nFix the query and call again; graphql_introspect shows a type's fields (types: [\"Name\"]) or finds a name (search: \"word\").")
	return errors.New(b.String())
}

// variableMessage is the text of a variables error, without gqlparser's
// "input: " prefix.
func variableMessage(err error) string {
	var gqlErr *gqlerror.Error
	if errors.As(err, &gqlErr) {
		return gqlErr.Message
	}
	return err.Error()
}
