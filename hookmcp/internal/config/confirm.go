package config

import (
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/mcpforge/servers/shared/app"
	"github.com/mcpforge/servers/shared/mcptool"
)

// ConfirmDeletesVariable mirrors --confirm-deletes.
const ConfirmDeletesVariable = "HOOKSVC_CONFIRM_DELETES"

// confirmFlag is whether the user confirms what deletes more than a
// preview shows (--confirm-deletes).
func confirmFlag() cli.Flag {
	return &cli.StringFlag{
		Name: "confirm-deletes", Value: string(mcptool.ConfirmAsk),
		Usage: "whether the user confirms delete_token, delete_requests with all: true, and a filtered delete_requests matching over 100 requests, in a dialog the client shows (elicitation): " +
			"ask (where the client can ask; elsewhere they run unasked), require (refuse them where the client cannot ask), or never",
		Sources: cli.EnvVars(ConfirmDeletesVariable),
	}
}

// readConfirm checks --confirm-deletes.
func readConfirm(cmd *cli.Command) (mcptool.ConfirmMode, error) {
	value := strings.TrimSpace(cmd.String("confirm-deletes"))
	mode, err := mcptool.ConfirmModes.Value("confirm-deletes", value)
	if err != nil {
		return "", app.FlagErrorf("confirm-deletes", "must be %s, got %s; for example --confirm-deletes require",
			strings.Join(mcptool.ConfirmModes, ", "), mcptool.Quote(value))
	}
	return mcptool.ConfirmMode(mode), nil
}
