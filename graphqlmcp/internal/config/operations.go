package config

import "github.com/urfave/cli/v3"

// operationsFlags are the flags of the saved operations (--operations).
func operationsFlags() []cli.Flag { return nil }

// readOperations checks the flags of the saved operations (--operations) into cfg.
func readOperations(cmd *cli.Command, cfg *Config) error { return nil }
