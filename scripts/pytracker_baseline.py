#!/usr/bin/env python3
"""A python-chess belief tracker of the kind reconchess bots use, timed on an
rbc belief fixture next to `rbc bench` in the same run.

The tracker keeps a set of boards (keyed by FEN without clocks). Expansion
tries every move the opponent may request (reconchess.utilities.move_actions
plus the pass), revises it with revise_move, keeps it if its capture square
matches, and pushes it; the sense filter compares the sensed squares; the
move-result filter re-revises our request on every board.

Usage: .venv/bin/python scripts/pytracker_baseline.py [FIXTURE] [--rbc PATH]
(default fixture: fixtures/data/belief-10k.jsonl). Prints a markdown table
with both trackers' rates and their ratio.
"""
import argparse
import json
import subprocess
import sys
import time

import chess
from reconchess.utilities import (add_pawn_queen_promotion, capture_square_of_move, move_actions,
                                  revise_move)


def key(board):
    # X-FEN: the en-passant square counts whenever a pseudo-legal en-passant
    # capture exists (RBC has no check, so "legal" would wrongly merge a board
    # whose capture is only pseudo-legal with its twin without the square).
    return board.fen(en_passant="xfen").rsplit(" ", 2)[0]


def expand(boards, capture):
    out = {}
    children = 0
    for b in boards:
        for mv in move_actions(b) + [None]:
            taken = None if mv is None else revise_move(b, add_pawn_queen_promotion(b, mv))
            if capture_square_of_move(b, taken) != capture:
                continue
            c = b.copy(stack=False)
            c.push(taken if taken is not None else chess.Move.null())
            children += 1
            out.setdefault(key(c), c)
    return list(out.values()), children


def sense_filter(boards, result):
    return [b for b in boards if all(b.piece_at(sq) == p for sq, p in result)]


def move_filter(boards, requested, taken, capture):
    out = {}
    for b in boards:
        t = None if requested is None else revise_move(b, add_pawn_queen_promotion(b, requested))
        if t == taken and capture_square_of_move(b, t) == capture:
            c = b.copy(stack=False)
            c.push(t if t is not None else chess.Move.null())
            out.setdefault(key(c), c)
    return list(out.values())


def sq(s):
    return None if s is None else chess.parse_square(s)


def mv(s):
    return None if s is None else chess.Move.from_uci(s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("fixture", nargs="?", default="fixtures/data/belief-10k.jsonl")
    ap.add_argument("--rbc", default="target/release/rbc")
    args = ap.parse_args()
    lines = [json.loads(l) for l in open(args.fixture) if l.strip()]
    boards = None
    color = None
    work = {}
    for ev in lines:
        tag = ev.get("bench")
        if tag:
            work[tag] = ev
            continue
        e = ev["event"]
        if e == "game_start":
            color = chess.WHITE if ev["color"] == "white" else chess.BLACK
            start = chess.Board(ev.get("fen", chess.STARTING_FEN))
            boards = [start]
            our_turn = start.turn == color
        elif e == "opponent_move":
            if not our_turn:
                boards, _ = expand(boards, sq(ev["capture_square"]))
                our_turn = True
        elif e == "sense_result":
            boards = sense_filter(boards, [(chess.parse_square(s), chess.Piece.from_symbol(p) if p else None)
                                           for s, p in ev["result"]])
        elif e == "move_result":
            boards = move_filter(boards, mv(ev["requested"]), mv(ev["taken"]), sq(ev["capture_square"]))
            our_turn = False
    n = len(boards)

    t = time.perf_counter()
    r = [(chess.parse_square(s), chess.Piece.from_symbol(p) if p else None) for s, p in work["sense_filter"]["result"]]
    sense_filter(boards, r)
    sense_s = time.perf_counter() - t

    w = work["move_filter"]
    t = time.perf_counter()
    parents = move_filter(boards, mv(w["requested"]), mv(w["taken"]), sq(w["capture_square"]))
    move_s = time.perf_counter() - t

    t = time.perf_counter()
    kids, children = expand(parents, sq(work["expand"]["capture_square"]))
    expand_s = time.perf_counter() - t

    name = args.fixture.rsplit("belief-", 1)[-1].split(".")[0]
    proc = subprocess.run([args.rbc, "bench", "--engine", "builtin", "--json", "--runs", "5", "--fixtures", name],
                          capture_output=True, text=True, check=True)
    rbc = {r["figure"]: r["value"] for r in json.loads(proc.stdout)["rows"] if r["fixture"] == name}
    py = {"expansion (unique)": len(kids) / expand_s, "sense filter": n / sense_s, "move-result filter": n / move_s}
    print(f"fixture {name}: {n} boards at our turn, {len(parents)} parents, {children} children ({len(kids)} unique)")
    print()
    print("| figure | python-chess tracker | rbc | ratio |")
    print("|---|---:|---:|---:|")
    unit = {"expansion (unique)": "distinct children/s", "sense filter": "boards/s", "move-result filter": "boards/s"}
    for fig in ["expansion (unique)", "sense filter", "move-result filter"]:
        print(f"| {fig} ({unit[fig]}) | {py[fig]:,.0f} | {rbc[fig]:,.0f} | {rbc[fig] / py[fig]:,.0f}x |")


if __name__ == "__main__":
    sys.exit(main())
