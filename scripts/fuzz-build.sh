#!/usr/bin/env bash
# Builds the libFuzzer executables (Fuzz/Package.swift) with
# -sanitize=fuzzer,address, in release mode. Prints only errors.
#   scripts/fuzz-build.sh [TARGET]   (default: all six)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
product=()
[ -n "${1:-}" ] && product=(--product "fuzz-$1")
cd "$root/Fuzz"
log="$(mktemp)"
# Linked with the toolchain's lld: gold (the default) stopped with an
# internal error (dwarf_reader.cc:2713, format_file_lineno) linking
# automerge-memory-probe with the sanitizers after the changes of
# 2026-11-24 (fourth session; first seen building b447ec2).
if ! swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld "${product[@]}" >"$log" 2>&1; then
  # gold warned about every ASan helper symbol; drop that noise if it shows.
  grep -v "Cannot export local symbol" "$log" | tail -40 >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
