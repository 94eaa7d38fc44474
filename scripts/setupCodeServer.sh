#!/usr/bin/env bash
# Installs code-server 4.100.3 (VS Code 1.100) into a cache folder, offline-safe: Debian's ripgrep seeds the download cache, then code-server's own postinstall runs.
# Usage: scripts/setupCodeServer.sh [CACHE_DIR]   (default: $CAPSULE_CACHE or ~/.cache/capsule)
# Prints the path of the code-server binary on the last line.
set -euo pipefail
VERSION=4.100.3
CACHE="${1:-${CAPSULE_CACHE:-$HOME/.cache/capsule}}"
DIR="$CACHE/code-server-$VERSION"
BIN="$DIR/node_modules/.bin/code-server"

if [ -x "$BIN" ] && [ -f "$DIR/.installed" ]; then
  echo "$BIN"
  exit 0
fi

for tool in rg npm node; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "setupCodeServer: '$tool' is missing. Install it first (ripgrep: apt-get install -y ripgrep)." >&2
    exit 1
  fi
done
if ! dpkg -s libkrb5-dev >/dev/null 2>&1 && [ ! -f /usr/include/krb5.h ] && [ ! -f /usr/include/gssapi/gssapi.h ]; then
  echo "setupCodeServer: libkrb5-dev is missing (code-server's kerberos module builds against it): apt-get install -y libkrb5-dev" >&2
  exit 1
fi

mkdir -p "$DIR"
# code-server's ripgrep postinstall downloads from GitHub; seed the cache it looks in with the system rg.
rgcache="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
mkdir -p "$rgcache"
rgtar="$rgcache/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"
[ -f "$rgtar" ] || tar czf "$rgtar" -C "$(dirname "$(command -v rg)")" rg

echo "setupCodeServer: installing code-server $VERSION into $DIR (once) ..." >&2
npm install --prefix "$DIR" --ignore-scripts --no-audit --no-fund --loglevel=error "code-server@$VERSION" >&2
(
  cd "$DIR/node_modules/code-server"
  npm_config_user_agent="npm/$(npm -v) node/$(node -v) linux x64" \
    npm_config_yes=true npm_config_unsafe_perm=true sh ./postinstall.sh >&2
)
# argon2 (password auth, loaded at startup) has a native install script that --ignore-scripts skipped;
# node-pre-gyp cannot download its prebuilt binary here, so it falls back to building with node-gyp.
(cd "$DIR" && npm rebuild argon2 --loglevel=error >&2)
if ! "$BIN" --version >/dev/null 2>&1; then
  echo "setupCodeServer: code-server was installed but does not start: $("$BIN" --version 2>&1 | tail -n 3)" >&2
  exit 1
fi
touch "$DIR/.installed"
echo "$BIN"
