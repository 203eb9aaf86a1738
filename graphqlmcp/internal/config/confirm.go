package config

import (
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptool"
)

// confirmFlags are the flags of whether the user confirms mutations (--confirm-mutations).
func confirmFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{
			Name: "confirm-mutations", Value: string(mcptool.ConfirmAsk),
			Usage: "whether the user confirms each mutation before it is sent, in a dialog the client shows (elicitation): " +
				"ask (where the client can ask; elsewhere mutations run as --mutations allows), require (refuse a mutation where the client cannot ask), or never",
			Sources: cli.EnvVars("GRAPHQL_CONFIRM_MUTATIONS"),
		},
	}
}

// readConfirm checks the flags of whether the user confirms mutations (--confirm-mutations) into cfg.
func readConfirm(cmd *cli.Command, cfg *Config) error {
	value := strings.TrimSpace(cmd.String("confirm-mutations"))
	mode, err := mcptool.ConfirmModes.Value("confirm-mutations", value)
	if err != nil {
		return app.FlagErrorf("confirm-mutations", "must be %s, got %s; for example --confirm-mutations require",
			strings.Join(mcptool.ConfirmModes, ", "), mcptool.Quote(value))
	}
	cfg.ConfirmMutations = mode
	return nil
}
