#!/usr/bin/env bash
# Usage: .ci/clients/run.sh
#
# The MCP clients people point at `dsh serve --http` (issue 29), driven against the served coding
# preset: the MCP Inspector's CLI lists the tools and calls `lsp` hover, `web_fetch` of a loopback
# page and `skill`; Claude Code adds the server as an HTTP entry and `claude mcp list` reports it
# connected. Both are npm packages at pinned versions, installed into a cache here (never at test
# time); check.mjs does the rest and exits non-zero on the first thing that does not work.
#
# Cache: ${XDG_CACHE_HOME:-$HOME/.cache}/dsh-ci/clients/<package>@<version>.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/dsh-ci/clients"

INSPECTOR=@modelcontextprotocol/inspector@2.12.0
CLAUDE_CODE=@anthropic-ai/claude-code@2.1.332

# Installs one package into its own cache directory and prints the directory's node_modules/.bin.
install_client() {
  local dir="$cache/$1"
  if [ ! -f "$dir/.installed" ]; then
    rm -rf "$dir" && mkdir -p "$dir"
    echo '{"private":true}' > "$dir/package.json"
    (cd "$dir" && npm install --no-audit --no-fund --silent "$1" >&2)
    touch "$dir/.installed"
  fi
  echo "$dir/node_modules/.bin"
}

inspector_bin="$(install_client "$INSPECTOR")"
claude_bin="$(install_client "$CLAUDE_CODE")"
echo "== MCP clients against dsh serve --http --preset coding: $INSPECTOR (CLI), $CLAUDE_CODE (mcp list)"
node "$here/check.mjs" "$inspector_bin/mcp-inspector" "$claude_bin/claude"
