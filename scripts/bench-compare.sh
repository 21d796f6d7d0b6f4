#!/usr/bin/env bash
# Criterion benches of another revision beside the work tree's, run one after
# the other on this machine, with each bench's after/before time ratio.
#
#   scripts/bench-compare.sh REV [BENCH ...]     default: every bench of sluice-benches and sluice-keyed
#   MEASURE=2 ROUNDS=2 scripts/bench-compare.sh main~5 transpose
#
# REV is checked out into a temporary git worktree and both trees' bench
# executables are built with the bench profile into one target dir (BENCH_TARGET; registry
# crates are built once). Each round runs every bench before then after; the
# report takes each side's best time over the rounds and prints, per bench
# file, the geometric mean of after/before and the extremes. A machine shared
# with other work moves unchanged reference loops too: compare a kernel
# against the references of the same run before reading a shift as a change.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
ensure_rust
rev="${1:?usage: scripts/bench-compare.sh REV [BENCH ...]}"
shift
benches=("$@")
[ ${#benches[@]} -gt 0 ] || benches=(digest multibuffer concat search encode transpose keyed join over topn window)
out="${CARGO_TARGET_DIR}/bench-compare"
target="${BENCH_TARGET:-$out/target}"
mkdir -p "$out/bin/before" "$out/bin/after"
tree=$(mktemp -d)
trap 'git worktree remove --force "$tree" >/dev/null 2>&1 || true' EXIT
git worktree add -q --detach "$tree" "$rev"

build() { # tree side
    (cd "$1" && CARGO_TARGET_DIR="$target" cargo bench --locked -p sluice-benches -p sluice-keyed --no-run \
        --message-format=json 2>/dev/null) |
        python3 -c '
import json, sys, shutil
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and "bench" in m["target"]["kind"]:
        shutil.copy(m["executable"], sys.argv[1] + "/" + m["target"]["name"])
' "$out/bin/$2"
}
echo "== building the benches of $rev and of the work tree"
build "$tree" before
build "$PWD" after

log="$out/runs.log"
: >"$log"
for round in $(seq "${ROUNDS:-1}"); do
    for b in "${benches[@]}"; do
        for side in before after; do
            echo "### $b $side" >>"$log"
            (cd "$out" && "bin/$side/$b" --bench --warm-up-time 0.5 --measurement-time "${MEASURE:-1}" --noplot >>"$log" 2>/dev/null)
        done
    done
done
python3 - "$log" <<'PY'
import collections, math, re, sys
unit = {"ps": 1e-3, "ns": 1, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
best = collections.defaultdict(dict)
bench = side = name = None
for line in open(sys.argv[1], encoding="utf-8"):
    m = re.match(r"### (\S+) (\S+)", line)
    if m:
        bench, side = m.groups()
        continue
    line = line.replace(" (cpu)", "")
    m = re.search(r"time:\s+\[\S+ \S+ (\S+) (\S+) \S+ \S+\]", line)
    if m:
        name = line.split("time:")[0].strip() or name
        t = float(m.group(1)) * unit[m.group(2)]
        key = (bench, name)
        best[key][side] = min(t, best[key].get(side, t))
    elif line.strip() and not line[0].isspace() and not line.startswith(("Found", "Benchmarking")):
        name = line.split()[0]
per = collections.defaultdict(list)
for (b, n), v in best.items():
    if "before" in v and "after" in v:
        per[b].append((v["after"] / v["before"], n))
for b, rs in per.items():
    g = math.exp(sum(math.log(r) for r, _ in rs) / len(rs))
    lo, hi = min(rs), max(rs)
    print(f"{b}: {len(rs)} benchmarks, after/before geomean {g:.3f} (min {lo[0]:.2f} {lo[1]}, max {hi[0]:.2f} {hi[1]})")
PY
