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

// FetchError is an introspection that gave no schema. SendUnchecked
// reports that the endpoint answered but would not or could not describe its
// schema (introspection disabled, a malformed answer), so an operation may
// still be sent to it unchecked; it is false when the request failed or the
// credentials were refused, which the operation would meet too.
type FetchError struct {
	err           error
	SendUnchecked bool
}

func (e *FetchError) Error() string { return e.err.Error() }

func (e *FetchError) Unwrap() error { return e.err }

// Fetch introspects the endpoint of req (whose query it sets), deprecated
// members included, and converts the answer. An endpoint that rejects the
// newest introspection query is asked again with older ones
// (introspectionQueries). Its errors are *FetchError.
func Fetch(ctx context.Context, client *upstream.Client, req upstream.Request) (*Schema, error) {
	req.Variables = nil
	req.OperationName = "IntrospectionQuery"
	req.MaxResponseBytes = MaxIntrospectionBytes
	endpoint := httpx.DisplayURL(req.Target.URL)
	var firstErrors []string
	status := 0
	for i, features := range introspectionQueries {
		if i > 0 && features.current && namesCurrentFields(firstErrors) {
			continue // the endpoint said it lacks a field this query asks for too
		}
		req.Query = introspectionQuery(features)
		resp, err := client.Post(ctx, req)
		if err != nil {
			var notGraphQL *upstream.NotGraphQLError
			answered := errors.As(err, &notGraphQL) && !upstream.RefusesCredentials(notGraphQL.Status)
			return nil, &FetchError{err: upstream.AsSchemaFetch(err), SendUnchecked: answered}
		}
		if resp.HasData {
			result, err := ParseResult(resp.Data)
			var malformed *MalformedError
			var tooDeep *TooDeepError
			switch {
			case errors.As(err, &malformed):
				err = fmt.Errorf("introspection of %s failed: %v; the endpoint's introspection is broken, so its schema cannot be shown: "+
					"report it to the endpoint's owner, or run queries you already know with graphql_query", endpoint, err)
			case errors.As(err, &tooDeep):
				err = fmt.Errorf("introspection of %s failed: %v, so its schema cannot be shown: "+
					"run queries you already know with graphql_query", endpoint, err)
			case err != nil:
				err = fmt.Errorf("introspection of %s failed: %s. The endpoint may have introspection disabled: "+
					"ask its owner for the schema, or run queries you already know with graphql_query", endpoint, withoutStop(err.Error()))
			}
			if err != nil {
				return nil, &FetchError{err: err, SendUnchecked: true}
			}
			return New(result)
		}
		if i == 0 {
			firstErrors, status = errorMessages(resp.Errors), resp.Status
		}
	}
	reason := "no data and no errors"
	if len(firstErrors) > 0 {
		reason = strings.Join(firstErrors, "; ")
	}
	if upstream.RefusesCredentials(status) {
		return nil, &FetchError{err: fmt.Errorf("introspection of %s failed: HTTP %d: %s. The endpoint refused the credentials: "+
			"check the Authorization header (--headers or GRAPHQL_HEADERS when starting graphqlmcp, or headers in the call)", endpoint, status, withoutStop(reason))}
	}
	return nil, &FetchError{err: fmt.Errorf("introspection of %s failed: %s. The endpoint may have introspection disabled: "+
		"ask its owner for the schema, or run queries you already know with graphql_query", endpoint, withoutStop(reason)), SendUnchecked: true}
}

// namesCurrentFields reports errors that name a field of the 2021
// additions, which the query without isOneOf asks for too: an endpoint that
// rejects it is asked the oldest query at once, one round trip sooner.
func namesCurrentFields(messages []string) bool {
	for _, m := range messages {
		for _, name := range []string{"specifiedByURL", "isRepeatable", "includeDeprecated"} {
			if strings.Contains(m, name) {
				return true
			}
		}
	}
	return false
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
