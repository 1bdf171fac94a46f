#!/usr/bin/env bash
# Benchmarks tracecompact against baselines measured on the same inputs in the same run:
#   json    tracecompact IN.json -o OUT.json             vs  parse_floor IN.json
#   gzip    tracecompact IN.json.gz -o OUT.json.gz       vs  zcat IN.json.gz | gzip -1 > OUT
#   merge   tracecompact DIR --merge-pp-ranks (4 ranks)  vs  the 4 ranks compacted one by one
#           (and, for reference, one by one with --threads 1, and the ranks compacted by
#           one-thread processes side by side, as many at a time as the merge's --threads:
#           the ranks' work on that many cores with none of a merge's)
#   shapes  worst cases at two scales, against parse_floor, so linearity can be judged
#   traces  with --traces DIR: your own traces, each against parse_floor (or zcat | gzip -1),
#           and their merge against one by one when DIR holds two or more rank traces
# Inputs are generated once into a cache folder and reused. MB means 10^6 bytes of JSON.
# Each command's median wall time, median CPU seconds (user + system of all its processes)
# and peak RSS are reported.
set -euo pipefail
shopt -s inherit_errexit  # so a failing generator inside $(gen_single ...) stops the script

usage() {
  cat <<'EOF'
usage: run_bench.sh --tool PATH --gen PATH --floor PATH [options]
  --cache DIR        generated inputs, reused between runs (default: bench/cache)
  --runs N           runs per measurement; the median is reported (default: 3)
  --large            also run 5000 MB inputs
  --sizes LIST       comma-separated sizes in MB (default: 100,1000; "" = none)
  --shape-scale F    multiply the shapes' repetition counts by F (default: 1)
  --no-shapes        skip the named worst-case shapes
  --traces DIR       also measure the traces in DIR (e.g. real profiler traces): each *.json
                     against the parse floor, each *.json.gz against zcat | gzip -1, and
                     the merge of its rank<N>_trace.json files (two or more) against one by one
  --seed S           generator seed (default: 1)
  --threads N        --threads for the merge run, and the side-by-side reference's processes
                     at a time (default: 2)
  --timeout SECONDS  per command (default: 3600)
  --settle SECONDS   pause after removing earlier outputs, before each run (default: 3)
  --out FILE         results as JSON (default: bench/results.json)
EOF
}

die() {
  echo "run_bench.sh: $*" >&2
  exit 1
}

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
TOOL=""
GEN=""
FLOOR=""
CACHE="$SCRIPT_DIR/cache"
RUNS=3
LARGE=0
SIZES="100,1000"
SHAPE_SCALE=1
SHAPES=1
SEED=1
THREADS=2
TIMEOUT=3600
SETTLE=3
OUT="$SCRIPT_DIR/results.json"
TRACES=""

while (($# > 0)); do
  case "$1" in
    --tool) TOOL=${2:?--tool needs a value}; shift 2 ;;
    --gen) GEN=${2:?--gen needs a value}; shift 2 ;;
    --floor) FLOOR=${2:?--floor needs a value}; shift 2 ;;
    --cache) CACHE=${2:?--cache needs a value}; shift 2 ;;
    --runs) RUNS=${2:?--runs needs a value}; shift 2 ;;
    --large) LARGE=1; shift ;;
    --sizes) SIZES=${2?--sizes needs a value}; shift 2 ;;  # "" = shapes only
    --shape-scale) SHAPE_SCALE=${2:?--shape-scale needs a value}; shift 2 ;;
    --no-shapes) SHAPES=0; shift ;;
    --traces) TRACES=${2:?--traces needs a value}; shift 2 ;;
    --seed) SEED=${2:?--seed needs a value}; shift 2 ;;
    --threads) THREADS=${2:?--threads needs a value}; shift 2 ;;
    --timeout) TIMEOUT=${2:?--timeout needs a value}; shift 2 ;;
    --settle) SETTLE=${2:?--settle needs a value}; shift 2 ;;
    --out) OUT=${2:?--out needs a value}; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

[[ -n $TOOL && -n $GEN && -n $FLOOR ]] || { usage >&2; die "--tool, --gen and --floor are required"; }
for exe in "$TOOL" "$GEN" "$FLOOR"; do
  [[ -x $exe ]] || die "not an executable: $exe"
