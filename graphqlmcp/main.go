// Command graphqlmcp is an MCP server that lets an AI assistant run GraphQL
// operations against a GraphQL endpoint and read its schema.
//
// See docs/graphqlmcp.md in the repository for flags, tools and registration.
package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/tools"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/app"
)

func main() {
	app.Main(spec())
}

func spec() app.Spec {
	return app.Spec{
		Name:  "graphqlmcp",
		Usage: "MCP server that runs GraphQL operations and reads GraphQL schemas",
		Description: "Serves the tools graphql_query and graphql_introspect to an MCP client\n" +
			"(an AI assistant) over stdio, or over Streamable HTTP with --transport http.",
		EnvPrefix: "GRAPHQL",
		Flags:     config.Flags(),
		Build: func(ctx context.Context, cmd *cli.Command, env app.Env) (*mcp.Server, error) {
			cfg, err := config.FromCommand(cmd)
			if err != nil {
				return nil, err
			}
			if level, line := config.ForwardLog(cfg, env.Transport == "http"); line != "" {
				env.Logger.Log(ctx, level, line)
			}
			return tools.New(ctx, tools.Options{
				Config:  cfg,
				HTTP:    upstream.NewHTTPClient(env.UserAgent),
				Logger:  env.Logger,
				Version: env.Version,
				Tools:   env.Tools,
			})
		},
		Hint: "graphqlmcp is an MCP server waiting for a client on stdin/stdout; register it in your assistant " +
			"(e.g. claude mcp add graphql -- graphqlmcp -e https://api.example.com/graphql), see --help; Ctrl-C quits.",
	}
}
