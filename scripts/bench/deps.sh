#!/usr/bin/env bash
# Installs what scripts/bench measures besides this repository's programs,
# pinned, under .cache/ (ignored by git), and prints where each is as
# KEY=value lines on stdout (everything else goes to stderr):
#   NODE           the pinned Node (scripts/node-env.sh)
#   PEER           the npm server mcp-graphql's entry point (scripts/bench/peer/package-lock.json)
#   GITHUB_SCHEMA  GitHub's public schema as an introspection result (@octokit/graphql-schema)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/node-env.sh
{
  use_node
  install_packages scripts/bench/peer .cache/bench-peer
  schema_dir=$(github_schema_dir)
} >&2
echo "NODE=$(command -v node)"
echo "PEER=$PWD/.cache/bench-peer/node_modules/mcp-graphql/dist/index.js"
echo "GITHUB_SCHEMA=$schema_dir/schema.json"
