package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
)

// MaxIntrospectionBytes is the response limit of introspection, which for a
// large public API (GitHub's is about 10 MB) is far over what a query may
// return; the result is converted and cached, never handed over whole.
const MaxIntrospectionBytes = 64 << 20

// Fetch introspects the endpoint of req (whose query it sets), deprecated
// members included, and converts the answer. An endpoint that rejects the
// newest introspection query is asked again with older ones
// (introspectionQueries).
func Fetch(ctx context.Context, client *upstream.Client, req upstream.Request) (*Schema, error) {
	req.Variables = nil
	req.OperationName = "IntrospectionQuery"
	req.MaxResponseBytes = MaxIntrospectionBytes
	var firstErrors []string
	for i, features := range introspectionQueries {
		req.Query = introspectionQuery(features)
		resp, err := client.Post(ctx, req)
		if err != nil {
			return nil, fmt.Errorf("introspection failed: %w", err)
		}
		if resp.HasData {
			result, err := ParseResult(resp.Data)
			var malformed *MalformedError
			var tooDeep *TooDeepError
			switch {
			case errors.As(err, &malformed):
				return nil, fmt.Errorf("introspection of %s failed: %v; the endpoint's introspection is broken, so its schema cannot be shown: "+
					"report it to the endpoint's owner, or run queries you already know with graphql_query", httpx.DisplayURL(req.Target.URL), err)
			case errors.As(err, &tooDeep):
				return nil, fmt.Errorf("introspection of %s failed: %v, so its schema cannot be shown: "+
					"run queries you already know with graphql_query", httpx.DisplayURL(req.Target.URL), err)
			case err != nil:
				return nil, fmt.Errorf("introspection of %s failed: %s. The endpoint may have introspection disabled: "+
					"ask its owner for the schema, or run queries you already know with graphql_query", httpx.DisplayURL(req.Target.URL), withoutStop(err.Error()))
			}
			return New(result)
		}
		if i == 0 {
			firstErrors = errorMessages(resp.Errors)
		}
	}
	reason := "no data and no errors"
	if len(firstErrors) > 0 {
		reason = strings.Join(firstErrors, "; ")
	}
	return nil, fmt.Errorf("introspection of %s failed: %s. The endpoint may have introspection disabled: "+
		"ask its owner for the schema, or run queries you already know with graphql_query", httpx.DisplayURL(req.Target.URL), withoutStop(reason))
}

// withoutStop drops the full stop an endpoint's message may end with, so
// that the sentence after it does not start after two.
func withoutStop(s string) string {
	return strings.TrimRight(strings.TrimSpace(s), ".")
}

// errorMessages lists the messages of a GraphQL "errors" member; a member of
// another shape gives none.
func errorMessages(raw json.RawMessage) []string {
	var errs []struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &errs) != nil {
		return nil
	}
	messages := make([]string, 0, len(errs))
	for _, e := range errs {
		messages = append(messages, e.Message)
	}
	return messages
}
