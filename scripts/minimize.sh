#!/usr/bin/env bash
# Shrinks a crashing input and files it into the corpus.
#
#   scripts/minimize.sh TARGET CRASH_FILE NAME [SECONDS]
#
# NAME describes the bug (e.g. deep-nesting-overflows-stack); the minimized
# input becomes Corpus/TARGET/NAME, which `swift test` replays from then on.
# Add a unit test named after it in Tests/AutomergeTests/Fuzz/ (for repo-message,
# in Tests/AutomergeRepoTests/RepoFuzzRegressionTests.swift).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ $# -lt 3 ]; then
  echo "usage: scripts/minimize.sh load|changes|decode|ops|sync|repo-message CRASH_FILE NAME [SECONDS]" >&2
  exit 2
fi
target="$1" crash="$2" name="$3" seconds="${4:-120}"
case "$target" in load | changes | decode | ops | sync | repo-message) ;; *) echo "unknown target $target" >&2; exit 2 ;; esac
case "$name" in */* | .* | "") echo "NAME must be a plain file name" >&2; exit 2 ;; esac
[ -f "$crash" ] || { echo "no such file: $crash" >&2; exit 2; }

"$root/scripts/fuzz-build.sh" "$target"
binary="$root/Fuzz/.build/release/fuzz-$target"
work="$(mktemp -d)"
export SWIFT_BACKTRACE=enable=no
(cd "$work" && "$binary" -minimize_crash=1 -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 \
  -exact_artifact_path="$work/minimized" "$crash" >"$work/log" 2>&1) || true
result="$crash"
[ -s "$work/minimized" ] && result="$work/minimized"

# The result must still fail, or there is nothing to file.
if (cd "$work" && "$binary" -timeout=5 -rss_limit_mb=2048 "$result" >"$work/check.log" 2>&1); then
  echo "$crash does not crash fuzz-$target; nothing filed" >&2
  rm -rf "$work"
  exit 1
fi
mkdir -p "$root/Corpus/$target"
cp "$result" "$root/Corpus/$target/$name"
echo "filed Corpus/$target/$name ($(wc -c <"$result") bytes, from $(wc -c <"$crash")); failure:"
grep -m3 -E "Fatal error|ERROR: |SUMMARY" "$work/check.log" || true
rm -rf "$work"
