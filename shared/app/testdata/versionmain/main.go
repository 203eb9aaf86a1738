// Command versionmain is the least program built on app.Main, for
// TestLinkStampedVersion to build with the release build's linker flags and
// ask for --version.
package main

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/app"
)

func main() {
	app.Main(app.Spec{
		Name:      "versionmain",
		EnvPrefix: "VERSIONMAIN",
		Build: func(_ context.Context, _ *cli.Command, env app.Env) (*mcp.Server, error) {
			return mcp.NewServer(&mcp.Implementation{Name: "versionmain", Version: env.Version}, nil), nil
		},
	})
}
