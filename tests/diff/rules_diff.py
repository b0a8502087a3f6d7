#!/usr/bin/env python3
"""Differential rules test: rbc's rules oracle against the reconchess 1.6.9 arbiter.

Random games are played on ``reconchess.LocalGame`` (driven directly, no Player
objects).  Before every move, the true board is sent to ``rbc rules`` together
with every move request a player may make there (all of reconchess's
``move_actions``, each promotion also without its promotion letter, and the
pass).  rbc's answers are compared with what reconchess itself computes:

* ``actions``: the set of move actions, against ``utilities.move_actions``;
* per request: the taken move (``revise_move`` after ``add_pawn_queen_promotion``),
  the capture square (``capture_square_of_move``) and the FEN after the move
  (``board.push(taken or null)``, printed with ``fen(en_passant="fen")``).

Protocol of ``$RBC_BIN rules`` (JSON lines, one reply per request line):

    -> {"fen": "...", "requests": ["e2e4", "e7e8", null, ...]}
    <- {"actions": ["a2a3", ...],
        "results": [{"requested": "e2e4", "taken": "e2e4", "capture": null, "fen": "..."}, ...]}
    <- {"error": "message"}

Usage (scripts/setup-test-env.sh creates .venv; `cargo build --release` builds rbc):
    .venv/bin/python tests/diff/rules_diff.py --games 300 --seed 1 [--rbc PATH] [--save-games DIR]
    .venv/bin/python tests/diff/rules_diff.py --seed 1 --only 17   # replay game 17 of that run

The rbc binary is --rbc, else $RBC_BIN, else target/release/rbc under the repo root.
Game g of seed s is fully determined by (s, g).  --save-games writes one JSON file
per game (format "rbc-rules-diff-game/1"): every ply's true FEN before and after
the move, the capture square the mover was told about at the start of its turn,
its sense square and result (reconchess order), and its requested and taken move
and capture square.

The last line printed is "N passed, M failed" (plies without / with a mismatch).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import chess
import reconchess
from reconchess.utilities import (
    add_pawn_queen_promotion,
    capture_square_of_move,
    move_actions,
    revise_move,
)

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_RBC = REPO_ROOT / "target" / "release" / "rbc"
MAX_PRINTED_MISMATCHES = 20
ORACLE_TIMEOUT_S = 60.0
MAX_PLIES_PER_GAME = 3000  # safety net only; the 100-halfmove rule ends games long before
SLIDERS = (chess.ROOK, chess.BISHOP, chess.QUEEN)
RECONCHESS_VERSION = "1.6.9"  # the arbiter this harness (and its use of LocalGame internals) is written for


def default_rbc_path() -> Path:
    env = os.environ.get("RBC_BIN")
    return Path(env) if env else DEFAULT_RBC


def sq_name(square: Optional[int]) -> Optional[str]:
    return None if square is None else chess.SQUARE_NAMES[square]


def move_str(move: Optional[chess.Move]) -> Optional[str]:
    return None if move is None else move.uci()


# --------------------------------------------------------------------------- oracle


class OracleError(Exception):
    pass


class OracleGaveUp(Exception):
    pass


class Oracle:
    """One long-lived `rbc rules` subprocess speaking JSON lines."""

    def __init__(self, path: Path, timeout: float = ORACLE_TIMEOUT_S):
        self.path = Path(path)
        self.timeout = timeout
        self.proc: Optional[subprocess.Popen] = None
        self.buf = bytearray()
        self.start()

    def start(self) -> None:
        self.close()
        self.proc = subprocess.Popen(
            [str(self.path), "rules"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,  # inherited: panics and diagnostics go straight to our stderr
        )
        self.fd = self.proc.stdout.fileno()
        self.buf = bytearray()

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()

    def _exit_note(self) -> str:
        code = self.proc.poll() if self.proc else None
        return "still running" if code is None else f"exit code {code}"

    def _readline(self) -> bytes:
        while True:
            nl = self.buf.find(b"\n")
            if nl >= 0:
                line = bytes(self.buf[:nl])
                del self.buf[: nl + 1]
                return line
            ready, _, _ = select.select([self.fd], [], [], self.timeout)
            if not ready:
                raise OracleError(f"no reply within {self.timeout:.0f}s")
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                time.sleep(0.05)
                raise OracleError(f"oracle closed its stdout ({self._exit_note()})")
            self.buf += chunk

    def send(self, request: dict) -> None:
        line = json.dumps(request, separators=(",", ":")).encode() + b"\n"
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise OracleError(f"cannot write to oracle ({exc}; {self._exit_note()})") from None

    def receive(self) -> dict:
        raw = self._readline()
        try:
            reply = json.loads(raw)
        except ValueError:
            raise OracleError(f"reply is not JSON: {raw[:300]!r}") from None
        if not isinstance(reply, dict):
            raise OracleError(f"reply is not a JSON object: {raw[:300]!r}")
        return reply

    def query(self, request: dict) -> dict:
        self.send(request)
        return self.receive()


# --------------------------------------------------------------------------- reference


@dataclass(slots=True)
class Expected:
    """reconchess's answer to one request, plus the same as JSON strings."""
    request: Optional[chess.Move]
    taken: Optional[chess.Move]
    capture: Optional[int]
    fen: str
    request_s: Optional[str]
    taken_s: Optional[str]
    capture_s: Optional[str]

    def as_json(self) -> dict:
        return {"requested": self.request_s, "taken": self.taken_s, "capture": self.capture_s, "fen": self.fen}


