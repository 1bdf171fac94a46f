#!/usr/bin/env bash
# Sets up, builds, and compacts the bundled example trace, printing its summary.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release --target tracecompact
out="${TMPDIR:-/tmp}/tracecompact-example_compacted.json.gz"
build/release/app/tracecompact fixtures/example/rank4_trace.json -o "$out" --overwrite --verify
echo "wrote $out (open it in https://ui.perfetto.dev)" >&2
