# Sourced by scripts/test before scripts/deploy's tests: makes sure
# systemd-analyze (Debian's systemd package) is there to check the example
# unit, installing the pinned version with apt-get when it is missing, and
# exports DEPLOY_SYSTEMD_ANALYZE, with which TestSystemdUnit fails instead of
# skipping when the checker is missing. The caller has cd'ed to the
# repository's root and set -euo pipefail. It needs root only to install.

systemd_version=252.39-1~deb12u2

use_systemd_analyze() {
  echo "== systemd-analyze (Debian package systemd)"
  if ! command -v systemd-analyze >/dev/null; then
    command -v apt-get >/dev/null || { echo "$0: apt-get is needed to install Debian's systemd $systemd_version" >&2; return 1; }
    apt-get update -qq
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "systemd=$systemd_version" >/dev/null; then
      echo "$0: Debian's systemd $systemd_version could not be installed; if the archive moved on, set systemd_version in scripts/deploy/deps.sh to one 'apt-cache policy systemd' lists" >&2
      return 1
    fi
  fi
  DEPLOY_SYSTEMD_ANALYZE=$(command -v systemd-analyze)
  export DEPLOY_SYSTEMD_ANALYZE
  "$DEPLOY_SYSTEMD_ANALYZE" --version | head -n 1
}
