#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite: the release build, then the
# same tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang), then a
# short smoke run of each libFuzzer target.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
for preset in release asan; do
  echo "== $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  ctest --preset "$preset"
done
echo "== fuzz smoke"
fuzz/run.sh smoke
