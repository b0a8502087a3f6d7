"""The reconchess bridge in bridge/python (`rbc_reconchess.RbcPlayer`).

Short games of rbc (through `rbc track`) against reconchess 1.6.9's own bots:
every game must finish, rbc must never hand reconchess an illegal action
(LocalGame raises on one; the bridge's own fallback counter must stay at 0),
and the `rbc track` process must be closed at the end. Error replies of the
pipe and a dead process must surface as exceptions carrying the engine's
message. The bot file bridge/python/rbc_bot.py must load the way
`rc-bot-match` loads bots, and the match script must run and summarise.

Needs the release binary: run `cargo build --release -p rbc-cli` first (or set
RBC_BIN), and Stockfish for the TroutBot game (scripts/setup-test-env.sh).
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from reconchess import LocalGame, Player, WinReason, load_player, play_local_game
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot

ROOT = Path(__file__).resolve().parents[2]
BRIDGE = ROOT / "bridge" / "python"
sys.path.insert(0, str(BRIDGE))

import rbc_reconchess  # noqa: E402
from rbc_reconchess import RbcPipeError, RbcPlayer, RbcProcessError, build_track_args  # noqa: E402
from rbc_reconchess import match  # noqa: E402


def rbc_binary() -> str:
    rbc = Path(os.environ.get("RBC_BIN", ROOT / "target" / "release" / "rbc"))
    if not (rbc.is_file() and os.access(str(rbc), os.X_OK)):
        pytest.fail(f"rbc binary not found at {rbc}: run `cargo build --release -p rbc-cli` first "
                    f"(or set RBC_BIN to the binary)", pytrace=False)
    return str(rbc.resolve())


def stockfish_binary() -> str:
    path = (os.environ.get("STOCKFISH_EXECUTABLE") or shutil.which("stockfish")
            or "/usr/games/stockfish")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail("Stockfish not found (STOCKFISH_EXECUTABLE, PATH, /usr/games/stockfish): "
                    "run scripts/setup-test-env.sh", pytrace=False)
    return path


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    """The bridge reads RBC_ARGS / RBC_SECONDS / RBC_INCREMENT: start every test without them."""
    for name in ("RBC_ARGS", "RBC_SECONDS", "RBC_INCREMENT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("RBC_BIN", rbc_binary())


class WatchedPlayer(RbcPlayer):
    """Remembers every `rbc track` process it starts."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.started = []

    def start(self):
        proc = super().start()
        self.started.append(proc)
        return proc


def play(rbc, opponent, rbc_white, seconds, increment, full_turn_limit=None):
    game = LocalGame(seconds_per_player=seconds, seconds_increment=increment,
                     full_turn_limit=full_turn_limit)
    white, black = (rbc, opponent) if rbc_white else (opponent, rbc)
    winner, reason, history = play_local_game(white, black, game=game)
    return winner, reason, history, game


def check_finished_cleanly(rbc, winner, reason, history, game, rbc_white):
    assert game.is_over()
    assert not history.is_empty()
    assert reason is not None
    assert rbc.turns > 0
    assert rbc.rejected_actions == 0, "rbc answered an action that was not legal"
    # The process was closed at game_end and exited normally.
    assert rbc.process is None
    assert len(rbc.started) == 1
    proc = rbc.started[0]
    assert not proc.alive()
    assert proc.returncode == 0, proc.stderr_tail()
    assert rbc.engine_stats is not None and "engine" in rbc.engine_stats
    # Never lose on time.
    me = chess.WHITE if rbc_white else chess.BLACK
    assert not (reason == WinReason.TIMEOUT and winner != me), "rbc lost on time"


@pytest.mark.parametrize("opponent_cls", [RandomBot, AttackerBot], ids=["random", "attacker"])
@pytest.mark.parametrize("rbc_white", [True, False], ids=["rbc-white", "rbc-black"])
def test_builtin_engine_plays_reconchess_bots(opponent_cls, rbc_white):
    rbc = WatchedPlayer(engine="builtin", capacity=200_000, seed=7, seconds=20, increment=0.5)
    winner, reason, history, game = play(rbc, opponent_cls(), rbc_white, 20, 0.5)
    check_finished_cleanly(rbc, winner, reason, history, game, rbc_white)
    assert rbc.engine_stats["engine"] == "builtin"


