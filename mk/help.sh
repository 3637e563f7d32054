#!/usr/bin/env bash
# `make help`: the targets in three groups (use, lab, develop), then the
# variables a user sets, every line at most HELP_WIDTH (100) columns, and
# colour only on a terminal (a pipe or a file gets plain text).
#   mk/help.sh "USE TARGETS" "LAB TARGETS" MAKEFILE...
# A target is a line `name: ... ## text`; one in neither list is a develop
# target, so a new target is listed somewhere the day it lands. A variable is
# a `VAR ?= value` line right below a `#> text` line; HELP_VALUES holds
# "NAME<TAB>value" lines with make's values (expanded, with overrides).
set -euo pipefail
use=" $1 "; lab=" $2 "; shift 2
width=${HELP_WIDTH:-100}
on=""; off=""
if [ -t 1 ]; then on=$(printf '\033[36m'); off=$(printf '\033[0m'); fi

targets=$(grep -hE '^[a-zA-Z0-9_.-]+:.*## ' "$@" | sed -E 's/^([a-zA-Z0-9_.-]+):.*## /\1\t/' | sort -u -t$'\t' -k1,1)
variables=$(awk '/^#> / {text = substr($0, 4); next}
                 text != "" && match($0, /^[A-Z0-9_]+ *\?=/) {split($0, f, /[ ?]/); print f[1] "\t" text}
                 {text = ""}' "$@")

# Prints NAME and TEXT as "  NAME  TEXT", TEXT wrapped at $width under its first word.
item() {
  awk -v name="$1" -v text="$2" -v w="$width" -v col="$3" -v on="$on" -v off="$off" 'BEGIN {
    n = split(text, word, " "); line = sprintf("  %-" col - 3 "s ", name); len = length(line); pad = sprintf("%" col "s", "")
    if (len > col) { print on "  " name off; line = pad; len = col } else line = on line off
    for (i = 1; i <= n; i++) {
      if (len > col && len + 1 + length(word[i]) > w) { print line; line = pad; len = col }
      sep = (len > col) ? " " : ""; line = line sep word[i]; len += length(sep) + length(word[i])
    }
    print line }'
}

group() {  # group TITLE LIST: the targets of LIST in its order; LIST "develop": every target in no other list
  echo; echo "$1"
  if [ "$2" = develop ]; then
    while IFS=$'\t' read -r name text; do
      [[ $use == *" $name "* || $lab == *" $name "* ]] || item "$name" "$text" 22
    done <<< "$targets"
    return
  fi
  for name in $2; do
    text=$(awk -F'\t' -v n="$name" '$1 == n {print $2}' <<< "$targets")
    [ -n "$text" ] || { echo "make help: $name is in a help group but has no '## text' target line" >&2; exit 2; }
    item "$name" "$text" 22
  done
}

echo "Usage: make TARGET [VARIABLE=value ...]   (sudo for the lab: it installs packages and starts guests)"
group "Use: the lab on this machine, and its results" "$use"
group "Lab: a rack, the KVM path, the noise, and the build's steps one by one" "$lab"
group "Develop: tests, linters and vmparity's own benchmarks" develop
echo; echo "Variables (make TARGET NAME=value), with their values now:"
while IFS=$'\t' read -r name text; do
  [ -n "$name" ] || continue
  value=$(awk -F'\t' -v n="$name" '$1 == n {print substr($0, length(n) + 2); exit}' <<< "${HELP_VALUES:-}")
  [ ${#value} -le 40 ] || value="${value:0:39}…"
  item "$name" "$text${value:+ (now: $value)}" 22
done <<< "$variables"
