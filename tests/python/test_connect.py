"""`rbc connect` and `rbc play-remote` against a local reconchess-compatible server.

The server (tests/server/rbc_test_server.py) speaks the HTTP API of reconchess
1.6.9's RemoteGame and rc-connect, arbitrates with reconchess's own LocalGame
and plays reconchess's RandomBot and AttackerBot. It listens on 127.0.0.1 on a
free port, stops by itself once its games are over (or after a time limit)
and writes what LocalGame recorded; these tests check that rbc reports the
same results, plays games concurrently, survives injected faults (500s, slow
replies, dropped connections, hung requests), fails clearly on a bad
password, and winds down on Ctrl-C.

Needs the release binary: run `cargo build --release` first (or set RBC_BIN).
"""

import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from reconchess import GameHistory

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "server" / "rbc_test_server.py"
USER, PASSWORD = "rbc", "s3cret-pw"
RESULT = re.compile(r"^\[game (\S+)\] result: (win|loss|draw) \(winner=(\w+) reason=(\w+) us=(\w+) ")

# Short games: a small clock, a turn limit, a small belief and fast polling.
GAME_ARGS = ["--seconds", "30", "--increment", "1", "--turn-limit", "30"]
RBC_FAST = ["--engine", "builtin", "--capacity", "20000", "--poll-interval", "0.05"]


def rbc_binary() -> Path:
    rbc = Path(os.environ.get("RBC_BIN", ROOT / "target" / "release" / "rbc"))
    if not (rbc.is_file() and os.access(rbc, os.X_OK)):
        pytest.fail(f"rbc binary not found at {rbc}: run `cargo build --release` first "
                    f"(or set RBC_BIN to the binary)", pytrace=False)
    return rbc


class Server:
    """The test server as a subprocess; a context manager that always stops it."""

    def __init__(self, tmp_path, *args, max_runtime=240):
        self.results_path = tmp_path / "server-results.json"
        self.stderr_path = tmp_path / "server-stderr.txt"
        self.cmd = [sys.executable, str(SERVER), "--host", "127.0.0.1", "--port", "0",
                    "--username", USER, "--password", PASSWORD, "--max-runtime", str(max_runtime),
                    "--results", str(self.results_path), *map(str, args)]

    def __enter__(self):
        self.stderr = open(self.stderr_path, "w")
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        ready, _, _ = select.select([self.proc.stdout], [], [], 60)
        assert ready, "the test server did not start"
        self.info = json.loads(self.proc.stdout.readline())
        self.url = f"http://127.0.0.1:{self.info['port']}"
        return self

    def wait(self, timeout=120):
        """Waits for the server to stop by itself; returns its summary."""
        self.proc.wait(timeout=timeout)
        return json.loads(self.results_path.read_text())

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc.stdout.close()
        self.stderr.close()

    def stderr_text(self):
        return self.stderr_path.read_text()


def rbc_env(password=PASSWORD):
    env = dict(os.environ)
    env["RBC_PASSWORD"] = password
    return env