done
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "--runs must be a positive integer"
[[ $SETTLE =~ ^[0-9]+([.][0-9]+)?$ ]] || die "--settle must be a number of seconds"
[[ $THREADS =~ ^[0-9]+$ ]] || die "--threads must be a non-negative integer"
# The merge's ranks indexed at once: --threads, or with 0 the tool's default (one
# per core); the side-by-side reference runs that many processes at a time.
SIDE_BY_SIDE=$THREADS
((SIDE_BY_SIDE > 0)) || SIDE_BY_SIDE=$(nproc)
[[ -z $TRACES || -d $TRACES ]] || die "--traces: not a folder: $TRACES"
if ! command -v zcat >/dev/null || ! command -v gzip >/dev/null; then
  die "zcat and gzip are required"
fi

# Absolute paths: commands run from other folders.
abspath() { (cd -- "$(dirname -- "$1")" && printf '%s/%s\n' "$(pwd)" "$(basename -- "$1")"); }
TOOL=$(abspath "$TOOL")
GEN=$(abspath "$GEN")
FLOOR=$(abspath "$FLOOR")
mkdir -p -- "$CACHE" "$(dirname -- "$OUT")"
CACHE=$(cd -- "$CACHE" && pwd)
[[ -z $TRACES ]] || TRACES=$(cd -- "$TRACES" && pwd)

# Outputs of the measured commands live next to the cache (same disk), removed on exit.
WORK=$(mktemp -d "$CACHE/run.XXXXXX")
trap 'rm -rf -- "$WORK"' EXIT

TIME_BIN=""
[[ -x /usr/bin/time ]] && TIME_BIN=/usr/bin/time
TIMEOUT_BIN=$(command -v timeout || true)
GEN_FORMAT=$("$GEN" --version | awk '{print $NF}')
FAILURES=0

# ---------------------------------------------------------------------------------------------
# Inputs (generated once, atomically: into a .partial name, then renamed).

gen_single() {  # gen_single KEY [gen args...] -> prints the path; KEY ends in .json or .json.gz
  local key=$1
  shift
  local path="$CACHE/$key"
  if [[ ! -f $path ]]; then
    echo "generating $path" >&2
    local gz=()
    [[ $key == *.gz ]] && gz=(--gzip)
    "$GEN" --out "$path.partial" --seed "$SEED" "${gz[@]}" "$@" >/dev/null
    mv -f -- "$path.partial" "$path"
  fi
  printf '%s\n' "$path"
}

gen_pp() {  # gen_pp SIZE_MB -> prints the folder of rank<N>_trace.json files
  local dir="$CACHE/pp4_${1}MB_seed${SEED}_f${GEN_FORMAT}"
  if [[ ! -d $dir ]]; then
    echo "generating $dir" >&2
    rm -rf -- "$dir.partial"
    "$GEN" --pp-ranks 4 --out-dir "$dir.partial" --size-mb "$1" --seed "$SEED" >/dev/null
    mv -f -- "$dir.partial" "$dir"
  fi
  printf '%s\n' "$dir"
}

file_bytes() { stat -c %s -- "$1"; }

dir_json_bytes() {
  local total=0 f
  for f in "$1"/rank*_trace.json; do total=$((total + $(file_bytes "$f"))); done
  printf '%s\n' "$total"
}

# ---------------------------------------------------------------------------------------------
# Measurement. Each run records wall seconds and peak RSS (KB) of the command and its children.

now() { date +%s.%N; }

