#!/usr/bin/env bash
# Builds OptionalTuplePayload.swift with each optimization setting and runs it
# (see README.md). Exits 1 if any optimized build miscompiles it.
set -uo pipefail
cd "$(dirname "$0")"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
swiftc --version 2>&1 | head -1
status=0
for flags in "-Onone" "-O" "-Osize" "-O -Xfrontend -disable-large-loadable-types-reg2mem"; do
  # shellcheck disable=SC2086  # the flags are meant to split
  if ! swiftc $flags OptionalTuplePayload.swift -o "$out/repro" 2>"$out/log"; then
    echo "$flags: did not compile"; cat "$out/log"; status=1; continue
  fi
  # Run with one argument, so the element at index 1 is asked for.
  result="$("$out/repro" 2>&1)" || status=1
  echo "$flags: $result"
done
exit "$status"