def run_rbc(args, password=PASSWORD, timeout=240):
    return subprocess.run([str(rbc_binary()), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, env=rbc_env(password), stdin=subprocess.DEVNULL)


def rbc_results(stderr):
    """game id -> (outcome, winner, reason, our colour) from rbc's result lines."""
    out = {}
    for line in stderr.splitlines():
        m = RESULT.match(line)
        if m:
            gid, outcome, winner, reason, us = m.groups()
            assert gid not in out, f"two results for game {gid}"
            out[gid] = (outcome, winner, reason, us)
    return out


def check_results_agree(summary, stderr, expected_games):
    """Every game is over and rbc reports what the server's LocalGame recorded."""
    assert summary["completed"], summary
    games = summary["games"]
    assert len(games) == expected_games, games
    reported = rbc_results(stderr)
    assert sorted(reported) == sorted(str(g["game_id"]) for g in games), (reported, games)
    for g in games:
        assert g["over"] and g["started"], g
        assert not g["error_resigned"], g
        assert g["opponent_error"] is None, g
        outcome, winner, reason, us = reported[str(g["game_id"])]
        assert us == g["rbc_color"], (g, reported)
        assert winner == (g["winner"] or "none"), (g, reported)
        assert reason == (g["reason"] or "none"), (g, reported)
        expected = "draw" if g["winner"] is None else ("win" if g["winner"] == us else "loss")
        assert outcome == expected, (g, reported)
        assert g["rbc_turns"] >= 1, g


def connect_args(server, *extra):
    return ["connect", "--server-url", server.url, "--username", USER, "--max-concurrent-games", 2,
            "--invitation-poll", "0.2", *RBC_FAST, *extra]


def test_connect_plays_concurrent_games_to_the_end(tmp_path):
    with Server(tmp_path, "--games", 4, "--opponents", "random,attacker", *GAME_ARGS) as server:
        proc = run_rbc(connect_args(server, "--max-games", 4, "--save-games", tmp_path / "games"))
        assert proc.returncode == 0, proc.stderr
        summary = server.wait()
    check_results_agree(summary, proc.stderr, 4)
    assert all(g["finished"] for g in summary["games"]), summary["games"]
    assert summary["max_active"] == 2, "two games should have run at once"
    assert summary["max_games_posts"] == [2]
    assert summary["ranked_posts"] == [False]
    assert summary["unauthorized"] == 0
    assert {g["opponent"] for g in summary["games"]} == {"RandomBot", "AttackerBot"}
    assert {g["rbc_color"] for g in summary["games"]} == {"white", "black"}
    # One line per turn, and the final tally.
    for g in summary["games"]:
        assert re.search(rf"^\[game {g['game_id']}\] turn 1 .*sense .*move .*boards ", proc.stderr, re.M)
    assert re.search(r"^rbc: 4 game\(s\) played: ", proc.stderr, re.M), proc.stderr
    # The saved histories are reconchess's and agree with the server.
    for g in summary["games"]:
        history = GameHistory.from_file(str(tmp_path / "games" / f"game-{g['game_id']}.json"))
        winner = history.get_winner_color()
        assert (None if winner is None else ("white" if winner else "black")) == g["winner"]
    assert PASSWORD not in proc.stderr + proc.stdout


def test_connect_survives_injected_faults(tmp_path):
    # Slow answers come well within the client's time-out, hung ones well past
    # it (and are never processed), so no request is applied twice.
    faults = ["--fail-rate", 0.04, "--drop-rate", 0.02, "--slow-rate", 0.02, "--slow-seconds", 0.2,
              "--hang-rate", 0.005, "--hang-seconds", 3, "--seed", 7]
    with Server(tmp_path, "--games", 3, *GAME_ARGS, *faults) as server:
        proc = run_rbc(connect_args(server, "--max-games", 3, "--request-timeout", 1.5))
        assert proc.returncode == 0, proc.stderr
        summary = server.wait()
    check_results_agree(summary, proc.stderr, 3)
    assert all(g["finished"] for g in summary["games"]), summary["games"]
    injected = summary["faults"]
    assert all(injected[k] > 0 for k in ("fail", "drop", "slow", "hang")), injected
    assert "HTTP 500; retrying" in proc.stderr
    assert "timeout" in proc.stderr.lower()
    assert "fatal" not in proc.stderr and "panicked" not in proc.stderr


def test_bad_password_fails_fast_with_a_clear_message(tmp_path):
    with Server(tmp_path, "--games", 1, max_runtime=30) as server:
        started = time.monotonic()
        proc = run_rbc(connect_args(server), password="not-the-password", timeout=60)
        elapsed = time.monotonic() - started
    assert proc.returncode != 0
    assert "authentication failed (HTTP 401)" in proc.stderr, proc.stderr
    assert "RBC_PASSWORD" in proc.stderr
    assert "not-the-password" not in proc.stderr + proc.stdout
    assert "panicked" not in proc.stderr
    assert elapsed < 20, f"a 401 must not be retried ({elapsed:.1f} s)"


def test_play_remote_plays_one_game_by_id(tmp_path):
    # The server also reports another reconchess version: rbc says so and plays on.
    with Server(tmp_path, "--games", 0, "--direct-games", 1, "--opponents", "random",
                "--first-color", "black", "--server-version", "1.7.0", *GAME_ARGS) as server:
        (game_id,) = server.info["games"]
        proc = run_rbc(["play-remote", "--server-url", server.url, "--username", USER,
                        "--game-id", game_id, *RBC_FAST])
        assert proc.returncode == 0, proc.stderr
        summary = server.wait()
    check_results_agree(summary, proc.stderr, 1)
    assert summary["games"][0]["rbc_color"] == "black"
    assert "server runs reconchess 1.7.0" in proc.stderr


def test_ctrl_c_unranks_and_lets_running_games_finish(tmp_path):
    with Server(tmp_path, "--games", 2, *GAME_ARGS) as server:
        proc = subprocess.Popen(
            [str(rbc_binary()), *map(str, connect_args(server, "--ranked", "--keep-version"))],
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
            text=True, env=rbc_env())
        lines = []
        both_playing = threading.Event()

        def read():
            for line in proc.stderr:
                lines.append(line)
                if sum(" turn 1 " in seen for seen in lines) >= 2:
                    both_playing.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            assert both_playing.wait(60), "".join(lines)
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=120) == 0, "".join(lines)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        reader.join(10)
        summary = server.wait()
    stderr = "".join(lines)
    assert "interrupted" in stderr, stderr
    check_results_agree(summary, stderr, 2)
    assert all(g["finished"] for g in summary["games"])
    assert summary["ranked_posts"] == [True, False], summary["ranked_posts"]
    assert summary["version"] == 1, "a first ranked run starts version 1"
