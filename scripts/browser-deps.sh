# Sourced by scripts/e2e: installs Debian's Chromium, pinned, for the
# browser tests (graphqlmcp's TestBrowser), and exports MCP_BROWSER, the
# binary they start. The caller has cd'ed to the repository's root and set
# -euo pipefail. It needs root (apt-get) once; an installed Chromium of the
# pinned version is used as it is.

chromium_version=156.0.8078.108-1~deb12u1

use_chromium() {
  echo "== Chromium $chromium_version (Debian package chromium)"
  if [ "$(dpkg-query -W -f '${Version}' chromium 2>/dev/null)" != "$chromium_version" ]; then
    command -v apt-get >/dev/null || { echo "$0: apt-get is needed to install Debian's chromium $chromium_version" >&2; return 1; }
    apt-get update -qq
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "chromium=$chromium_version" >/dev/null; then
      echo "$0: Debian's chromium $chromium_version could not be installed; if the archive moved on, set chromium_version in scripts/browser-deps.sh to one 'apt-cache policy chromium' lists" >&2
      return 1
    fi
  fi
  export MCP_BROWSER=/usr/bin/chromium
  "$MCP_BROWSER" --version 2>/dev/null # its wrapper script warns about memory on stderr
}
