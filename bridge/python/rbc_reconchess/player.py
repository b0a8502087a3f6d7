"""`RbcPlayer`: a reconchess Player whose every decision comes from `rbc track`."""

import logging
import os
import time
from typing import List, Optional, Sequence, Tuple

import chess
from reconchess import Player, WinReason

from .process import RbcError, TrackProcess, build_track_args, find_rbc_binary

__all__ = ["RbcPlayer", "DEFAULT_SECONDS", "DEFAULT_INCREMENT"]

log = logging.getLogger("rbc_reconchess")

# reconchess's LocalGame defaults (also rc-bot-match's and the server's clock).
DEFAULT_SECONDS = 900.0
DEFAULT_INCREMENT = 5.0


def _env_float(name: str, default: float) -> float:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise RbcError("{}={!r} is not a number".format(name, value)) from None


def _square(square: Optional[int]) -> Optional[str]:
    return None if square is None else chess.square_name(square)


def _uci(move: Optional[chess.Move]) -> Optional[str]:
    # A null move (reconchess never sends one, but be safe) is a pass.
    return None if not move else move.uci()


class RbcPlayer(Player):
    """A reconchess Player that relays every callback to a `rbc track` child.

    The binary is `rbc_bin`, else $RBC_BIN, else `rbc` on PATH, else the
    repository's target/release/rbc. Arguments of `rbc track` come from
    $RBC_ARGS, then `extra_args`, then the keyword options (`engine`,
    `capacity`, `memory`, `seed`, `stockfish`), the later replacing the earlier.

    `seconds` and `increment` describe the game clock for rbc's time manager
    (reconchess does not tell a player its clock before the first decision);
    they default to $RBC_SECONDS / $RBC_INCREMENT, else 900 and 5.

    The process is started at `handle_game_start` and closed at
    `handle_game_end` (or by `close()`, garbage collection or interpreter exit).
    An error reply from the pipe raises `RbcPipeError` with the engine's
    message; a dead process raises `RbcProcessError` with its exit code and
    the tail of its stderr.

    Instrumentation for matches: `seconds_used` (wall time spent in the timed
    callbacks, i.e. on our clock), `turns`, `max_turn_seconds`,
    `min_seconds_left` (lowest clock seen at a decision) and
    `rejected_actions` (answers that were not legal actions and were replaced).
    """

    def __init__(
        self,
        rbc_bin: Optional[str] = None,
        engine: Optional[str] = None,
        capacity: Optional[int] = None,
        memory: Optional[str] = None,
        seed: Optional[int] = None,
        stockfish: Optional[str] = None,
        extra_args: Sequence[str] = (),
        seconds: Optional[float] = None,
        increment: Optional[float] = None,
    ):
        self.rbc_bin = rbc_bin
        self.track_args = build_track_args(
            extra_args=extra_args,
            engine=engine,
            capacity=capacity,
            memory=memory,
            seed=seed,
            stockfish=stockfish,
        )
        self.seconds = _env_float("RBC_SECONDS", DEFAULT_SECONDS) if seconds is None else float(seconds)
        self.increment = (
            _env_float("RBC_INCREMENT", DEFAULT_INCREMENT) if increment is None else float(increment)
        )
        self.process: Optional[TrackProcess] = None
        self.color: Optional[bool] = None
        self.last_reply: Optional[dict] = None
        self.engine_stats: Optional[dict] = None
        self._reset_counters()

    # ----------------------------------------------------------------- plumbing

    def _reset_counters(self) -> None:
        self.seconds_used = 0.0
        self.turns = 0
        self.max_turn_seconds = 0.0
        self.min_seconds_left: Optional[float] = None
        self.rejected_actions = 0
        self._turn_start: Optional[float] = None

    def argv(self) -> List[str]:
        return [find_rbc_binary(self.rbc_bin), "track"] + self.track_args

    def start(self) -> TrackProcess:
        """Start a fresh `rbc track` (closing a previous one)."""
        self.close()
        self.process = TrackProcess(self.argv())
        log.debug("started %s (pid %d)", " ".join(self.process.argv), self.process.pid)
        return self.process

    def close(self) -> Optional[int]:
        """Close the `rbc track` process, if any; return its exit code."""
        proc, self.process = self.process, None
        if proc is None:
            return None
        code = proc.close()
        if code not in (0, None):
            log.warning("rbc track exited with code %s; stderr tail:\n%s", code, proc.stderr_tail())
        return code

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def send(self, obj: dict) -> dict:
        """Send one request to `rbc track` and return its reply."""
        if self.process is None:
            raise RbcError("rbc track is not running (no game started, or the game ended)")
        reply = self.process.request(obj)
        self.last_reply = reply
        return reply

    def _timed(self, started: float) -> None:
        self.seconds_used += time.perf_counter() - started

    def _note_clock(self, seconds_left: Optional[float]) -> None:
        if seconds_left is not None and (self.min_seconds_left is None or seconds_left < self.min_seconds_left):
            self.min_seconds_left = seconds_left

    # ---------------------------------------------------------------- callbacks

    def handle_game_start(self, color: bool, board: chess.Board, opponent_name: str):
        self._reset_counters()
        self.color = color
        self.engine_stats = None
        self.start()
        self.send(
            {
                "event": "game_start",
                "color": "white" if color == chess.WHITE else "black",
                "fen": board.fen(),
                "opponent": str(opponent_name),
                "seconds": self.seconds,
                "increment": self.increment,
            }
        )

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: Optional[int]):
        started = time.perf_counter()
        self._turn_start = started
        try:
            self.send({"event": "opponent_move", "capture_square": _square(capture_square)})
        finally:
            self._timed(started)

    def choose_sense(
        self, sense_actions: List[int], move_actions: List[chess.Move], seconds_left: float
    ) -> Optional[int]:
        started = time.perf_counter()
        try:
            self._note_clock(seconds_left)
            reply = self.send({"query": "sense", "seconds_left": seconds_left})
            name = reply.get("sense")
            if name is None:
                return None
            try:
                square = chess.parse_square(name)
            except (ValueError, TypeError):
                square = None
            if square is None or square not in sense_actions:
                self.rejected_actions += 1
                log.error("rbc track chose sense %r, which is not a sense action; not sensing", name)
                return None
            return square
        finally:
            self._timed(started)

    def handle_sense_result(self, sense_result: List[Tuple[int, Optional[chess.Piece]]]):
        started = time.perf_counter()
        try:
            result = [
                [chess.square_name(square), None if piece is None else piece.symbol()]
                for square, piece in sense_result
            ]
            self.send({"event": "sense_result", "result": result})
        finally:
            self._timed(started)

    def choose_move(self, move_actions: List[chess.Move], seconds_left: float) -> Optional[chess.Move]:
        started = time.perf_counter()
        try:
            self._note_clock(seconds_left)
            reply = self.send({"query": "move", "seconds_left": seconds_left})
            uci = reply.get("move")
            if uci is None:
                return None
            try:
                move = chess.Move.from_uci(uci)
            except (ValueError, TypeError):
                move = None
            if move and move in move_actions:
                return move
            # A plain pawn move to the last rank: reconchess promotes it to a
            # queen itself, and move_actions lists it with the promotion.
            if move and move.promotion is None:
                queened = chess.Move(move.from_square, move.to_square, chess.QUEEN)
                if queened in move_actions:
                    return move
            self.rejected_actions += 1
            log.error("rbc track chose move %r, which is not in move_actions; passing instead", uci)
            return None
        finally:
            self._timed(started)

    def handle_move_result(
        self,
        requested_move: Optional[chess.Move],
        taken_move: Optional[chess.Move],
        captured_opponent_piece: bool,
        capture_square: Optional[int],
    ):
        started = time.perf_counter()
        try:
            self.send(
                {
                    "event": "move_result",
                    "requested": _uci(requested_move),
                    "taken": _uci(taken_move),
                    "capture_square": _square(capture_square),
                }
            )
        finally:
            self._timed(started)
            self.turns += 1
            if self._turn_start is not None:
                self.max_turn_seconds = max(self.max_turn_seconds, time.perf_counter() - self._turn_start)
                self._turn_start = None

    def handle_game_end(self, winner_color: Optional[bool], win_reason: Optional[WinReason], game_history):
        if self.process is None:
            return
        try:
            if winner_color is None:
                winner = None
            else:
                winner = "white" if winner_color == chess.WHITE else "black"
            reason = None if win_reason is None else win_reason.name
            self.send({"event": "game_end", "winner": winner, "reason": reason})
            try:
                self.engine_stats = self.send({"query": "stats"})
            except RbcError as e:  # informational only
                log.warning("stats query after game_end failed: %s", e)
        finally:
            self.close()
