#!/usr/bin/env bash
# Runs every test of rbc on a fresh machine: installs what the tests need
# (Python venv with reconchess 1.6.9 and chess, Debian's stockfish), then
# formatting, lints, the Rust tests, the no_std link check and the Python
# differential tests against the real reconchess package.
#
# Environment:
#   RULES_DIFF_GAMES   games for the rules differential test (default 300)
#   RBC_BELIEF_GAMES   games per capacity in the belief recovery tests (default 500)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n== %s\n' "$*"; }

step "test environment"
bash scripts/setup-test-env.sh

step "format"
cargo fmt --all -- --check

step "lint"
cargo clippy --workspace --all-targets -- -D warnings

step "build"
cargo build --release --workspace --bins

step "rust tests"
cargo test --workspace --release

step "no_std link check"
(cd nostd-check && CARGO_TARGET_DIR=../target/nostd cargo build --release --quiet)
target/nostd/release/rbc-nostd-check
echo "rbc-core links and runs without std or alloc"

step "weak hardware: one core, 32 MiB, full clock"
bash scripts/weak-hardware.sh 4 32 48

step "python tests against reconchess"
export RULES_DIFF_GAMES="${RULES_DIFF_GAMES:-300}"
RBC_BIN="$PWD/target/release/rbc" .venv/bin/python -m pytest -q tests/python
