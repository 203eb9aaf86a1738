// Command graphqlmcp is an MCP server that lets an AI assistant run GraphQL
// operations against a GraphQL endpoint and read its schema.
//
// See docs/graphqlmcp.md in the repository for flags, tools and registration.
package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/graphqlmcp/internal/config"
	"github.com/mcpforge/servers/graphqlmcp/internal/tools"
	"github.com/mcpforge/servers/graphqlmcp/internal/upstream"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/httpx"
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
			client := upstream.NewHTTPClient(env.UserAgent)
			env.Ready.Set(readiness(cfg, client, env.Logger))
			return tools.New(ctx, tools.Options{
				Config:  cfg,
				HTTP:    client,
				Logger:  env.Logger,
				Version: env.Version,
				Tools:   env.Tools,
			})
		},
		// graphql_query refuses a mutation itself to an OAuth token
		// without the write scope; its queries need only the read scope.
		ScopeCheckedTools: []string{"graphql_query"},
		ToolGroupsHelp:    "or the group operations, every saved operation",
		Hint: "graphqlmcp is an MCP server waiting for a client on stdin/stdout; register it in your assistant " +
			"(e.g. claude mcp add graphql -- graphqlmcp -e https://api.example.com/graphql), see --help; Ctrl-C quits.",
	}
}

// readinessQuery is the least operation every GraphQL schema answers.
const readinessQuery = `{"query":"{ __typename }"}`

// readiness is /readyz's check: the default endpoint answers a POST of
// { __typename } through the tools' own client (its guards, its proxy), with
// no startup header, so that the probe sends no credential: any answer
// below 500, a 401 included, is the endpoint reachable.
func readiness(cfg config.Config, client *http.Client, logger *slog.Logger) func(context.Context) error {
	caller := &httpx.Caller{HTTP: client, Logger: logger}
	return app.UpstreamCheck(caller, func() httpx.Outbound {
		return httpx.Outbound{
			Method:   http.MethodPost,
			URL:      cfg.Endpoint,
			Header:   http.Header{"Content-Type": {"application/json"}, "Accept": {"application/graphql-response+json, application/json"}},
			Body:     []byte(readinessQuery),
			Redactor: upstream.NewRedactor(cfg.Headers),
		}
	})
}
