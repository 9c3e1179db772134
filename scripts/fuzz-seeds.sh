#!/usr/bin/env bash
# (Re)writes the generated seeds Corpus/TARGET/seed-* from FuzzSeeds
# (Fuzz/AutomergeFuzzing/FuzzSeeds.swift). Minimized crashes are kept.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
AUTOMERGE_FUZZ_WRITE_SEEDS="$root/Corpus" swift test --filter "writeSeeds"
