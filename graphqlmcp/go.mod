module github.com/mcpforge/servers/graphqlmcp

go 1.25.0