_RANK_CACHE: Dict[tuple, str] = {}
_RANK_SYMBOLS = "pnbrqk"


def _rank_key(b: chess.Board, rank: int) -> tuple:
    """The contents of one rank, as the 8-bit slices of the piece bitboards."""
    sh = 8 * rank
    return ((b.pawns >> sh) & 255, (b.knights >> sh) & 255, (b.bishops >> sh) & 255,
            (b.rooks >> sh) & 255, (b.queens >> sh) & 255, (b.kings >> sh) & 255,
            (b.occupied_co[chess.WHITE] >> sh) & 255)


def _rank_fen(key: tuple) -> str:
    """FEN text of one rank (files a..h), e.g. '2p1P3'."""
    white = key[6]
    out, empty = [], 0
    for f in range(8):
        bit = 1 << f
        for sym, bb in zip(_RANK_SYMBOLS, key):
            if bb & bit:
                if empty:
                    out.append(str(empty))
                    empty = 0
                out.append(sym.upper() if white & bit else sym)
                break
        else:
            empty += 1
    if empty:
        out.append(str(empty))
    return "".join(out)


def rank_fens(b: chess.Board, ranks=range(8), base: Optional[List[str]] = None) -> List[str]:
    """FEN text of each rank (index = rank number); only `ranks` are recomputed from `base`."""
    out = list(base) if base is not None else [""] * 8
    for r in ranks:
        key = _rank_key(b, r)
        frag = _RANK_CACHE.get(key)
        if frag is None:
            frag = _RANK_CACHE[key] = _rank_fen(key)
        out[r] = frag
    return out


def fast_fen(b: chess.Board, ranks: Optional[List[str]] = None) -> str:
    """Equals b.fen(en_passant="fen") for standard-chess boards, several times faster.

    python-chess's board_fen() otherwise dominates the harness's run time.  The
    harness cross-checks this against python-chess on every ply (the position
    before the move and the position after the chosen move), and on every
    request with --check-fen.
    """
    if ranks is None:
        ranks = rank_fens(b)
    white = b.occupied_co[chess.WHITE]
    # Standard chess: castling rights only ever sit on a1/h1/a8/h8 with the king on
    # e1/e8, so X-FEN never needs file letters; a color without a king prints nothing.
    rights = b.clean_castling_rights()
    castling = ""
    if b.kings & white:
        castling += ("K" if rights & chess.BB_H1 else "") + ("Q" if rights & chess.BB_A1 else "")
    if b.kings & b.occupied_co[chess.BLACK]:
        castling += ("k" if rights & chess.BB_H8 else "") + ("q" if rights & chess.BB_A8 else "")
    ep = "-" if b.ep_square is None else chess.SQUARE_NAMES[b.ep_square]
    return (f"{ranks[7]}/{ranks[6]}/{ranks[5]}/{ranks[4]}/{ranks[3]}/{ranks[2]}/{ranks[1]}/{ranks[0]}"
            f" {'w' if b.turn else 'b'} {castling or '-'} {ep} {b.halfmove_clock} {b.fullmove_number}")


