#!/usr/bin/env bash
# Deploys a named environment (a toy: it only logs what it would do).
set -euo pipefail

# shellcheck source=lib/log.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/log.sh"
# shellcheck source=lib/text.bash
source "$(dirname "${BASH_SOURCE[0]}")/lib/text.bash"

target="$(trim "${1:-}")"
[[ -n "$target" ]] || die "usage: deploy.sh <environment>"

log_info "deploying to $target"
log_info "done"
