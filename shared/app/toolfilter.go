package app

import (
	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/mcptool"
)

// toolFilterFlags are the flags that choose the tools a server exposes.
func toolFilterFlags(envPrefix string) []cli.Flag {
	return nil
}

// toolFilterFrom reads the tool filter from the command line.
func toolFilterFrom(cmd *cli.Command) (mcptool.Filter, error) {
	return mcptool.Filter{}, nil
}
