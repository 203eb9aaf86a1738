package config

import (
	"strings"

	"github.com/urfave/cli/v3"
)

// operationsFlags are the flags of the saved operations (--operations).
func operationsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{
			Name:    "operations",
			Usage:   "saved operations to serve as tools: .graphql files, folders of them, or persisted-query manifests (.json); repeat or separate with commas",
			Sources: cli.EnvVars("GRAPHQL_OPERATIONS"),
		},
	}
}

// readOperations checks the flags of the saved operations (--operations)
// into cfg. The files are read by the tools package, which reports each
// problem at its place in its file.
func readOperations(cmd *cli.Command, cfg *Config) error {
	for _, raw := range cmd.StringSlice("operations") {
		for _, path := range strings.Split(raw, ",") {
			if path = strings.TrimSpace(path); path != "" {
				cfg.Operations = append(cfg.Operations, path)
			}
		}
	}
	return nil
}
