// Package schema fetches a GraphQL schema by introspection, converts it to
// SDL, and renders views of it small enough for an assistant: the whole SDL,
// an overview, chosen types, or a search.
package schema

import (
	"encoding/json"
	"fmt"
	"strings"
)

// typeRef selects a type reference nine levels deep, enough for [[T!]!]!.
const typeRef = `fragment TypeRef on __Type {
  kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name
    ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }
}`

// Query is the standard introspection query: descriptions, arguments, input
// fields, enum values, directives, specifiedByURL and repeatable directives,
// with deprecated members when $includeDeprecated is true.
const Query = `query IntrospectionQuery($includeDeprecated: Boolean!) {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives {
      name description isRepeatable locations
      args(includeDeprecated: $includeDeprecated) { ...InputValue }
    }
  }
}
fragment FullType on __Type {
  kind name description specifiedByURL
  fields(includeDeprecated: $includeDeprecated) {
    name description
    args(includeDeprecated: $includeDeprecated) { ...InputValue }
    type { ...TypeRef }
    isDeprecated deprecationReason
  }
  inputFields(includeDeprecated: $includeDeprecated) { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: $includeDeprecated) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue {
  name description type { ...TypeRef } defaultValue isDeprecated deprecationReason
}
` + typeRef

// LegacyQuery is the introspection query of servers that predate
// specifiedByURL, repeatable directives and deprecated arguments; it is sent
// when an endpoint rejects Query.
const LegacyQuery = `query IntrospectionQuery($includeDeprecated: Boolean!) {
  __schema {
    queryType { name } mutationType { name } subscriptionType { name }
    types { ...FullType }
    directives { name description locations args { ...InputValue } }
  }
}
fragment FullType on __Type {
  kind name description
  fields(includeDeprecated: $includeDeprecated) {
    name description args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason
  }
  inputFields { ...InputValue }
  interfaces { ...TypeRef }
  enumValues(includeDeprecated: $includeDeprecated) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef }
}
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
` + typeRef

// Result is the "data" member of an introspection response.
type Result struct {
	Schema struct {
		QueryType        *named      `json:"queryType"`
		MutationType     *named      `json:"mutationType"`
		SubscriptionType *named      `json:"subscriptionType"`
		Types            []fullType  `json:"types"`
		Directives       []directive `json:"directives"`
	} `json:"__schema"`
}

type named struct {
	Name string `json:"name"`
}

type fullType struct {
	Kind           string       `json:"kind"`
	Name           string       `json:"name"`
	Description    *string      `json:"description"`
	SpecifiedByURL *string      `json:"specifiedByURL"`
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
	if err := json.Unmarshal(data, &doc); err != nil {
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
		return nil, &MalformedError{Reason: err.Error()}
	}
	return result, nil
}

// MalformedError reports an introspection answer that has the expected shape
// but breaks GraphQL's rules, so no schema can be built from it.
type MalformedError struct{ Reason string }

func (e *MalformedError) Error() string {
	return "the introspection answer is malformed: " + e.Reason
}

func text(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}