def reference(board: chess.Board, rng: random.Random,
              check_fen: bool = False) -> Tuple[List[str], List[Expected]]:
    """What reconchess says for every request a player can make on `board`."""
    actions = move_actions(board)
    requests: List[Optional[chess.Move]] = []
    seen = set()
    for m in actions:
        if m not in seen:
            seen.add(m)
            requests.append(m)
    for m in actions:
        if m.promotion is not None:  # only pawn moves onto the last rank carry one
            plain = chess.Move(m.from_square, m.to_square)
            if plain not in seen:
                seen.add(plain)
                requests.append(plain)
    requests.append(None)
    rng.shuffle(requests)  # the oracle must answer in request order, whatever it is

    after: Dict[Optional[chess.Move], tuple] = {}
    expected = []
    base_ranks = rank_fens(board)
    for req in requests:
        taken = None if req is None else revise_move(board, add_pawn_queen_promotion(board, req))
        hit = after.get(taken)
        if hit is None:
            board.push(chess.Move.null() if taken is None else taken)
            try:
                # A move only changes the ranks of its from- and to-squares (castling
                # rook and en-passant victim included); a null move changes none.
                touched = () if taken is None else {taken.from_square >> 3, taken.to_square >> 3}
                fen = fast_fen(board, rank_fens(board, touched, base_ranks))
                if check_fen:
                    slow = board.fen(en_passant="fen")
                    if fen != slow:
                        raise AssertionError(f"harness bug: fast_fen {fen!r} != python-chess {slow!r}")
            finally:
                board.pop()
            capture = capture_square_of_move(board, taken)
            hit = after[taken] = (capture, fen, move_str(taken), sq_name(capture))
        expected.append(Expected(req, taken, hit[0], hit[1], move_str(req), hit[2], hit[3]))
    action_strs = sorted({m.uci() for m in actions})
    return action_strs, expected


# --------------------------------------------------------------------------- players

# Request categories a policy can prefer.  Each ply, the policy draws a category
# by weight and then a uniform request inside it (falling back to all requests).
CATEGORIES = ("uniform", "capture", "long", "cut", "fail", "castle", "ep", "ep-offer", "pawn-to-5th",
              "promo", "pawn", "pass")

POLICIES: Dict[str, Dict[str, float]] = {
    "uniform": {"uniform": 1},
    "capture-greedy": {"capture": 8, "uniform": 1},
    "slide-greedy": {"long": 5, "cut": 4, "capture": 1, "uniform": 1},
    "pawn-storm": {"pawn": 4, "pawn-to-5th": 4, "ep-offer": 6, "promo": 6, "ep": 10, "capture": 1, "uniform": 1},
    "special": {"castle": 10, "ep": 10, "ep-offer": 3, "promo": 6, "fail": 2, "capture": 1, "uniform": 2},
    "chaos": {"fail": 3, "pass": 1, "cut": 1, "capture": 1, "uniform": 2},
}


def random_policy(rng: random.Random) -> Tuple[str, Dict[str, float]]:
    if rng.random() < 0.2:
        return "mixed", {c: rng.random() ** 2 for c in CATEGORIES}
    name = rng.choice(sorted(POLICIES))
    return name, POLICIES[name]


def categorize(board: chess.Board, exp: Expected, opp_king: Optional[int]) -> List[str]:
    """Tags of one request: policy categories plus a few detail tags for the coverage tally."""
    req, taken = exp.request, exp.taken
    if req is None:
        return ["pass"]
    cats = []
    if exp.capture is not None:
        cats.append("capture")
        if exp.capture == opp_king:
            cats.append("king-capture")
    if taken is None:
        cats.append("fail")
    elif taken.to_square != req.to_square:
        cats.append("cut")
    piece = board.piece_type_at(req.from_square)
    if piece in SLIDERS and chess.square_distance(req.from_square, req.to_square) >= 3:
        cats.append("long")
    elif piece == chess.KING and abs((req.from_square & 7) - (req.to_square & 7)) == 2:
        cats.append("castle")
        if taken is not None:
            # castling out of / through check is legal in RBC but not pseudo-legal in python-chess
            cats.append("castle-done" if board.is_pseudo_legal(taken) else "castle-through-check")
    elif piece == chess.PAWN:
        cats.append("pawn")
        if req.to_square >> 3 in (0, 7):
            cats.append("promo")
            if req.promotion is None:
                cats.append("promo-implicit")
            elif req.promotion != chess.QUEEN:
                cats.append("underpromo")
        if taken is not None:
            if board.is_en_passant(taken):
                cats.append("ep")
            elif abs(taken.to_square - taken.from_square) == 16:
                # a double step landing beside an enemy pawn offers an en-passant capture
                beside = chess.BB_SQUARES[taken.to_square] << 1 & ~chess.BB_FILE_A | \
                    chess.BB_SQUARES[taken.to_square] >> 1 & ~chess.BB_FILE_H
                if beside & board.pawns & board.occupied_co[not board.turn]:
                    cats.append("ep-offer")
            elif taken.to_square >> 3 == (4 if board.turn else 3):
                cats.append("pawn-to-5th")
    return cats


