module github.com/mcpforge/servers/graphqlmcp

go 1.25.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/graph-gophers/graphql-go v1.11.0
	github.com/mcpforge/servers/shared v0.1.0
	github.com/urfave/cli/v3 v3.14.0
	github.com/vektah/gqlparser/v2 v2.5.64
)
