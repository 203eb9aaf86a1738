package schema

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/mcptool"
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
	err error
	// quoted is what the endpoint said in refusing (its errors'
	// messages), framed as a third party's words (mcptool.Untrusted), or
	// "". It comes after err's whole sentence, which says it is quoted
	// below: the endpoint's words may be written to read as instructions.
	quoted        string
	SendUnchecked bool
	// unusable reports an endpoint that takes no request graphqlmcp
	// sends (persisted operations only, no POST): like one that does not
	// describe its schema, it is not asked again while a schema would be
	// cached.
	unusable bool
}

func (e *FetchError) Error() string {
	if e.quoted == "" {
		return e.err.Error()
	}
	return e.err.Error() + "\n" + e.quoted
}

// Said is the error without the endpoint's words that it (or the error it
// wraps, upstream.NotGraphQLError) quotes last in a frame: for a message
// that cuts the error short, where a cut would leave the frame open.
func (e *FetchError) Said() string {
	var inner interface{ Said() string }
	switch {
	case e.quoted != "":
		return e.err.Error()
	case errors.As(e.err, &inner):
		return inner.Said()
	}
	return e.err.Error()
}

func (e *FetchError) Unwrap() error { return e.err }

// Fetch introspects the endpoint of req (whose query it sets), deprecated
// members included, and converts the answer. An endpoint that rejects the
// newest introspection query for a field it lacks is asked again with older
// ones (introspectionQueries); one that refuses it for another reason
// (introspection disabled, persisted operations only) is asked once. Its
// errors are *FetchError.
func Fetch(ctx context.Context, client *upstream.Client, req upstream.Request) (*Schema, error) {
	req.Variables = nil
	req.OperationName = "IntrospectionQuery"
	req.MaxResponseBytes = MaxIntrospectionBytes
	endpoint := httpx.DisplayURL(req.Target.URL)
	var refused []refusalError
	status := 0
	for i := 0; i < len(introspectionQueries); i++ {
		req.Query = introspectionQuery(introspectionQueries[i])
		resp, err := client.Post(ctx, req)
		if err != nil {
			var notGraphQL *upstream.NotGraphQLError
			answered := errors.As(err, &notGraphQL) && !upstream.RefusesCredentials(notGraphQL.Status) && !notGraphQL.Unusable
			return nil, &FetchError{err: upstream.AsSchemaFetch(err), SendUnchecked: answered, unusable: notGraphQL != nil && notGraphQL.Unusable}
		}
		if resp.HasData {
			return fromAnswer(endpoint, resp)
		}
		refused, status = refusalErrors(resp.Errors), resp.Status
		if !namesFields(refused, oneOfFields) && !namesFields(refused, currentFields) {
			break // refused for a reason an older query would meet too
		}
		if namesFields(refused, currentFields) {
			// The query without isOneOf asks for these too: the oldest
			// is asked at once, one round trip sooner.
			i = max(i, len(introspectionQueries)-2)
		}
	}
	reason, quoted := "no data and no errors", ""
	if len(refused) > 0 {
		reason, quoted = refusalQuote(refused)
	}
	failed := fmt.Sprintf("introspection of %s failed: ", endpoint)
	if status != 0 && (status < 200 || status > 299) {
		failed += fmt.Sprintf("HTTP %d: ", status)
	}
	failed += reason + ". "
	switch {
	case upstream.RefusesCredentials(status):
		return nil, &FetchError{err: errors.New(failed + upstream.CredentialsAdvice(req.Forward)), quoted: quoted}
	case status == http.StatusMethodNotAllowed:
		return nil, &FetchError{err: errors.New(failed + upstream.GetOnlyAdvice(req.Target)), quoted: quoted, unusable: true}
	case status < 500 && persistedOnly(refused):
		return nil, &FetchError{err: errors.New(failed + upstream.PersistedOnlyAdvice), quoted: quoted, unusable: true}
	}
	return nil, &FetchError{err: errors.New(failed + "The endpoint may have introspection disabled: " +
		"ask its owner for the schema, or run queries you already know with graphql_query"), quoted: quoted, SendUnchecked: true}
}

// fromAnswer converts an introspection answer with data.
func fromAnswer(endpoint string, resp *upstream.Response) (*Schema, error) {
	result, err := ParseResult(resp.Data)
	var malformed *MalformedError
	var tooDeep *TooDeepError
	switch {
	case errors.As(err, &malformed):
		// The reason quotes the entry that is wrong: a name that is no
		// GraphQL name, a default value, is any text the endpoint chose.
		return nil, &FetchError{err: fmt.Errorf("introspection of %s failed: the introspection answer is malformed, as quoted below; the endpoint's introspection is broken, so its schema cannot be shown: "+
			"report it to the endpoint's owner, or run queries you already know with graphql_query", endpoint),
			quoted:        mcptool.Untrusted("the entry of the endpoint's introspection answer that is wrong, and why", httpx.Snippet([]byte(malformed.Reason), 300)),
			SendUnchecked: true}
	case errors.As(err, &tooDeep):
		err = fmt.Errorf("introspection of %s failed: %v, so its schema cannot be shown: "+
			"run queries you already know with graphql_query", endpoint, err)
	case err != nil:
		// The decoder's reason quotes the start of the value of the wrong
		// type, which the endpoint wrote.
		return nil, &FetchError{err: fmt.Errorf("introspection of %s failed: its answer is not an introspection result, for the reason quoted below. The endpoint may have introspection disabled: "+
			"ask its owner for the schema, or run queries you already know with graphql_query", endpoint),
			quoted:        mcptool.Untrusted("why the endpoint's introspection answer could not be read", httpx.Snippet([]byte(err.Error()), 300)),
			SendUnchecked: true}
	}
	if err != nil {
		return nil, &FetchError{err: err, SendUnchecked: true}
	}
	return New(result)
}

