"""rbc track against the real reconchess arbiter.

Random games are played on reconchess's LocalGame; each side's observations
(exactly what reconchess hands a player) are piped into its own `rbc track`
process. After every event the true board must be active, or waiting in the
stash as it stood when it was stashed (`contains` with the true history:
`recoverable`), unless the stash itself dropped boards; and while the
consistent set is small, `count` must equal a brute-force python-chess
tracker built from reconchess's own move_actions/revise_move.
"""
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import chess
import pytest
from reconchess import LocalGame

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import pytracker_baseline as ref  # noqa: E402

RBC = os.environ.get("RBC_BIN", str(ROOT / "target" / "release" / "rbc"))
BRUTE_LIMIT = 3000


def fen(board):
    """Full FEN with the en-passant square after every double step."""
    return board.fen(en_passant="fen")


def xkey(board):
    return board.fen(en_passant="xfen").rsplit(" ", 2)[0]


class Track:
    def __init__(self):
        if not Path(RBC).exists():
            pytest.fail(f"{RBC} is missing: run `cargo build --release` first")
        self.p = subprocess.Popen([RBC, "track", "--capacity", "200000", "--engine", "builtin"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(self, obj):
        self.p.stdin.write(json.dumps(obj) + "\n")
        self.p.stdin.flush()
        reply = json.loads(self.p.stdout.readline())
        assert "error" not in reply, (obj, reply)
        return reply

    def close(self):
        self.p.stdin.close()
        assert self.p.wait(timeout=30) == 0


class Side:
    """One colour's tracker and its brute-force reference."""

    def __init__(self, color):
        self.color = color
        self.track = Track()
        self.track.send({"event": "game_start", "color": "white" if color else "black"})
        self.boards = [chess.Board()]  # the reference, while small
        self.our_turn = color == chess.WHITE
        # The true position before each observation the tracker logs.
        self.history = []
        self.before_opponent = fen(chess.Board())

    def check(self, truth, what):
        count = self.track.send({"query": "count"})
        reply = self.track.send({"query": "contains", "fen": truth.fen(), "history": self.history})
        # Only a drop (the stash itself full) may lose the true board; a
        # sampled expansion may stash its ancestor.
        assert reply["recoverable"] or count["dropped"] > 0, (what, truth.fen(), count)
        if self.boards is not None and count["stashed"] == 0 and count["dropped"] == 0:
            # Exactly the boards of the brute-force tracker, both keyed by
            # X-FEN identity.
            fens = self.track.send({"query": "boards", "limit": BRUTE_LIMIT * 40})["fens"]
            mine = {xkey(chess.Board(f)) for f in fens}
            theirs = {xkey(b) for b in self.boards}
            assert theirs == mine, (what, truth.fen(), sorted(theirs - mine)[:3], sorted(mine - theirs)[:3])
            assert count["boards"] == len(fens) == len(theirs)

    def opponent_move(self, capture, truth):
        if not self.our_turn:
            # (White's opening report changes nothing and is not logged.)
            self.history.append(self.before_opponent)
        self.track.send({"event": "opponent_move",
                         "capture_square": None if capture is None else chess.square_name(capture)})
        if not self.our_turn and self.boards is not None:
            self.boards, _ = ref.expand(self.boards, capture)
            if len(self.boards) > BRUTE_LIMIT:
                self.boards = None
        self.our_turn = True
        self.check(truth, "opponent_move")

    def sense(self, result, truth):
        self.history.append(fen(truth))
        self.track.send({"event": "sense_result",
                         "result": [[chess.square_name(s), p.symbol() if p else None] for s, p in result]})
        if self.boards is not None:
            self.boards = ref.sense_filter(self.boards, result)
        self.check(truth, "sense_result")

    def move(self, requested, taken, capture, before, truth):
        self.history.append(before)
        self.before_opponent = fen(truth)
        self.track.send({"event": "move_result",
                         "requested": requested.uci() if requested else None,
                         "taken": taken.uci() if taken else None,
                         "capture_square": None if capture is None else chess.square_name(capture)})
        if self.boards is not None:
            self.boards = ref.move_filter(self.boards, requested, taken, capture)
        self.our_turn = False
        self.check(truth, "move_result")


def play(seed, max_turns=60):
    rng = random.Random(seed)
    game = LocalGame(seconds_per_player=None)
    sides = {chess.WHITE: Side(chess.WHITE), chess.BLACK: Side(chess.BLACK)}
    game.start()
    turns = 0
    while not game.is_over() and turns < max_turns:
        side = sides[game.turn]
        side.opponent_move(game.opponent_move_results(), game.board)
        # Sense where rbc would (a random square or none now and then).
        if rng.random() < 0.15:
            sq = rng.choice(list(chess.SQUARES) + [None])
        else:
            name = side.track.send({"query": "sense", "seconds_left": 900})["sense"]
            sq = None if name is None else chess.parse_square(name)
        side.sense(game.sense(sq), game.board)
        actions = game.move_actions()
        captures = [m for m in actions if game.board.piece_at(m.to_square)]
        if captures and rng.random() < 0.5:
            req = rng.choice(captures)
        else:
            req = rng.choice(actions + [None])
        before = fen(game.board)
        requested, taken, capture = game.move(req)
        side.move(requested, taken, capture, before, game.board)
        game.end_turn()
        turns += 1
    for s in sides.values():
        s.track.close()
    return turns


@pytest.mark.parametrize("seed", range(8))
def test_track_follows_reconchess_games(seed):
    assert play(seed) > 0
