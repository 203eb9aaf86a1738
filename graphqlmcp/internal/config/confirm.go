package config

import "github.com/urfave/cli/v3"

// confirmFlags are the flags of whether the user confirms mutations (--confirm-mutations).
func confirmFlags() []cli.Flag { return nil }

// readConfirm checks the flags of whether the user confirms mutations (--confirm-mutations) into cfg.
func readConfirm(cmd *cli.Command, cfg *Config) error { return nil }
