#!/usr/bin/env bash
# Prepare the environment used by the Python differential tests:
#   - .venv at the repository root with reconchess==1.6.9, chess and pytest
#   - a Stockfish binary (Debian package) unless one is already available
# Safe to rerun: every step is skipped when already satisfied.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"
RECONCHESS_VERSION="1.6.9"

# 1. virtual environment
if [[ -x "$PY" ]]; then
    echo "venv: $VENV already exists"
else
    echo "venv: creating $VENV"
    python3 -m venv "$VENV"
fi

# 2. python packages
if "$PY" - "$RECONCHESS_VERSION" <<'PYEOF' 2>/dev/null
import sys
from importlib.metadata import version, PackageNotFoundError
try:
    ok = version("reconchess") == sys.argv[1]
    version("chess")
    version("pytest")
except PackageNotFoundError:
    ok = False
sys.exit(0 if ok else 1)
PYEOF
then
    echo "pip: reconchess==$RECONCHESS_VERSION, chess, pytest already installed"
else
    echo "pip: installing reconchess==$RECONCHESS_VERSION chess pytest"
    "$PY" -m pip install --quiet --disable-pip-version-check \
        "reconchess==$RECONCHESS_VERSION" chess pytest
fi

# 3. stockfish
if command -v stockfish >/dev/null 2>&1; then
    echo "stockfish: found $(command -v stockfish)"
elif [[ -x /usr/games/stockfish ]]; then
    echo "stockfish: found /usr/games/stockfish"
else
    SUDO=""
    if [[ "$(id -u)" -ne 0 ]]; then
        if command -v sudo >/dev/null 2>&1; then
            SUDO="sudo"
        else
            echo "stockfish: not found, and not root and no sudo: install the 'stockfish' package manually" >&2
            exit 1
        fi
    fi
    echo "stockfish: installing Debian package"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq stockfish >/dev/null
    echo "stockfish: installed $(command -v stockfish || echo /usr/games/stockfish)"
fi
