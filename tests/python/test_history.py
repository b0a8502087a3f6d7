"""Game histories written by `rbc play --history-dir` against reconchess 1.6.9.

Each saved game must load with `reconchess.GameHistory.from_file`, agree with
the match summary (players, turns, winner, reason), and replay on
reconchess's own `LocalGame`: feeding it the recorded senses and requested
moves reproduces the sense results, taken moves, capture squares, FENs and
result, and the history LocalGame records is equal to ours, byte for byte once
saved. The other way round, a history reconchess saves prints with
`rbc replay`, belief tracking included.

Needs the release binary: run `cargo build --release` first (or set RBC_BIN).
"""

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import chess
import pytest
from reconchess import GameHistory, LocalGame, WinReason, play_local_game
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot

ROOT = Path(__file__).resolve().parents[2]
HAVE_STOCKFISH = bool(os.environ.get("STOCKFISH_EXECUTABLE") or shutil.which("stockfish")
                      or os.access("/usr/games/stockfish", os.X_OK))
HISTORY_NAMES = {"rbc": "rbc", "random": "RandomBot", "attacker": "AttackerBot", "trout": "TroutBot"}


def rbc_binary() -> Path:
    rbc = Path(os.environ.get("RBC_BIN", ROOT / "target" / "release" / "rbc"))
    if not (rbc.is_file() and os.access(rbc, os.X_OK)):
        pytest.fail(f"rbc binary not found at {rbc}: run `cargo build --release` first "
                    f"(or set RBC_BIN to the binary)", pytrace=False)
    return rbc


def run_rbc(*args, timeout=600):
    proc = subprocess.run([str(rbc_binary()), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, f"rbc {' '.join(map(str, args))} failed:\n{proc.stderr}"
    return proc.stdout


def play_match(tmp_path, *players, seed):
    # No increment: with the default 5 s a turn, a long game against TroutBot
    # let both sides spend well over the 600 s this allows (seen: 307 s for
    # two games, and one run past 600 s). 60 s a side bounds two games at
    # four minutes of clock; a loss on time is a history like any other.
    out = run_rbc("play", "--games", 2, "--history-dir", tmp_path, "--seconds", 60,
                  "--increment", 0, "--seed", seed, "--capacity", 200000, "--json", "--quiet",
                  *players)
    summary = json.loads(out)
    assert summary["games"] == 2
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 2, files
    return summary, files


def replay_on_local_game(history: GameHistory) -> LocalGame:
    """Plays the recorded senses and requests on reconchess's LocalGame, checking every result."""
    game = LocalGame(seconds_per_player=None)
    game.store_players(history.get_white_player_name(), history.get_black_player_name())
    game.start()
    previous_capture = None
    for turn in history.turns():
        assert not game.is_over(), f"reconchess ended the game before {turn}"
        assert game.turn == turn.color
        assert game.opponent_move_results() == previous_capture
        sense_result = game.sense(history.sense(turn))
        assert sense_result == history.sense_result(turn), turn
        assert history.has_move(turn), turn
        fen_before = game.board.fen(en_passant="fen")
        assert fen_before == history.truth_fen_before_move(turn), turn
        requested, taken, capture = game.move(history.requested_move(turn))
        assert requested == history.requested_move(turn)
        assert taken == history.taken_move(turn), (turn, taken, history.taken_move(turn))
        assert capture == history.capture_square(turn), turn
        assert game.board.fen(en_passant="fen") == history.truth_fen_after_move(turn), turn
        previous_capture = capture
        game.end_turn()
    return game


@pytest.mark.parametrize("players, seed", [
    (("--opponent", "random"), 11),
    (("--opponent", "attacker"), 12),
    (("--white", "random", "--black", "random"), 13),
    pytest.param(("--opponent", "trout"), 14,
                 marks=pytest.mark.skipif(not HAVE_STOCKFISH, reason="trout needs Stockfish")),
])
def test_histories_load_and_replay_in_reconchess(tmp_path, players, seed):
    summary, files = play_match(tmp_path, *players, seed=seed)
    results = {Path(r["history"]).name: r for r in summary["results"]}
    assert set(results) == {f.name for f in files}

    for path in files:
        history = GameHistory.from_file(str(path))
        result = results[path.name]

        # The record agrees with the summary.
        assert history.get_white_player_name() == HISTORY_NAMES[result["white"].split("#")[0]]
        assert history.get_black_player_name() == HISTORY_NAMES[result["black"].split("#")[0]]
        assert history.num_turns() == result["turns"]
        expected_winner = {"white": chess.WHITE, "black": chess.BLACK, None: None}[result["winner"]]
        assert history.get_winner_color() == expected_winner
        assert history.get_win_reason() == WinReason[result["reason"]]
        assert history.num_turns(chess.WHITE) - history.num_turns(chess.BLACK) in (0, 1)

        # reconchess's own LocalGame reproduces every turn and the result.
        game = replay_on_local_game(history)
        if history.get_win_reason() == WinReason.TIMEOUT:
            continue  # real time cannot be replayed
        assert game.is_over()
        assert game.get_winner_color() == history.get_winner_color()
        assert game.get_win_reason() == history.get_win_reason()
        game.end()
        theirs = game.get_game_history()
        assert theirs == history
        copy = tmp_path / ("reconchess-" + path.name)
        theirs.save(str(copy))
        assert copy.read_text() == path.read_text(), "GameHistory.save writes the same text"


def test_reconchess_histories_replay_in_rbc(tmp_path):
    random.seed(20240917)
    for i, (white, black) in enumerate([(RandomBot(), AttackerBot()), (AttackerBot(), RandomBot())]):
        _, _, history = play_local_game(white, black, seconds_per_player=120)
        path = tmp_path / f"reconchess-{i}.json"
        history.save(str(path))
        side = "black" if i == 0 else "white"
        out = run_rbc("replay", path, "--as", side, "--capacity", 200000, timeout=300)
        assert out.count("\nTurn ") + out.startswith("Turn ") == history.num_turns()
        assert "tracking stopped" not in out, out
        assert "% of " in out  # the heat map
        winner = history.get_winner_color()
        reason = history.get_win_reason().name
        if winner is None:
            assert f"no winner ({reason})" in out
        else:
            name = history.get_white_player_name() if winner else history.get_black_player_name()
            assert f"Result: {name} ({'white' if winner else 'black'}) wins by {reason}" in out
