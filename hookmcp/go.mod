module github.com/mcpforge/servers/hookmcp

go 1.25.0

require github.com/google/go-cmp v0.7.0
