# Text helpers (bash only: they use parameter expansion patterns).

# Removes leading and trailing whitespace from its argument.
# Usage: trim <text>
trim() {
  local text="$1"
  text="${text#"${text%%[![:space:]]*}"}"
  text="${text%"${text##*[![:space:]]}"}"
  printf '%s' "$text"
}
