#!/usr/bin/env bash
# Builds the libFuzzer executables (Fuzz/Package.swift) with
# -sanitize=fuzzer,address, in release mode. Prints only errors.
#   scripts/fuzz-build.sh [TARGET]   (default: all four)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
product=()
[ -n "${1:-}" ] && product=(--product "fuzz-$1")
cd "$root/Fuzz"
log="$(mktemp)"
if ! swift build -c release -Xswiftc -sanitize=fuzzer,address "${product[@]}" >"$log" 2>&1; then
  # gold warns about every ASan helper symbol; drop that noise.
  grep -v "Cannot export local symbol" "$log" | tail -40 >&2
  rm -f "$log"
  exit 1
fi
rm -f "$log"
