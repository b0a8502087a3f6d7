#!/usr/bin/env bash
# The strength matches of docs/STRENGTH.md: rbc (through the reconchess bridge
# in bridge/python) against reconchess's RandomBot, AttackerBot and TroutBot at
# a scaled-down clock of 120 s + 2 s per turn.
#
#   (a) engine auto (Stockfish installed) vs random, attacker, trout
#   (b) engine builtin vs random
#
# Environment:
#   GAMES   games per opponent (default 50)
#   JOBS    games in parallel (default 2)
#   OUT     output directory (default target/strength): histories, games.jsonl,
#           and the JSON summaries auto.json / builtin.json
#   RBC_BIN rbc binary (default target/release/rbc, built if missing)
#   PYTHON  interpreter with reconchess 1.6.9 (default .venv/bin/python)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

GAMES="${GAMES:-50}"
JOBS="${JOBS:-2}"
OUT="${OUT:-$ROOT/target/strength}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
export RBC_BIN="${RBC_BIN:-$ROOT/target/release/rbc}"
export STOCKFISH_EXECUTABLE="${STOCKFISH_EXECUTABLE:-/usr/games/stockfish}"
export PYTHONPATH="$ROOT/bridge/python${PYTHONPATH:+:$PYTHONPATH}"

if [[ ! -x "$RBC_BIN" ]]; then
    cargo build --release -p rbc-cli
fi
mkdir -p "$OUT"

run() {
    local name="$1"; shift
    echo "== $name: $*" >&2
    "$PYTHON" -m rbc_reconchess.match --games "$GAMES" --seconds 120 --increment 2 \
        --jobs "$JOBS" --history-dir "$OUT/$name" "$@" --json >"$OUT/$name.json" \
        || echo "== $name: some games ended in an error (see $OUT/$name/games.jsonl)" >&2
    "$PYTHON" -m rbc_reconchess.match --summarize "$OUT/$name" || true
}

run auto --engine auto --opponents random,attacker,trout
run builtin --engine builtin --opponents random
