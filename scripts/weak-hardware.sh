#!/usr/bin/env bash
# The weak-hardware check: full games against random on one core
# (taskset -c 0), rbc's memory set to a budget (--memory, default 32MiB),
# an address-space limit (ulimit -v) on the whole process, and the standard
# 900 s + 5 s clock. Fails if a game is lost on time, the process fails, or
# its peak resident set exceeds the budget.
#
# Usage: scripts/weak-hardware.sh [GAMES] [BUDGET_MIB] [ADDRESS_SPACE_MIB]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
games=${1:-4}
budget=${2:-32}
space=${3:-48}
rbc=${RBC_BIN:-target/release/rbc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

(
    ulimit -v $((space * 1024))
    /usr/bin/time -v taskset -c 0 "$rbc" play --memory "${budget}MiB" --engine builtin \
        --opponent random --games "$games" --seconds 900 --increment 5 --seed 2026 --json --quiet \
        > "$out/result.json" 2> "$out/time.txt"
) || { cat "$out/time.txt" >&2; echo "weak-hardware: rbc play failed" >&2; exit 1; }

rss_kib=$(awk -F: '/Maximum resident set size/ {gsub(/ /, "", $2); print $2}' "$out/time.txt")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$out/time.txt")
python3 - "$out/result.json" "$rss_kib" "$budget" "$space" "$wall" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
rss_mib = int(sys.argv[2]) / 1024
budget, space, wall = float(sys.argv[3]), sys.argv[4], sys.argv[5]
used = r["seconds_per_game"]["player"]
print(f"weak-hardware: {r['games']} games vs random on one core, --memory {budget:.0f}MiB, "
      f"address space {space} MiB: {r['wins']} won, {r['losses']} lost, {r['draws']} drawn, "
      f"{r['losses_on_time']} lost on time; rbc used mean {used['mean']:.2f} s, max {used['max']:.2f} s "
      f"of its clock per game; peak RSS {rss_mib:.1f} MiB; wall {wall}")
ok = r["losses_on_time"] == 0 and rss_mib <= budget
print(f"{int(ok)} passed, {int(not ok)} failed")
sys.exit(0 if ok else 1)
PY