descendants() {  # descendants PID -> PID and all its descendants, one per line
  local p
  echo "$1"
  # shellcheck disable=SC2013  # the children files hold space-separated pids
  for p in $(cat /proc/"$1"/task/*/children 2>/dev/null); do descendants "$p"; done
}

# Peak RSS without /usr/bin/time: poll VmHWM of the process tree every 50 ms (approximate:
# processes shorter than a poll are missed).
poll_peak_kb() {
  local pid=$1 peak=0 p kb
  while kill -0 "$pid" 2>/dev/null; do
    for p in $(descendants "$pid"); do
      kb=$(awk '/^VmHWM:/ {print $2}' /proc/"$p"/status 2>/dev/null || true)
      if [[ -n $kb ]] && ((kb > peak)); then peak=$kb; fi
    done
    sleep 0.05
  done
  printf '%s\n' "$peak"
}

# Before every run, tool or baseline: the outputs of earlier runs are removed and the page
# cache written back (untimed). Otherwise a run pays for its predecessor: replacing a file
# whose pages are still being written back waits for that writeback (seconds for 1 GB).
# Then a pause: on a VM that hands freed memory back to its host (this project's
# machines), pages freed a moment ago are still backed and several times cheaper to
# write a new file into than pages the host has taken back, which it does within about
# two seconds. Without the pause a run that starts writing early (a short pass 1, the
# first of four one-by-one runs) is timed in a state no user's run starts from.
fresh_start() {
  find "$WORK" -mindepth 1 -maxdepth 1 ! -name '*.txt' -exec rm -rf -- {} +
  sync
  sleep "$SETTLE"
}

# run_once ERRLOG CMD... -> sets RUN_S, RUN_KB, RUN_CPU_S (user + system seconds of the
# command and the children it waited for; null without /usr/bin/time), RUN_RC
run_once() {
  local err=$1
  shift
  local limit=()
  [[ -n $TIMEOUT_BIN ]] && limit=("$TIMEOUT_BIN" -k 10 "$TIMEOUT")
  local tf="$WORK/time.txt"
  RUN_RC=0
  if [[ -n $TIME_BIN ]]; then
    local start end
    start=$(now)
    "$TIME_BIN" -f '%e %M %U %S' -o "$tf" "${limit[@]}" "$@" >"$WORK/stdout.txt" 2>"$err" || RUN_RC=$?
    end=$(now)
    # Our own clock: %e has only two decimals.
    RUN_S=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.3f", b - a}')
    RUN_KB=$(tail -n 1 -- "$tf" | awk '{print $2}')
    RUN_CPU_S=$(tail -n 1 -- "$tf" | awk '{printf "%.2f", $3 + $4}')
  else
    RUN_CPU_S=null
    (
      TIMEFORMAT=%3R
      { time "${limit[@]}" "$@" >"$WORK/stdout.txt" 2>"$err"; } 2>"$tf"
    ) &
    local pid=$!
    RUN_KB=$(poll_peak_kb "$pid")
    wait "$pid" || RUN_RC=$?
    RUN_S=$(tail -n 1 -- "$tf")
  fi
}

median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {m = int((NR + 1) / 2); print (NR % 2 ? v[m] : (v[m] + v[m + 1]) / 2)}'; }
max_of() { printf '%s\n' "$@" | sort -g | tail -n 1; }

# Commands of a scenario are measured in rounds, one run of each per round (tool,
# baseline, tool, baseline, ...), so that a host getting busier or quieter during
# the scenario moves both sides of a ratio alike.
#
# run_into KEY NAME CMD... : one run of CMD, its time and peak added to KEY's; a
# failed run ends KEY's runs (later calls for KEY do nothing).
declare -A ACC_TIMES=() ACC_PEAKS=() ACC_CPUS=() ACC_STATUS=() ACC_CMD=()
run_into() {
  local key=$1 name=$2
  shift 2
  local err="$WORK/stderr.txt"
  ACC_CMD[$key]=$(printf '%q ' "$@")
  [[ ${ACC_STATUS[$key]:-ok} == ok ]] || return 0
  ACC_STATUS[$key]=ok
  fresh_start
  run_once "$err" "$@"
  cp -f -- "$WORK/stdout.txt" "$WORK/stdout_$key.txt"
  if ((RUN_RC != 0)); then
    ACC_STATUS[$key]=$([[ $RUN_RC == 124 || $RUN_RC == 137 ]] && echo timeout || echo "failed (exit $RUN_RC)")
    echo "run_bench.sh: $name: ${ACC_STATUS[$key]}: ${ACC_CMD[$key]}" >&2
    tail -n 5 -- "$err" >&2 || true
    FAILURES=$((FAILURES + 1))
    return 0
  fi
  ACC_TIMES[$key]+=" $RUN_S"
  ACC_PEAKS[$key]+=" $RUN_KB"
  ACC_CPUS[$key]+=" $RUN_CPU_S"
}

# finish_key KEY -> sets M_STATUS, M_MEDIAN, M_CPU (median CPU seconds), M_PEAK_KB,
# M_RUNS_JSON, M_CMD and forgets KEY
finish_key() {
  local key=$1
  local -a times peaks cpus
  read -r -a times <<<"${ACC_TIMES[$key]:-}"
  read -r -a peaks <<<"${ACC_PEAKS[$key]:-}"
  read -r -a cpus <<<"${ACC_CPUS[$key]:-}"
  M_STATUS=${ACC_STATUS[$key]:-ok}
  M_CMD=${ACC_CMD[$key]:-}
  if [[ $M_STATUS == ok && ${#times[@]} -gt 0 ]]; then
    M_MEDIAN=$(median "${times[@]}")
    M_PEAK_KB=$(max_of "${peaks[@]}")
    [[ $M_PEAK_KB == 0 ]] && M_PEAK_KB=null  # the RSS poll saw nothing (run too short)
    M_RUNS_JSON="[$(IFS=,; echo "${times[*]}")]"
    M_CPU=null
    [[ ${cpus[0]:-null} != null ]] && M_CPU=$(median "${cpus[@]}")
  else
    M_MEDIAN=null
    M_CPU=null
    M_PEAK_KB=null
    M_RUNS_JSON="[]"
  fi
  unset "ACC_TIMES[$key]" "ACC_PEAKS[$key]" "ACC_CPUS[$key]" "ACC_STATUS[$key]" "ACC_CMD[$key]"
}

mb_per_s() {  # mb_per_s BYTES SECONDS
  awk -v b="$1" -v s="$2" 'BEGIN {if (s == "null" || s <= 0) print "null"; else printf "%.1f", b / 1e6 / s}'
}

json_str() {  # JSON string literal
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  printf '"%s"' "$s"
}

# ---------------------------------------------------------------------------------------------
# Scenarios. Each one measures the tool and its baselines in interleaved rounds and
# records them.

RECORDS=()
TABLE=()

record() {  # record SCENARIO LABEL INPUT INPUT_BYTES BASELINE_NAME (after finish_tool and finish_key)
  local scenario=$1 label=$2 input=$3 bytes=$4 base_name=$5
  local ratio
  ratio=$(awk -v a="$T_MEDIAN" -v b="$M_MEDIAN" \
    'BEGIN {if (a == "null" || b == "null" || b <= 0) print "null"; else printf "%.2f", a / b}')
  local tool_mbs base_mbs
  tool_mbs=$(mb_per_s "$bytes" "$T_MEDIAN")
  base_mbs=$(mb_per_s "$bytes" "$M_MEDIAN")
  local within=null
  [[ $T_PEAK_KB != null ]] && within=$( ((T_PEAK_KB <= T_BUDGET_KB)) && echo true || echo false)
  RECORDS+=("$(printf '{"scenario": %s, "label": %s, "input": %s, "input_bytes": %s, "tool": {"status": %s, "command": %s, "median_s": %s, "median_cpu_s": %s, "mb_per_s": %s, "peak_rss_kb": %s, "runs_s": %s, "measured_slices": %s, "rss_budget_kb": %s, "rss_within_budget": %s}, "baseline": {"name": %s, "status": %s, "command": %s, "median_s": %s, "median_cpu_s": %s, "mb_per_s": %s, "peak_rss_kb": %s, "runs_s": %s}, "ratio_tool_to_baseline": %s}' \
    "$(json_str "$scenario")" "$(json_str "$label")" "$(json_str "$input")" "$bytes" \
    "$(json_str "$T_STATUS")" "$(json_str "$T_CMD")" "$T_MEDIAN" "$T_CPU" "$tool_mbs" "$T_PEAK_KB" "$T_RUNS_JSON" \
    "$T_SLICES" "$T_BUDGET_KB" "$within" \
    "$(json_str "$base_name")" "$(json_str "$M_STATUS")" "$(json_str "$M_CMD")" "$M_MEDIAN" "$M_CPU" "$base_mbs" \
    "$M_PEAK_KB" "$M_RUNS_JSON" "$ratio")")
  TABLE+=("$(awk -v l="$label" -v mb="$bytes" -v ts="$T_MEDIAN" -v tm="$tool_mbs" -v tk="$T_PEAK_KB" \
    -v tc="$T_CPU" -v bc="$M_CPU" \
    -v st="$T_STATUS" -v bn="$base_name" -v bs="$M_MEDIAN" -v bm="$base_mbs" -v bk="$M_PEAK_KB" -v r="$ratio" \
    -v gk="$T_BUDGET_KB" '
    function rss(k) { return k == "null" ? "-" : sprintf("%.1f", k / 1024) }
    function num(v, f) { return v == "null" ? "-" : sprintf(f, v) }
    BEGIN {
      printf "%-34s %9.1f | %9s %6s %8s %9s %9s | %-22s %8s %6s %8s %9s | %6s%s\n", l, mb / 1e6,
        num(ts, "%.3f"), num(tc, "%.2f"), num(tm, "%.1f"), rss(tk), rss(gk), bn, num(bs, "%.3f"),
        num(bc, "%.2f"), num(bm, "%.1f"), rss(bk), num(r, "%.2f"), (st == "ok" ? "" : "  TOOL " st)
    }')")
  printf '%s\n' "${TABLE[-1]}"
}

# measure_tool NAME CMD...: like measure, but keeps the result in T_* for record, with the
# measured slices of the summary (summed over ranks) and the memory goal they give:
# 64 MiB + 64 bytes per measured slice.
finish_tool() {  # finish_tool KEY: finish_key, kept as the tool's side (T_*)
  finish_key "$1"
  T_STATUS=$M_STATUS T_MEDIAN=$M_MEDIAN T_CPU=$M_CPU T_PEAK_KB=$M_PEAK_KB T_RUNS_JSON=$M_RUNS_JSON
  T_CMD=$M_CMD
  T_SLICES=$({ grep -o '"measured_slices": *[0-9]*' "$WORK/stdout_$1.txt" 2>/dev/null || true; } |
    awk -F: '{s += $2} END {print s + 0}')
  T_BUDGET_KB=$(awk -v n="$T_SLICES" 'BEGIN {printf "%d", 65536 + 64 * n / 1024}')
}

# warm_inputs PATH...: reads a scenario's inputs (files, or a folder's rank traces)
# once, untimed, before its first run. The host keeps only part of the page cache
# (a few GB), so a scenario's inputs may have left it while earlier scenarios ran;
# unwarmed, the first run (the tool's, as rounds start with it) read them from the
# disk and took up to twice as long as the runs after it.
warm_inputs() {
  local path
  for path in "$@"; do
    if [[ -d $path ]]; then
      cat -- "$path"/rank*_trace.json* >/dev/null
    else
      cat -- "$path" >/dev/null
    fi
  done
}

# against_floor SCENARIO LABEL INPUT: the tool on a JSON file against the parse floor.
against_floor() {
  local scenario=$1 label=$2 in=$3 i
  warm_inputs "$in"
  for ((i = 0; i < RUNS; i++)); do
    run_into tool "$label" "$TOOL" "$in" -o "$WORK/out.json" --overwrite
    run_into floor "parse_floor $label" "$FLOOR" "$in"
  done
  finish_tool tool
  finish_key floor
  record "$scenario" "$label" "$in" "$(file_bytes "$in")" parse_floor
}

scenario_json() {  # scenario_json SIZE_MB
  local in
  in=$(gen_single "default_${1}MB_seed${SEED}_f${GEN_FORMAT}.json" --size-mb "$1")
  against_floor json "json ${1}MB" "$in"
}

# against_zcat_gzip SCENARIO LABEL INPUT JSON_BYTES: the tool on a gzip file against
# zcat | gzip -1 of it; MB/s counts the uncompressed JSON.
against_zcat_gzip() {
  local scenario=$1 label=$2 in=$3 bytes=$4 i
  warm_inputs "$in"
  for ((i = 0; i < RUNS; i++)); do
    run_into tool "$label" "$TOOL" "$in" -o "$WORK/out.json.gz" --overwrite
    # shellcheck disable=SC2016  # expanded by the inner bash
    run_into zcat "zcat|gzip -1 $label" bash -c 'set -o pipefail; zcat -- "$1" | gzip -1 > "$2"' _ \
      "$in" "$WORK/floor.json.gz"
  done
  finish_tool tool
  finish_key zcat
  record "$scenario" "$label" "$in" "$bytes" "zcat | gzip -1"
}

scenario_gzip() {  # scenario_gzip SIZE_MB
  local in json
  json=$(gen_single "default_${1}MB_seed${SEED}_f${GEN_FORMAT}.json" --size-mb "$1")
  in=$(gen_single "default_${1}MB_seed${SEED}_f${GEN_FORMAT}.json.gz" --size-mb "$1")
  against_zcat_gzip gzip "gzip ${1}MB" "$in" "$(file_bytes "$json")"
}

# merge_against_one_by_one SCENARIO LABEL DIR COUNT: the merge of DIR's rank<N>_trace.json
# files against compacting them one by one (and, for reference, one by one on one thread,
# and side by side: one-thread processes, --threads of them at a time).
merge_against_one_by_one() {
  local scenario=$1 label=$2 dir=$3 count=$4 i
  warm_inputs "$dir"
  for ((i = 0; i < RUNS; i++)); do
    run_into merge "$label" "$TOOL" "$dir" --merge-pp-ranks --threads "$THREADS" \
      -o "$WORK/merged.json" --overwrite
    # Each rank to its own output, as a user would (and as the merge writes all of them).
    # shellcheck disable=SC2016  # expanded by the inner bash
    run_into ranks "$label, one by one" bash -c \
      'set -e; for f in "$1"/rank*_trace.json; do "$2" "$f" -o "$3/one_$(basename "$f")"; done' _ \
      "$dir" "$TOOL" "$WORK"
    # For reference: one rank at a time on one thread each (single runs use all
    # cores by default, which the row above compares against).
    # shellcheck disable=SC2016  # expanded by the inner bash
    run_into ranks1 "$label, one by one, 1 thread" bash -c \
      'set -e; for f in "$1"/rank*_trace.json; do "$2" "$f" --threads 1 -o "$3/one_$(basename "$f")"; done' _ \
      "$dir" "$TOOL" "$WORK"
    # For reference: the ranks' own work on --threads cores with none of a merge's
    # (no pid, ts or flow id rewritten, no cross-rank arrows, no thread handoffs),
    # which a merge can beat only by overlapping better.
    # shellcheck disable=SC2016  # expanded by the inner bash
    run_into side "$label, side by side" bash -c \
      'set -o pipefail; printf "%s\0" "$1"/rank*_trace.json |
        xargs -0 -n 1 -P "$4" bash -c '\''exec "$1" "$3" --threads 1 -o "$2/one_${3##*/}"'\'' _ "$2" "$3"' _ \
      "$dir" "$TOOL" "$WORK" "$SIDE_BY_SIDE"
  done
  finish_tool merge
  finish_key ranks
  record "$scenario" "$label" "$dir" "$(dir_json_bytes "$dir")" "$count ranks one by one"
  finish_key ranks1
  record "${scenario}_vs_one_thread" "$label" "$dir" "$(dir_json_bytes "$dir")" \
    "one by one, --threads 1"
  finish_key side
  record "${scenario}_vs_side_by_side" "$label" "$dir" "$(dir_json_bytes "$dir")" \
    "$SIDE_BY_SIDE at a time, 1 thread"
}

