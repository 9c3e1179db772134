#!/usr/bin/env bash
# (Re)writes the generated seeds Corpus/TARGET/seed-* from FuzzSeeds
# (Fuzz/AutomergeFuzzing/FuzzSeeds.swift). Minimized crashes are kept.
#   scripts/fuzz-seeds.sh [TARGET...]   (default: every target)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
AUTOMERGE_FUZZ_WRITE_SEEDS="$root/Corpus" AUTOMERGE_FUZZ_SEED_TARGETS="$*" swift test --filter "writeSeeds"
