// Command hookmcp is an MCP server that lets an AI assistant drive a hosted
// webhook-capture API (webhook.site, or a self-hosted install): create, read,
// update and delete capture tokens; list, fetch, wait for and delete the
// requests they captured; and send a test request to a capture URL.
//
// See docs/hookmcp.md in the repository for configuration, tools and
// registration.
package main

import (
	"context"
	"log/slog"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/hookmcp/internal/config"
	"github.com/mcpforge/servers/hookmcp/internal/tools"
	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/httpx"
	"github.com/mcpforge/servers/shared/redact"
)

func main() {
	app.Main(spec(os.Getenv))
}

func spec(getenv func(string) string) app.Spec {
	return app.Spec{
		Name:  "hookmcp",
		Usage: "MCP server for a webhook-capture API: capture tokens and the requests they captured",
		Description: "Serves fourteen tools (create_token, get_token, update_token, delete_token, list_requests,\n" +
			"get_latest_request, get_request, wait_for_request, send_test_request, set_response,\n" +
			"verify_signature, replay_request, delete_request, delete_requests)\n" +
			"and the resource hooksvc://token/{token_id}/requests to an\n" +
			"MCP client over stdio, or over Streamable HTTP with --transport http.\n\n" +
			"The API key is read from HOOKSVC_API_KEY only (never a flag: flags show in process listings).\n" +
			"Try it offline against a local fake: go run ./hookmcp/cmd/fakehooksvc in a clone of the repository.",
		EnvPrefix: "HOOKSVC",
		Flags:     config.Flags(),
		Build: func(ctx context.Context, cmd *cli.Command, env app.Env) (*mcp.Server, error) {
			cfg, err := config.FromCommand(cmd, getenv)
			if err != nil {
				return nil, err
			}
			client := tools.NewHTTPClient(env.UserAgent)
			env.Ready.Set(readiness(cfg, client, env.Logger))
			return tools.New(ctx, tools.Options{
				Config:  cfg,
				HTTP:    client,
				Logger:  env.Logger,
				Version: env.Version,
				Tools:   env.Tools,
			})
		},
		Hint: "hookmcp is an MCP server waiting for a client on stdin/stdout; register it in your assistant " +
			"(e.g. claude mcp add hooks -- hookmcp), see --help; Ctrl-C quits.",
	}
}

// readiness is /readyz's check: the capture API's base URL answers a GET
// through the tools' own client, without the API key, so that the probe
// sends no credential: any answer below 500 is the API reachable.
func readiness(cfg config.Config, client *http.Client, logger *slog.Logger) func(context.Context) error {
	caller := &httpx.Caller{HTTP: client, Logger: logger}
	return app.UpstreamCheck(caller, func() httpx.Outbound {
		return httpx.Outbound{Method: http.MethodGet, URL: cfg.APIURL, Redactor: redact.New(cfg.Secrets()...)}
	})
}
