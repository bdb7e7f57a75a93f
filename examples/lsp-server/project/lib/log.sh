# Logging helpers, sourced by the scripts of this project.

# Prints a timestamped message to stderr.
# Usage: log_info <message>...
log_info() {
  printf '%s [info] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

# Prints the message to stderr and exits with status 1.
# Usage: die <message>...
die() {
  printf '%s [fatal] %s\n' "$(date +%H:%M:%S)" "$*" >&2
  exit 1
}