def choose_request(
    expected: List[Expected],
    tags: List[List[str]],
    weights: Dict[str, float],
    avoid_king_capture: bool,
    rng: random.Random,
) -> int:
    """Index into `expected` of the request the policy makes."""
    pool = range(len(expected))
    if avoid_king_capture:
        pool = [i for i in pool if "king-capture" not in tags[i]] or pool
    buckets: Dict[str, List[int]] = {"uniform": list(pool)}
    for i in pool:
        for c in tags[i]:
            buckets.setdefault(c, []).append(i)
    names = [c for c in weights if weights[c] > 0 and buckets.get(c)]
    if not names:
        return rng.choice(buckets["uniform"])
    cat = rng.choices(names, weights=[weights[c] for c in names])[0]
    return rng.choice(buckets[cat])


# --------------------------------------------------------------------------- run


@dataclass
class Summary:
    games: int = 0
    plies: int = 0
    requests: int = 0
    mismatches: int = 0
    failed_plies: int = 0
    printed: int = 0
    seconds: float = 0.0
    aborted: Optional[str] = None
    coverage: Dict[str, int] = field(default_factory=dict)  # request tags, over all requests checked
    played: Dict[str, int] = field(default_factory=dict)  # request tags of the moves played, and game ends

    @property
    def passed_plies(self) -> int:
        return self.plies - self.failed_plies

    def bump(self, key: str) -> None:
        self.coverage[key] = self.coverage.get(key, 0) + 1

    def bump_played(self, key: str) -> None:
        self.played[key] = self.played.get(key, 0) + 1


class Reporter:
    def __init__(self, summary: Summary, seed: int, out: Callable[[str], None]):
        self.summary, self.seed, self.out = summary, seed, out

    def mismatch(self, game: int, ply: int, fen: str, what: str, lines: List[str]) -> None:
        s = self.summary
        s.mismatches += 1
        if s.printed >= MAX_PRINTED_MISMATCHES:
            if s.printed == MAX_PRINTED_MISMATCHES:
                self.out("(further mismatches are counted but not printed)")
                s.printed += 1
            return
        s.printed += 1
        self.out(f"MISMATCH seed={self.seed} game={game} ply={ply}: {what}")
        self.out(f"  fen:      {fen}")
        for line in lines:
            self.out(f"  {line}")
        self.out(f"  rerun:    .venv/bin/python tests/diff/rules_diff.py --seed {self.seed} --only {game}")


def compare(reply: dict, actions: List[str], expected: List[Expected], game: int, ply: int,
            fen: str, request_json: list, rep: Reporter) -> bool:
    """Returns True when rbc's reply matches reconchess exactly."""
    ok = True
    if "error" in reply:
        rep.mismatch(game, ply, fen, "oracle returned an error",
                     [f"requests: {json.dumps(request_json)}", f"error:    {reply['error']}"])
        return False

    got_actions = reply.get("actions")
    if not isinstance(got_actions, list):
        rep.mismatch(game, ply, fen, "reply has no 'actions' list", [f"reply: {json.dumps(reply)[:2000]}"])
        ok = False
    else:
        got = sorted({a if isinstance(a, str) else json.dumps(a) for a in got_actions})
        if got != actions:
            missing = sorted(set(actions) - set(got))
            extra = sorted(set(got) - set(actions))
            rep.mismatch(game, ply, fen, "move actions differ", [
                f"missing in rbc: {missing}",
                f"extra in rbc:   {extra}",
                f"reconchess: {actions}",
                f"rbc:        {got}",
            ])
            ok = False

    results = reply.get("results")
    if not isinstance(results, list) or len(results) != len(expected):
        n = len(results) if isinstance(results, list) else None
        rep.mismatch(game, ply, fen, f"reply has {n} results for {len(expected)} requests",
                     [f"requests: {json.dumps(request_json)}", f"reply: {json.dumps(reply)[:2000]}"])
        return False
    for exp, got in zip(expected, results):
        if (type(got) is dict and len(got) == 4 and got.get("fen") == exp.fen
                and got.get("taken", 0) == exp.taken_s and got.get("capture", 0) == exp.capture_s
                and got.get("requested", 0) == exp.request_s):
            continue
        want = exp.as_json()
        if got != want:
            rep.mismatch(game, ply, fen, f"request {json.dumps(want['requested'])}", [
                f"request:    {json.dumps(want['requested'])}",
                f"reconchess: {json.dumps(want)}",
                f"rbc:        {json.dumps(got)}",
            ])
            ok = False
    return ok


