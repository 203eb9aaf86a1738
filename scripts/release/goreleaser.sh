# Sourced by scripts/release/check and .github/workflows/release.yml:
# use_goreleaser installs GoReleaser $goreleaser_version once, built from its
# Go module (the Go module proxy is the one place this project fetches Go
# code from; GoReleaser's npm package ships no v2.15), into .cache/ (ignored
# by git), and sets $GORELEASER to it. A cold build takes a few minutes; later
# runs reuse the binary, or the Go build cache in a fresh clone.
# The caller has cd'ed to the repository's root and set -euo pipefail.

goreleaser_version=v2.15.1

use_goreleaser() {
  local dir=$PWD/.cache/goreleaser-$goreleaser_version
  GORELEASER=$dir/goreleaser
  # GORELEASER_PREBUILT names a GoReleaser binary already built (by an outer
  # run, when scripts/first-run runs scripts/test in a fresh clone with empty
  # Go caches, where building it costs minutes): it is used if it is the
  # pinned version, which the check below proves again.
  if [ ! -x "$GORELEASER" ] && [ -n "${GORELEASER_PREBUILT:-}" ] &&
    "$GORELEASER_PREBUILT" --version 2>/dev/null | grep -q "^GitVersion: *$goreleaser_version$"; then
    mkdir -p "$dir" && cp "$GORELEASER_PREBUILT" "$GORELEASER"
  fi
  if [ ! -x "$GORELEASER" ]; then
    echo "== GoReleaser $goreleaser_version (go install from the Go module proxy)"
    GOBIN=$dir GOWORK=off go install "github.com/goreleaser/goreleaser/v2@$goreleaser_version"
  fi
  local about
  about=$("$GORELEASER" --version 2>/dev/null) || true
  grep -q "^GitVersion: *$goreleaser_version$" <<<"$about" ||
    { echo "$0: $GORELEASER is not GoReleaser $goreleaser_version: $about" >&2; return 1; }
}