scenario_merge() {  # scenario_merge SIZE_MB (all four ranks together)
  local dir
  dir=$(gen_pp "$1")  # its own statement, so a failing generator stops the script
  merge_against_one_by_one merge "merge 4 ranks ${1}MB" "$dir" 4
}

# scenario_traces DIR: the user's own traces (see --traces). Labels are file names.
scenario_traces() {
  local dir=$1 f
  local -a ranks=()
  for f in "$dir"/*.json; do
    [[ -f $f ]] || continue
    against_floor traces "$(basename -- "$f")" "$f"
    [[ $(basename -- "$f") =~ ^rank[0-9]+_trace\.json$ ]] && ranks+=("$f")
  done
  for f in "$dir"/*.json.gz; do
    [[ -f $f ]] || continue
    against_zcat_gzip traces_gzip "$(basename -- "$f")" "$f" "$(zcat -- "$f" | wc -c)"
  done
  local -a gzip_ranks=("$dir"/rank*_trace.json.gz)
  if ((${#ranks[@]} >= 2)); then
    if [[ -e ${gzip_ranks[0]} ]]; then
      # The merge would read them too, while the one-by-one runs and the MB/s
      # count the plain ranks only: the two sides would differ in input.
      echo "run_bench.sh: $dir: merge not measured: it mixes plain and gzip rank traces" >&2
    else
      merge_against_one_by_one traces_merge "merge ${#ranks[@]} ranks $(basename -- "$dir")" \
        "$dir" "${#ranks[@]}"
    fi
  fi
}

scenario_shape() {  # scenario_shape SHAPE COUNT
  local in
  in=$(gen_single "${1}_n${2}_seed${SEED}_f${GEN_FORMAT}.json" --shape "$1" --count "$2")
  against_floor "shape:$1" "$1 n=$2" "$in"
}

scaled() { awk -v n="$1" -v f="$SHAPE_SCALE" 'BEGIN {v = int(n * f); print (v < 1 ? 1 : v)}'; }

# ---------------------------------------------------------------------------------------------

IFS=, read -r -a SIZE_LIST <<<"$SIZES"
((LARGE)) && SIZE_LIST+=(5000)

echo "tracecompact benchmark: $RUNS run(s) each, median wall time; MB = 10^6 bytes of JSON"
echo "tool: $TOOL"
[[ -n $TIME_BIN ]] || echo "note: /usr/bin/time missing (Debian package 'time'); RSS is polled"
echo "RSS MB = MiB; goal = 64 MiB + 64 bytes per measured slice (from the tool's summary)"
echo "cpu = median user + system seconds (of every process of the command)"
printf '%-34s %9s | %9s %6s %8s %9s %9s | %-22s %8s %6s %8s %9s | %6s\n' scenario "input MB" \
  "tool s" cpu "MB/s" "RSS MB" "goal MB" baseline "s" cpu "MB/s" "RSS MB" ratio

for size in "${SIZE_LIST[@]}"; do
  scenario_json "$size"
  scenario_gzip "$size"
  scenario_merge "$size"
done

if ((SHAPES)); then
  # Two scales 10x apart per shape: time should grow ~10x if the tool is linear.
  for spec in identical_annotations:1000000 many_streams:100000 repeated_pp_key:10000; do
    shape=${spec%%:*}
    count=$(scaled "${spec#*:}")
    small=$(awk -v n="$count" 'BEGIN {v = int(n / 10); print (v < 1 ? 1 : v)}')
    scenario_shape "$shape" "$small"
    scenario_shape "$shape" "$count"
  done
fi

[[ -z $TRACES ]] || scenario_traces "$TRACES"

{
  printf '{\n  "tool": %s,\n  "generator": %s,\n  "generator_format": %s,\n' \
    "$(json_str "$TOOL")" "$(json_str "$GEN")" "$GEN_FORMAT"
  printf '  "runs": %s,\n  "seed": %s,\n  "threads": %s,\n  "settle_s": %s,\n  "cpus": %s,\n  "date": %s,\n' \
    "$RUNS" "$SEED" "$THREADS" "$SETTLE" "$(nproc)" "$(json_str "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
  printf '  "failures": %s,\n  "results": [\n' "$FAILURES"
  for i in "${!RECORDS[@]}"; do
    printf '    %s%s\n' "${RECORDS[$i]}" "$([[ $i -lt $((${#RECORDS[@]} - 1)) ]] && echo ,)"
  done
  printf '  ]\n}\n'
} >"$OUT.partial"
mv -f -- "$OUT.partial" "$OUT"
echo
echo "summary (ratio = tool time / baseline time, same inputs, same run):"
printf '%s\n' "${TABLE[@]}"
echo "results: $OUT"
((FAILURES == 0)) || die "$FAILURES measurement(s) failed or timed out"