def play_game(game_no: int, seed: int, oracle: Oracle, summary: Summary, rep: Reporter,
              save_dir: Optional[Path], check_fen: bool = False) -> None:
    rng = random.Random(f"rules_diff:{seed}:{game_no}")
    policies = {chess.WHITE: random_policy(rng), chess.BLACK: random_policy(rng)}
    # Chance to allow a king capture whenever one is available.  Most games end
    # naturally (~80 plies); the rest steer around king captures so that long
    # games reach sparse endgames, promotions and the 100-halfmove limit.
    king_capture_prob = rng.choices((1.0, 0.3, 0.05, 0.0), weights=(45, 25, 15, 15))[0]
    sense_none_prob = 0.1

    game = reconchess.LocalGame(seconds_per_player=None, seconds_increment=None)  # None = unlimited
    game.start()
    # LocalGame already prints the FEN before and after every move into its history;
    # reuse those (python-chess FEN printing is slow) and check fast_fen against them.
    history = game._LocalGame__game_history
    fen = game.board.fen(en_passant="fen")
    plies = []
    ply = 0
    consecutive_oracle_errors = 0
    while not game.is_over() and ply < MAX_PLIES_PER_GAME:
        board = game.board
        turn = board.turn
        opp_capture = game.opponent_move_results()

        sense_sq = None if rng.random() < sense_none_prob else rng.randrange(64)
        sense_result = game.sense(sense_sq)

        if fast_fen(board) != fen:
            raise AssertionError(f"harness bug: fast_fen {fast_fen(board)!r} != python-chess {fen!r}")
        actions, expected = reference(board, rng, check_fen)
        request_json = [e.request_s for e in expected]
        summary.plies += 1
        summary.requests += len(expected)
        # One request in flight: rbc works on it while this process plays the move.
        try:
            oracle.send({"fen": fen, "requests": request_json})
            send_error = None
        except OracleError as exc:
            send_error = exc

        opp_king = board.king(not turn)
        tags = [categorize(board, e, opp_king) for e in expected]
        for t in tags:
            for c in t:
                summary.bump(c)
        # Games that end on the first king capture are short; often steer around it.
        avoid_king_capture = rng.random() >= king_capture_prob
        i = choose_request(expected, tags, policies[turn][1], avoid_king_capture, rng)
        choice = expected[i]
        for c in tags[i]:
            summary.bump_played(c)

        requested, taken, capture = game.move(choice.request)
        fen_after = history._fens_after_move[turn][-1]
        # The harness's own reference must agree with the arbiter it wraps.
        if (taken != choice.taken or capture != choice.capture or fen_after != choice.fen
                or history._fens_before_move[turn][-1] != fen):
            raise AssertionError(
                f"harness bug: reference disagrees with LocalGame at game {game_no} ply {ply} fen {fen}: "
                f"request {move_str(requested)} -> LocalGame ({move_str(taken)}, {sq_name(capture)}, "
                f"{fen_after}), reference {json.dumps(choice.as_json())}")
        game.end_turn()

        # rbc's answers (about the position before the move; `expected` holds ours).
        try:
            if send_error is not None:
                raise send_error
            reply = oracle.receive()
            consecutive_oracle_errors = 0
            ok = compare(reply, actions, expected, game_no, ply, fen, request_json, rep)
        except OracleError as exc:
            consecutive_oracle_errors += 1
            rep.mismatch(game_no, ply, fen, f"oracle failure: {exc}",
                         [f"requests: {json.dumps(request_json)}"])
            ok = False
            if consecutive_oracle_errors >= 3:
                summary.failed_plies += 1
                raise OracleGaveUp(f"`{oracle.path} rules` failed 3 times in a row, last: {exc}")
            oracle.start()
        if not ok:
            summary.failed_plies += 1

        if save_dir is not None:
            plies.append({
                "ply": ply,
                "color": "w" if turn == chess.WHITE else "b",
                "fen": fen,
                "opponent_capture": sq_name(opp_capture),
                "sense": sq_name(sense_sq),
                "sense_result": [[sq_name(s), None if p is None else p.symbol()] for s, p in sense_result],
                "requested": move_str(requested),
                "taken": move_str(taken),
                "capture": sq_name(capture),
                "fen_after": fen_after,
            })
        ply += 1
        fen = fen_after

    winner = game.get_winner_color()
    reason = game.get_win_reason()
    if ply >= MAX_PLIES_PER_GAME and not game.is_over():
        reason_name = "PLY_CAP"
    else:
        reason_name = reason.name if reason is not None else "DRAW"
    summary.bump_played("end-" + reason_name)
    summary.games += 1

    if save_dir is not None:
        record = {
            "format": "rbc-rules-diff-game/1",
            "seed": seed,
            "game": game_no,
            "policies": {"w": policies[chess.WHITE][0], "b": policies[chess.BLACK][0]},
            "king_capture_prob": king_capture_prob,
            "plies": plies,
            "final_fen": game.board.fen(en_passant="fen"),
            "winner": None if winner is None else ("w" if winner == chess.WHITE else "b"),
            "end_reason": reason_name,
        }
        with open(save_dir / f"game-{seed}-{game_no:05d}.json", "w") as f:
            json.dump(record, f, separators=(",", ":"))
            f.write("\n")


