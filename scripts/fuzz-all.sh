#!/usr/bin/env bash
# Runs every fuzz target, one after another (one fuzzer process at a time).
#
#   scripts/fuzz-all.sh [--skip-if-unsupported] SECONDS
#
# With --skip-if-unsupported (CI), a toolchain that cannot build libFuzzer
# binaries at all makes this print why and exit 0; a crash still fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
skip_if_unsupported=0
if [ "${1:-}" = "--skip-if-unsupported" ]; then skip_if_unsupported=1; shift; fi
seconds="${1:-60}"

if [ "$skip_if_unsupported" = 1 ]; then
  probe="$(mktemp -d)"
  cat >"$probe/probe.swift" <<'SWIFT'
@_cdecl("LLVMFuzzerTestOneInput")
public func probe(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt { 0 }
SWIFT
  if ! (cd "$probe" && swiftc -sanitize=fuzzer,address -parse-as-library probe.swift -o probe >probe.log 2>&1); then
    echo "SKIPPED fuzzing: this Swift toolchain cannot build libFuzzer binaries (swiftc -sanitize=fuzzer,address failed):"
    grep -v "Cannot export local symbol" "$probe/probe.log" | tail -5
    rm -rf "$probe"
    echo "fuzzing: 0 passed, 0 failed, 6 skipped"
    exit 0
  fi
  rm -rf "$probe"
fi

"$root/scripts/fuzz-build.sh"
failed=()
for target in load changes decode ops sync repo-message; do
  "$root/scripts/fuzz.sh" "$target" "$seconds" || failed+=("$target")
done
targets=6
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzzing found crashes in: ${failed[*]} (see ${AUTOMERGE_FUZZ_OUT:-/tmp/automerge-fuzz}/TARGET/crashes/)" >&2
  echo "fuzzing: $((targets - ${#failed[@]})) passed, ${#failed[@]} failed"
  exit 1
fi
echo "every target ran ${seconds}s without a crash"
echo "fuzzing: $targets passed, 0 failed"
