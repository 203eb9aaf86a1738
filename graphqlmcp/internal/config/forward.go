package config

import "github.com/urfave/cli/v3"

// forwardFlags are the flags of the headers forwarded from an HTTP client (--forward-header).
func forwardFlags() []cli.Flag { return nil }

// readForward checks the flags of the headers forwarded from an HTTP client (--forward-header) into cfg.
func readForward(cmd *cli.Command, cfg *Config) error { return nil }
