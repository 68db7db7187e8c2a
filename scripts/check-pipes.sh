#!/usr/bin/env bash
# Refuses a pipeline whose last command stops reading before its input ends, in every script that
# runs with `set -o pipefail`.
#
# Why: under pipefail a pipeline fails when any of its commands does. `ldconfig -p | awk '... {
# print; exit }'` lets awk leave after the first match; ldconfig, still writing, is killed by
# SIGPIPE, and the pipeline's status is 141. Whether ldconfig had finished writing by then is a
# race: a CI run failed on it once in many (lane a, exit 141) while every other run passed. The
# same race hides in `| head`, `| grep -q`, `| grep -m N` and `sed Nq`; in an `if` it turns a
# match into "no match" instead of failing. The readers that consume their whole input do the
# same job: `sed -n 1p` for `head -n 1`, `grep PATTERN >/dev/null` for `grep -q PATTERN`, an
# awk that remembers its first match and prints it at END.
#
# The scripts sourced from scripts/lib run in those shells and are checked too; lines inside
# `sh -c "..."` run in a shell of their own, without pipefail, and are not.
#
# Usage: scripts/check-pipes.sh [FILE...]   (default: every script of the project)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -eq 0 ]; then
    mapfile -t files < <({ grep -rlE 'set -[a-z]*o pipefail' scripts .ci Examples/*/scripts 2>/dev/null; ls scripts/lib/*.sh; } | sort -u)
else
    files=("$@")
fi

# A pipe into: head; grep with -q or -m; awk whose program exits; sed's q command.
early='\|[[:space:]]*(head\b|grep[[:space:]]+(-[[:alpha:]]*[qm]|--quiet|--max-count)|awk\b[^|]*\bexit\b|sed[[:space:]]+(-n[[:space:]]+)?'"'"'?([0-9]+|/[^/]*/)q\b)'
found=0
for file in "${files[@]}"; do
    while IFS= read -r hit; do
        found=$((found + 1))
        echo "$file:$hit" >&2
    done < <(grep -nE "$early" "$file" | grep -vE '^[0-9]+:[[:space:]]*#' | grep -vE 'sh -c' || true)
done
if [ "$found" -gt 0 ]; then
    echo "check-pipes: $found pipeline(s) above end in a reader that stops early; under pipefail the" >&2
    echo "writer's SIGPIPE fails them at random. Read to the end instead: sed -n 1p (not head -n 1)," >&2
    echo "grep PATTERN >/dev/null (not grep -q), an awk that prints its first match at END." >&2
    exit 1
fi
echo "check-pipes: ${#files[@]} scripts with pipefail, no pipeline ends in a reader that stops early"
