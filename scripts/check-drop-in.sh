#!/usr/bin/env bash
# Builds and runs Tests/DropInPackage, a package whose Package.swift names
# only the `Automerge` product as automerge-swift 0.6.1's users write it,
# against a copy of this repository named automerge-swift (the identity its
# users' `.product(name:package:)` lines give). Fails if `import
# AutomergeUtilities` needs anything more.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/automerge-swift"
# The tracked files as they are in the work tree (uncommitted edits included).
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/automerge-swift" 2>/dev/null || true)
cp -R "$repo/Tests/DropInPackage" "$work/consumer"
swift build --package-path "$work/consumer" --scratch-path "$work/build"
"$(swift build --package-path "$work/consumer" --scratch-path "$work/build" --show-bin-path)/NotesCLI"
