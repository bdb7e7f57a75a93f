#!/usr/bin/env bash
# Prints its arguments without surrounding whitespace.
trim() {
  local value="$*"
  echo "${value## }"
}