// maxRefusalsShown bounds the refusal's errors an error quotes.
const maxRefusalsShown = 5

// refusalQuote says, for an error's sentence, that the endpoint refused
// in words quoted below, and how many of its errors they are, and gives
// those words framed as a third party's (refusalText): the endpoint wrote
// them, and may have written them to read as instructions.
func refusalQuote(refused []refusalError) (said, quoted string) {
	said = "the endpoint refused it with the error quoted below"
	switch {
	case len(refused) > maxRefusalsShown:
		said = fmt.Sprintf("the endpoint refused it with %d errors, the first %d quoted below", len(refused), maxRefusalsShown)
	case len(refused) > 1:
		said = fmt.Sprintf("the endpoint refused it with the %d errors quoted below", len(refused))
	}
	return said, mcptool.Untrusted("the endpoint's errors refusing the introspection", refusalText(refused))
}

// refusalText is what the endpoint said, bounded: the first few messages,
// a line each, each with a code it does not give (QUERY_NOT_IN_SAFELIST
// says what the refusal is).
func refusalText(refused []refusalError) string {
	messages := make([]string, 0, min(len(refused), maxRefusalsShown))
	for _, e := range refused[:min(len(refused), maxRefusalsShown)] {
		message := httpx.Snippet([]byte(e.Message), 300)
		var code string
		if json.Unmarshal([]byte(e.Code), &code) == nil && code != "" && len(code) <= 100 && !strings.Contains(e.Message, code) {
			message = withoutStop(message) + " (" + code + ")"
		}
		messages = append(messages, message)
	}
	return strings.Join(messages, "\n")
}

// The introspection fields that servers added over the years, by the query
// feature that asks for them: an endpoint whose refusal names one lacks it,
// and is asked an older query.
var (
	oneOfFields = []string{"isOneOf"}
	// currentFields are the 2021 additions: __Schema.description,
	// specifiedByURL, isRepeatable, and deprecated arguments and input
	// fields.
	currentFields = []string{"specifiedByURL", "isRepeatable", "includeDeprecated", "isDeprecated", "deprecationReason", `"description" on type "__Schema"`}
)

// namesFields reports refusals that name one of fields.
func namesFields(refused []refusalError, fields []string) bool {
	for _, e := range refused {
		for _, name := range fields {
			if strings.Contains(e.Message, name) {
				return true
			}
		}
	}
	return false
}

// persistedOnly reports refusals that say the endpoint takes persisted
// operations only, by message or by code. The names a message quotes are
// the endpoint's, not its words: `Cannot query field "__schema" on type
// "Query". Did you mean "persistedQueries"?` says nothing of persisted
// operations.
func persistedOnly(refused []refusalError) bool {
	for _, e := range refused {
		if upstream.PersistedOnly(withoutQuoted(e.Message)) || upstream.PersistedOnly(e.Code) {
			return true
		}
	}
	return false
}

// withoutQuoted is message less the names it quotes, as servers quote them:
// "name" (graphql-js), 'name' and @[path] (graphql-java), `name` (Hot
// Chocolate). A quote that follows a letter or digit is an apostrophe
// (can't), not a quote.
func withoutQuoted(message string) string {
	var b strings.Builder
	for i := 0; i < len(message); i++ {
		c := message[i]
		closing := c
		if c == '[' {
			closing = ']'
		}
		if strings.IndexByte("\"'`[", c) >= 0 && (i == 0 || !isWordByte(message[i-1])) {
			if end := strings.IndexByte(message[i+1:], closing); end >= 0 {
				b.WriteByte(' ')
				i += end + 1
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// withoutStop drops the full stop an endpoint's message may end with, so
// that the sentence after it does not start after two.
func withoutStop(s string) string {
	return strings.TrimRight(strings.TrimSpace(s), ".")
}

// refusalError is an entry of a GraphQL "errors" member, as far as a
// refusal is read: its message, and its extensions' code as JSON text
// (servers give it as a string, some as a number).
type refusalError struct {
	Message string
	Code    string
}

// refusalErrors reads a GraphQL "errors" member, each entry on its own, so
// that an entry of an odd shape does not hide the others; a member that is
// not a list gives none.
func refusalErrors(raw json.RawMessage) []refusalError {
	var entries []json.RawMessage
	if json.Unmarshal(raw, &entries) != nil {
		return nil
	}
	errs := make([]refusalError, 0, len(entries))
	for _, entry := range entries {
		var message struct {
			Message string `json:"message"`
		}
		var code struct {
			Extensions struct {
				Code json.RawMessage `json:"code"`
			} `json:"extensions"`
		}
		json.Unmarshal(entry, &message)
		json.Unmarshal(entry, &code)
		errs = append(errs, refusalError{Message: message.Message, Code: string(code.Extensions.Code)})
	}
	return errs
}
