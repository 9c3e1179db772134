#!/usr/bin/env bash
# Builds one libFuzzer target and runs it.
#
#   scripts/fuzz.sh TARGET [SECONDS] [extra libFuzzer flags...]
#
# TARGET is load, changes, decode, ops, sync or repo-message; SECONDS defaults to 60.
# Corpus: new inputs go to $AUTOMERGE_FUZZ_OUT/TARGET/corpus (default
# /tmp/automerge-fuzz), seeded read-only from Corpus/TARGET and, for the
# byte-format targets, ../shared/{fixtures,docs,oracle-gen} when present.
# Crashes are written to $AUTOMERGE_FUZZ_OUT/TARGET/crashes/, never into the repo.
# Exit status: 0 when the run finished without a crash, libFuzzer's otherwise.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${1:-}"
seconds="${2:-60}"
shift $(( $# < 2 ? $# : 2 ))

case "$target" in
  load | decode) max_len=65536 ;;
  changes | sync | repo-message) max_len=16384 ;;
  ops) max_len=4096 ;;
  *) echo "usage: scripts/fuzz.sh load|changes|decode|ops|sync|repo-message [SECONDS] [libFuzzer flags...]" >&2; exit 2 ;;
esac

out="${AUTOMERGE_FUZZ_OUT:-/tmp/automerge-fuzz}/$target"
mkdir -p "$out/corpus" "$out/crashes"

"$root/scripts/fuzz-build.sh" "$target"
binary="$root/Fuzz/.build/release/fuzz-$target"

seeds=("$root/Corpus/$target")
if [ "$target" != ops ] && [ "$target" != sync ] && [ "$target" != repo-message ]; then  # edit scripts and messages, not Automerge files
  for dir in fixtures docs oracle-gen; do
    [ -d "$root/../shared/$dir" ] && seeds+=("$root/../shared/$dir")
  done
fi

log="$out/fuzz-$(date +%Y%m%d-%H%M%S).log"
echo "fuzz $target for ${seconds}s; log $log; crashes in $out/crashes/"
# The Swift runtime's own crash handler would fight ASan's; libFuzzer reports crashes.
export SWIFT_BACKTRACE=enable=no
status=0
"$binary" "$out/corpus" "${seeds[@]}" \
  -dict="$root/Fuzz/dictionaries/$target.dict" \
  -max_len="$max_len" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=5 \
  -max_total_time="$seconds" -print_final_stats=1 \
  -artifact_prefix="$out/crashes/" "$@" >"$log" 2>&1 || status=$?

grep -E "^stat::|^Done|^#[0-9]+ +DONE" "$log" || true
if [ "$status" -ne 0 ]; then
  echo "fuzz $target FAILED (exit $status); end of the log:" >&2
  grep -v "NEW_FUNC" "$log" | tail -60 >&2
  ls -1 "$out/crashes/" >&2 || true
fi
exit "$status"
