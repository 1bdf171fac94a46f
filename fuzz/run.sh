#!/usr/bin/env bash
# Runs the fuzz targets of the asan build, seeded from fixtures/.
#   fuzz/run.sh smoke        ~20 s per target (CI)
#   fuzz/run.sh runs N       N iterations per target (e.g. 1000000)
# New crashes land in fuzz/artifacts/; add each as a regression under fuzz/regressions/.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-smoke}
build=build/asan/fuzz
corpus=$(mktemp -d)
merge_corpus=$(mktemp -d)
trap 'rm -rf "$corpus" "$merge_corpus"' EXIT
# Seeds: every fixture trace (plain JSON), small enough for the fuzzer.
find fixtures -name '*.json' -size -64k -exec cp {} "$corpus/" \; 2>/dev/null || true
cp fuzz/regressions/* "$corpus/" 2>/dev/null || true
# fuzz_merge cuts each input into two ranks at its first 0xFF byte: its seeds
# are golden merges joined so, beside the single traces.
cp "$corpus"/* fuzz/merge_seeds/* "$merge_corpus/"
mkdir -p fuzz/artifacts
for target in fuzz_tokenizer fuzz_compact fuzz_stretches fuzz_merge; do
  target_corpus=$corpus
  [ "$target" = fuzz_merge ] && target_corpus=$merge_corpus
  args=(-max_len=16384 -rss_limit_mb=2048 -artifact_prefix=fuzz/artifacts/ -print_final_stats=1)
  if [ "$mode" = smoke ]; then
    args+=(-max_total_time=15)
  else
    args+=(-runs="${2:?iterations}")
  fi
  echo "== $target ${args[*]}"
  ASAN_OPTIONS=detect_leaks=1 "$build/$target" "${args[@]}" "$target_corpus" 2>&1 | tail -n 15
done