def test_stockfish_engine_plays_troutbot(monkeypatch):
    stockfish = stockfish_binary()
    monkeypatch.setenv("STOCKFISH_EXECUTABLE", stockfish)
    from reconchess.bots.trout_bot import TroutBot

    rbc = WatchedPlayer(engine="stockfish", stockfish=stockfish, capacity=200_000, seed=1,
                        seconds=30, increment=1)
    # A turn limit keeps the game short (TroutBot thinks about 1 s per turn).
    winner, reason, history, game = play(rbc, TroutBot(), True, 30, 1, full_turn_limit=15)
    check_finished_cleanly(rbc, winner, reason, history, game, True)
    assert rbc.engine_stats["engine"] != "builtin"


def test_error_reply_surfaces_with_engine_message():
    rbc = WatchedPlayer(engine="builtin", capacity=10_000)
    rbc.handle_game_start(chess.WHITE, chess.Board(), "nobody")
    rbc.handle_opponent_move_result(False, None)
    with pytest.raises(RbcPipeError) as info:
        rbc.send({"event": "sense_result", "result": [["e9", None]]})
    err = info.value
    assert 'invalid square "e9"' in err.message
    assert err.line == 3
    assert err.message in str(err)
    # The bad line changed nothing: the game goes on.
    sense = rbc.choose_sense(list(chess.SQUARES), [], 20.0)
    assert sense is None or sense in chess.SQUARES
    assert rbc.close() == 0
    assert rbc.process is None


class LyingAboutCaptures(RbcPlayer):
    """Reports a capture on a square where it has no piece (a broken observation)."""

    def handle_opponent_move_result(self, captured_my_piece, capture_square):
        if self.turns == 2:
            capture_square = chess.A8 if self.color == chess.WHITE else chess.A1
        super().handle_opponent_move_result(captured_my_piece, capture_square)


def test_broken_observation_in_a_game_raises_engine_message():
    rbc = LyingAboutCaptures(engine="builtin", capacity=10_000, seconds=20, increment=0.5)
    with pytest.raises(RbcPipeError) as info:
        play(rbc, RandomBot(), True, 20, 0.5)
    assert "capture square" in info.value.message, info.value.message
    assert info.value.request["event"] == "opponent_move"
    assert rbc.process is not None and rbc.process.alive()
    assert rbc.close() == 0


def test_dead_process_raises_with_exit_code_and_stderr(tmp_path):
    missing = tmp_path / "no-stockfish-here"
    rbc = RbcPlayer(engine="stockfish", stockfish=str(missing))
    with pytest.raises(RbcProcessError) as info:
        rbc.handle_game_start(chess.WHITE, chess.Board(), "nobody")
    assert info.value.returncode == 2
    assert info.value.stderr.strip(), "stderr of the failed start is reported"
    assert "exit code 2" in str(info.value)
    rbc.close()


def test_missing_binary_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("RBC_BIN", str(tmp_path / "nothing"))
    with pytest.raises(rbc_reconchess.RbcError, match="RBC_BIN"):
        RbcPlayer().handle_game_start(chess.WHITE, chess.Board(), "nobody")


class ScriptedPlayer(RbcPlayer):
    """Answers from a script instead of a process (for the action checks)."""

    def __init__(self, replies):
        super().__init__()
        self.replies = list(replies)

    def send(self, obj):
        return self.replies.pop(0)


def test_answers_outside_the_actions_fall_back():
    board = chess.Board("8/4P3/8/8/8/8/8/4K2k w - - 0 1")
    from reconchess.utilities import move_actions
    actions = move_actions(board)
    assert chess.Move.from_uci("e7e8q") in actions
    p = ScriptedPlayer([{"move": "e7e8"}, {"move": "e7e8n"}, {"move": "a1a8"}, {"move": None},
                        {"sense": "z9"}, {"sense": "b2"}, {"sense": None}])
    # A plain last-rank pawn move is passed on as is (reconchess queens it).
    assert p.choose_move(actions, 10.0) == chess.Move.from_uci("e7e8")
    assert p.choose_move(actions, 10.0) == chess.Move.from_uci("e7e8n")
    assert p.rejected_actions == 0
    assert p.choose_move(actions, 10.0) is None
    assert p.rejected_actions == 1
    assert p.choose_move(actions, 10.0) is None
    assert p.choose_sense(list(chess.SQUARES), actions, 10.0) is None
    assert p.rejected_actions == 2
    assert p.choose_sense(list(chess.SQUARES), actions, 10.0) == chess.B2
    assert p.choose_sense(list(chess.SQUARES), actions, 10.0) is None
    assert p.min_seconds_left == 10.0


