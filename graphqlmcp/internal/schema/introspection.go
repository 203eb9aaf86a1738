// Package schema fetches a GraphQL schema by introspection, prints it as SDL
// the way graphql-js's printSchema does, and renders views of it small enough
// for an assistant: the whole SDL, an overview, chosen types, or a search.
package schema

import (
	"fmt"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/mcpforge/servers/shared/jsonx"
)

// typeRefDepth is how many levels of a type reference the introspection
// query reads: enough for six lists nested in each other, every level
// non-null ([[[[[[T!]!]!]!]!]!]!), which no real schema reaches. A reference
// wrapped deeper is refused with a clear message (see validate).
const typeRefDepth = 14

// queryFeatures are the parts of the introspection query that servers added
// over the years; an endpoint that rejects one is asked again without it.
type queryFeatures struct {
	oneOf   bool // __Type.isOneOf (graphql-js 16.9, 2024)
	current bool // __Schema.description, specifiedByURL, isRepeatable, deprecated arguments and input fields (graphql-js 16, 2021)
}

// introspectionQueries are tried in order until an endpoint answers one with
// data: the newest first, then without isOneOf, then the query of servers
// that predate the 2021 additions. Deprecated members are always asked for:
// the default view hides them itself, keeping those it cannot hide.
var introspectionQueries = []queryFeatures{{oneOf: true, current: true}, {current: true}, {}}

// introspectionQuery renders the query for the features f.
func introspectionQuery(f queryFeatures) string {
	pick := func(on bool, text string) string {
		if on {
			return text
		}
		return ""
	}
	deprecatedArgs := pick(f.current, "(includeDeprecated: true)")
	var b strings.Builder
	fmt.Fprintf(&b, `query IntrospectionQuery {
  __schema {
    %s queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description %s locations args%s { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description %s %s
  fields(includeDeprecated: true) {
    name description args%s { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason
  }
  inputFields%s { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue {
  name description type { ...TypeRef } defaultValue %s
}
fragment TypeRef on __Type {
  kind name`,
		pick(f.current, "description"), pick(f.current, "isRepeatable"), deprecatedArgs,
		pick(f.current, "specifiedByURL"), pick(f.oneOf, "isOneOf"), deprecatedArgs,
		deprecatedArgs, pick(f.current, "isDeprecated deprecationReason"))
	for range typeRefDepth - 1 {
		b.WriteString(" ofType { kind name")
	}
	b.WriteString(strings.Repeat(" }", typeRefDepth-1))
	b.WriteString("\n}\n")
	return b.String()
}

// Result is the "data" member of an introspection response.
type Result struct {
	Schema struct {
		Description      *string     `json:"description"`
		QueryType        *named      `json:"queryType"`
		MutationType     *named      `json:"mutationType"`
		SubscriptionType *named      `json:"subscriptionType"`
		Types            []fullType  `json:"types"`
		Directives       []directive `json:"directives"`
	} `json:"__schema"`
	// sdlSize is about how long the SDL printed from the result will be,
	// so that it is written into a buffer of that size, not grown to it.
	sdlSize int
}

type named struct {
	Name string `json:"name"`
}

// Descriptions and deprecation reasons are pointers: an empty one is not a
// missing one (graphql-js prints `""""""` and `@deprecated(reason: "")`).
type fullType struct {
	Kind           string       `json:"kind"`
	Name           string       `json:"name"`
	Description    *string      `json:"description"`
	SpecifiedByURL *string      `json:"specifiedByURL"`
	IsOneOf        bool         `json:"isOneOf"`
	Fields         []field      `json:"fields"`
	InputFields    []inputValue `json:"inputFields"`
	Interfaces     []typeRefT   `json:"interfaces"`
	EnumValues     []enumValue  `json:"enumValues"`
	PossibleTypes  []typeRefT   `json:"possibleTypes"`
}

type field struct {
	Name              string       `json:"name"`
	Description       *string      `json:"description"`
	Args              []inputValue `json:"args"`
	Type              typeRefT     `json:"type"`
	IsDeprecated      bool         `json:"isDeprecated"`
	DeprecationReason *string      `json:"deprecationReason"`
}

type inputValue struct {
	Name              string   `json:"name"`
	Description       *string  `json:"description"`
	Type              typeRefT `json:"type"`
	DefaultValue      *string  `json:"defaultValue"`
	IsDeprecated      bool     `json:"isDeprecated"`
	DeprecationReason *string  `json:"deprecationReason"`
	// parsedDefault is DefaultValue parsed, once validate has checked it.
	parsedDefault *ast.Value
}

type enumValue struct {
	Name              string  `json:"name"`
	Description       *string `json:"description"`
	IsDeprecated      bool    `json:"isDeprecated"`
	DeprecationReason *string `json:"deprecationReason"`
}

type directive struct {
	Name         string       `json:"name"`
	Description  *string      `json:"description"`
	IsRepeatable bool         `json:"isRepeatable"`
	Locations    []string     `json:"locations"`
	Args         []inputValue `json:"args"`
}

type typeRefT struct {
	Kind   string    `json:"kind"`
	Name   *string   `json:"name"`
	OfType *typeRefT `json:"ofType"`
}

// ParseResult decodes the "data" member of an introspection response. It
// accepts the whole response too ({"data": {"__schema": …}}), which is how
// schema dumps are often saved. One decode reads either form.
func ParseResult(data []byte) (*Result, error) {
	var doc struct {
		Result
		Data *Result `json:"data"`
	}
	if err := jsonx.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("the introspection result is not valid JSON of the expected shape: %v", err)
	}
	result := &doc.Result
	if doc.Data != nil {
		result = doc.Data
	}
	if result.Schema.QueryType == nil || len(result.Schema.Types) == 0 {
		return nil, fmt.Errorf("the introspection result has no __schema with a query type and types")
	}
	if err := result.validate(); err != nil {
		return nil, err
	}
	// GitHub's 4.97 MB answer prints as 1.11 MB of SDL.
	result.sdlSize = len(data) / 4
	return result, nil
}

// MalformedError reports an introspection answer that has the expected shape
// but breaks GraphQL's rules, so no schema can be built from it.
type MalformedError struct{ Reason string }

func (e *MalformedError) Error() string {
	return "the introspection answer is malformed: " + e.Reason
}
