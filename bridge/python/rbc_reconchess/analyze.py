"""Re-track a saved reconchess game through `rbc track` and show, for each of
rbc's turns, how large its belief was and how much king danger it accepted.

    python -m rbc_reconchess.analyze HISTORY.json [--as white|black] [--limit 20000]

Per turn of the chosen side: belief size after the opponent's move and after
the sense; the share of those boards in which the opponent could capture our
king right now ("danger before move"), and after our move the share of boards
in which the opponent can capture our king with its next move ("danger after
move": the risk rbc took). The true position is marked when our king was
attacked in it. Shares are computed over at most --limit listed boards.
"""

import argparse
import sys
from typing import Optional

import chess
from reconchess import GameHistory

from .player import RbcPlayer


def _king_attacked(fen: str, us: bool) -> Optional[bool]:
    board = chess.Board(fen)
    king = board.king(us)
    if king is None:
        return None
    return bool(board.attackers(not us, king))


def _danger(player: RbcPlayer, us: bool, limit: int):
    reply = player.send({"query": "boards", "limit": limit})
    fens = reply["fens"]
    if not fens:
        return reply["total"], None
    hits = sum(1 for f in fens if _king_attacked(f, us))
    return reply["total"], hits / len(fens)


def analyze(path: str, side: Optional[str], limit: int, out=sys.stdout, **player_kw) -> None:
    history = GameHistory.from_file(path)
    if side is None:
        side = "white" if "rbc" in history.get_white_player_name().lower() else "black"
        if "rbc" not in (history.get_white_player_name() + history.get_black_player_name()).lower():
            side = "white"
    us = chess.WHITE if side == "white" else chess.BLACK
    player = RbcPlayer(**player_kw)
    player.handle_game_start(us, chess.Board(), "opponent")
    print("{} vs {}: re-tracking {}'s belief".format(
        history.get_white_player_name(), history.get_black_player_name(), side), file=out)
    try:
        opp_capture = None
        for turn in history.turns():
            if turn.color != us:
                opp_capture = history.capture_square(turn) if history.has_move(turn) else None
                continue
            player.handle_opponent_move_result(opp_capture is not None, opp_capture)
            opp_capture = None
            before = player.send({"query": "count"})["boards"]
            sense = history.sense(turn) if history.has_sense(turn) else None
            if history.has_sense(turn):
                player.handle_sense_result(history.sense_result(turn))
            total, danger_now = _danger(player, us, limit)
            truth_before = history.truth_fen_before_move(turn)
            if not history.has_move(turn):
                break
            requested, taken, capture = history.move_result(turn)
            player.handle_move_result(requested, taken, capture is not None, capture)
            after_total, danger_after = _danger(player, us, limit)
            truth_after = history.truth_fen_after_move(turn)
            print(
                "turn {:3d}: boards {:>7} -> sense {:<4} -> {:>7}; danger before move {:>6}{}; "
                "move {:<6}{} -> danger after move {:>6}{}".format(
                    turn.turn_number + 1,
                    before,
                    "-" if sense is None else chess.square_name(sense),
                    total,
                    "n/a" if danger_now is None else "{:.0%}".format(danger_now),
                    " (TRUE)" if _king_attacked(truth_before, us) else "",
                    requested.uci() if requested else "pass",
                    "" if taken == requested else " (took {})".format(taken.uci() if taken else "nothing"),
                    "n/a" if danger_after is None else "{:.0%}".format(danger_after),
                    " (TRUE)" if _king_attacked(truth_after, us) else "",
                ),
                file=out,
            )
        print("result: {} {}".format(
            {True: "white", False: "black", None: "draw"}[history.get_winner_color()],
            history.get_win_reason()), file=out)
    finally:
        player.close()


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m rbc_reconchess.analyze", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("history")
    p.add_argument("--as", dest="side", choices=["white", "black"], default=None,
                   help="whose belief (default: the side named rbc, else white)")
    p.add_argument("--limit", type=int, default=20000, help="boards listed per danger estimate")
    p.add_argument("--capacity", type=int, default=None)
    p.add_argument("--rbc-bin", default=None)
    args = p.parse_args(argv)
    analyze(args.history, args.side, args.limit, rbc_bin=args.rbc_bin, capacity=args.capacity,
            engine="builtin")
    return 0


if __name__ == "__main__":
    sys.exit(main())
