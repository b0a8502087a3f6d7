"""pytest wrapper around tests/diff/rules_diff.py (rbc rules vs reconchess 1.6.9).

Needs the release binary: run `cargo build --release` first (or set RBC_BIN).
RULES_DIFF_GAMES / RULES_DIFF_SEED override the number of games and the seed.
"""

import importlib.util
import json
import os
import sys
from pathlib import Path

import chess
import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("rules_diff", ROOT / "tests" / "diff" / "rules_diff.py")
rules_diff = importlib.util.module_from_spec(_spec)
sys.modules["rules_diff"] = rules_diff  # dataclasses look their module up by name
_spec.loader.exec_module(rules_diff)

GAMES = int(os.environ.get("RULES_DIFF_GAMES", "60"))
SEED = int(os.environ.get("RULES_DIFF_SEED", "20240917"))


def rbc_binary() -> Path:
    rbc = rules_diff.default_rbc_path()
    if not (rbc.is_file() and os.access(rbc, os.X_OK)):
        pytest.fail(f"rbc binary not found at {rbc}: run `cargo build --release` first "
                    f"(or set RBC_BIN to the binary)", pytrace=False)
    return rbc


def run_games(games, seed, **kwargs):
    lines = []
    summary = rules_diff.run(games, seed, rbc_binary(), out=lines.append, **kwargs)
    report = "\n".join(lines)
    assert summary.aborted is None, report
    assert summary.mismatches == 0, (
        f"{summary.mismatches} mismatches in {summary.failed_plies} of {summary.plies} plies:\n{report}")
    assert summary.games == games and summary.plies > 0
    return summary


def test_rules_match_reconchess():
    run_games(GAMES, SEED)


def test_saved_games_replay(tmp_path):
    """The --save-games records are self-consistent, so belief-tracking tests can replay them."""
    run_games(3, SEED + 1, save_dir=tmp_path)
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 3
    for path in files:
        record = json.loads(path.read_text())
        plies = record["plies"]
        assert plies and plies[0]["fen"] == chess.STARTING_FEN
        prev_capture = None
        for i, p in enumerate(plies):
            board = chess.Board(p["fen"])
            assert p["ply"] == i and p["color"] == ("w" if board.turn else "b")
            assert p["opponent_capture"] == prev_capture
            if p["sense"] is None:
                assert p["sense_result"] == []
            else:
                assert len(p["sense_result"]) in (4, 6, 9)
                for name, symbol in p["sense_result"]:
                    piece = board.piece_at(chess.parse_square(name))
                    assert (piece.symbol() if piece else None) == symbol
            taken = chess.Move.from_uci(p["taken"]) if p["taken"] else chess.Move.null()
            board.push(taken)
            assert board.fen(en_passant="fen") == p["fen_after"]
            if i + 1 < len(plies):
                assert plies[i + 1]["fen"] == p["fen_after"]
            prev_capture = p["capture"]
        assert record["final_fen"] == plies[-1]["fen_after"]