def run(games: int, seed: int, rbc: Optional[Path] = None, save_dir: Optional[Path] = None,
        only: Optional[int] = None, out: Callable[[str], None] = print,
        check_fen: bool = False) -> Summary:
    rbc = Path(rbc) if rbc is not None else default_rbc_path()
    if not (rbc.is_file() and os.access(rbc, os.X_OK)):
        raise FileNotFoundError(
            f"rbc binary not found (or not executable) at {rbc}: run `cargo build --release` first "
            f"(or point RBC_BIN / --rbc at the binary)")
    if save_dir is not None:
        save_dir = Path(save_dir)
        save_dir.mkdir(parents=True, exist_ok=True)

    from importlib.metadata import version
    if version("reconchess") != RECONCHESS_VERSION:
        out(f"rules_diff: WARNING: reconchess {version('reconchess')} installed, "
            f"the reference is {RECONCHESS_VERSION} (run scripts/setup-test-env.sh)")
    summary = Summary()
    rep = Reporter(summary, seed, out)
    oracle = Oracle(rbc)
    t0 = time.perf_counter()
    try:
        numbers = [only] if only is not None else range(games)
        for g in numbers:
            play_game(g, seed, oracle, summary, rep, save_dir, check_fen)
    except OracleGaveUp as exc:
        summary.aborted = str(exc)
        out(f"rules_diff: ABORTED: {exc}")
    finally:
        oracle.close()
        summary.seconds = time.perf_counter() - t0
    return summary


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, help="number of games (default 200)")
    ap.add_argument("--seed", type=int, default=0, help="run seed; game g uses the seed (seed, g)")
    ap.add_argument("--rbc", type=Path, default=None,
                    help=f"rbc binary (default: $RBC_BIN, else {DEFAULT_RBC.relative_to(REPO_ROOT)} in the repo)")
    ap.add_argument("--save-games", type=Path, default=None, metavar="DIR",
                    help="write every game as JSON into DIR")
    ap.add_argument("--only", type=int, default=None, metavar="GAME",
                    help="play only game number GAME of this seed (to reproduce a mismatch)")
    ap.add_argument("--check-fen", action="store_true",
                    help="also check the harness's fast FEN printer against python-chess on every request")
    args = ap.parse_args(argv)

    try:
        s = run(args.games, args.seed, args.rbc, args.save_games, args.only, check_fen=args.check_fen)
    except FileNotFoundError as exc:
        print(f"rules_diff: {exc}", file=sys.stderr)
        return 2
    cov = " ".join(f"{k}={v}" for k, v in sorted(s.coverage.items()))
    played = " ".join(f"{k}={v}" for k, v in sorted(s.played.items()))
    rate = f"{s.games / s.seconds:.1f} games/s, {s.plies / s.seconds:.0f} plies/s" if s.seconds > 0 else ""
    print(f"requests checked, by kind: {cov}")
    print(f"moves played, by kind: {played}")
    print(f"timing: {s.seconds:.2f}s, {rate}")
    print(f"rules_diff: {s.games} games, {s.plies} plies, {s.requests} requests checked, "
          f"{s.mismatches} mismatches")
    print(f"{s.passed_plies} passed, {s.failed_plies} failed")
    return 1 if (s.mismatches or s.aborted) else 0


if __name__ == "__main__":
    sys.exit(main())
