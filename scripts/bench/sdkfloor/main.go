// Command sdkfloor is the least an MCP server built on the official Go SDK
// can be: one tool, echo, that answers at once without any upstream, served
// over stdio; --version prints a line and exits. scripts/bench measures it
// beside graphqlmcp and hookmcp, so that their figures can be read against
// what the SDK and the Go runtime cost alone.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoArgs struct {
	Query string `json:"query"`
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "--version" {
		fmt.Println("sdkfloor v1")
		return
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "sdkfloor", Version: "v1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo", Description: "answers with its query"},
		func(_ context.Context, _ *mcp.CallToolRequest, args echoArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: args.Query}}}, nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "sdkfloor:", err)
		os.Exit(1)
	}
}