def test_track_arguments_merge(monkeypatch):
    monkeypatch.setenv("RBC_ARGS", "--engine builtin --memory 64MiB --seed=3")
    assert build_track_args() == ["--engine", "builtin", "--memory", "64MiB", "--seed=3"]
    assert build_track_args(engine="stockfish", capacity=5000, seed=9) == [
        "--engine", "stockfish", "--capacity", "5000", "--seed", "9"]
    assert build_track_args(extra_args=["--color", "white"], memory="1GiB") == [
        "--engine", "builtin", "--seed=3", "--color", "white", "--memory", "1GiB"]
    with pytest.raises(TypeError):
        build_track_args(colour="white")


def test_bot_file_loads_like_rc_bot_match(monkeypatch):
    monkeypatch.setenv("RBC_ARGS", "--engine builtin --capacity 100000")
    monkeypatch.setenv("RBC_SECONDS", "20")
    monkeypatch.setenv("RBC_INCREMENT", "0.5")
    name, cls = load_player(str(BRIDGE / "rbc_bot.py"))
    assert name == "RbcBot"
    assert issubclass(cls, RbcPlayer) and issubclass(cls, Player)
    bot = cls()
    assert bot.seconds == 20 and bot.increment == 0.5
    winner, reason, history, game = play(bot, RandomBot(), False, 20, 0.5)
    assert reason is not None and bot.rejected_actions == 0 and bot.process is None
    assert bot.engine_stats["engine"] == "builtin"


def test_rc_bot_match_script_runs_the_bot_file(tmp_path):
    env = dict(os.environ, RBC_ARGS="--engine builtin --capacity 100000")
    proc = subprocess.run(
        [sys.executable, "-m", "reconchess.scripts.rc_bot_match", str(BRIDGE / "rbc_bot.py"),
         "reconchess.bots.random_bot", "--seconds_per_player", "20"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    assert "Winner: " in proc.stdout and "ERROR" not in proc.stdout
    replays = list(tmp_path.glob("RbcBot-RandomBot-*.json"))
    assert len(replays) == 1


def test_elo_interval():
    e = match.elo_interval(30, 10, 10)
    assert e["score"] == pytest.approx(0.7)
    assert e["elo"] == pytest.approx(-400 * __import__("math").log10(1 / 0.7 - 1))
    assert e["elo_low"] < e["elo"] < e["elo_high"]
    even = match.elo_interval(5, 5, 0)
    assert even["elo"] == pytest.approx(0.0)
    assert even["elo_low"] == pytest.approx(-even["elo_high"])
    allwon = match.elo_interval(50, 0, 0)
    assert allwon["elo"] == float("inf") and allwon["elo_high"] == float("inf")
    assert allwon["elo_low"] == pytest.approx(match.elo_of_score(0.05 ** (1 / 50)))
    assert 400 < allwon["elo_low"] < 600
    alllost = match.elo_interval(0, 3, 0)
    assert alllost["elo_high"] == pytest.approx(-match.elo_of_score(0.05 ** (1 / 3)))


def test_match_script_json(tmp_path, capsys):
    hist = tmp_path / "hist"
    code = match.main(["--games", "2", "--opponents", "random", "--seconds", "20", "--increment",
                       "0.5", "--engine", "builtin", "--capacity", "100000", "--history-dir",
                       str(hist), "--json", "--quiet"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    s = out["summary"]["random"]
    assert s["games"] == 2 and s["errors"] == 0
    assert s["wins"] + s["losses"] + s["draws"] == 2
    assert s["rbc_timeout_losses"] == 0
    assert s["rbc_seconds_per_game_max"] is not None
    assert {g["rbc_color"] for g in out["games"]} == {"white", "black"}
    assert len(list(hist.glob("random-*.json"))) == 2
    assert len((hist / "games.jsonl").read_text().splitlines()) == 2
    # An interrupted match can be summarised from its log.
    assert match.main(["--summarize", str(hist)]) == 0
    assert "random: 2 games" in capsys.readouterr().out
    # A saved game re-tracks through `rbc track` with the analysis tool.
    from rbc_reconchess import analyze
    game = next(g for g in out["games"] if g["rbc_color"] == "black")
    assert analyze.main([game["history"], "--limit", "500"]) == 0
    text = capsys.readouterr().out
    assert "re-tracking black's belief" in text and "turn   1:" in text and "result:" in text
