"""Play rbc (through `RbcPlayer`) against reconchess's bots and report its strength.

    python -m rbc_reconchess.match --games 50 --seconds 120 --increment 2 --jobs 2 \\
        --opponents random,attacker,trout --history-dir strength/auto

Colours alternate (even game numbers: rbc is white). Every game is saved as a
reconchess history JSON in --history-dir, and one line per finished game is
appended to <history-dir>/games.jsonl, so an interrupted match can still be
summarised with `--summarize <history-dir>`.

Elo difference (rbc minus opponent), logistic model:
    score s = (W + D/2) / N,     Elo(s) = -400 * log10(1/s - 1)
95% interval for 0 < s < 1: the normal approximation of the score,
    se = sqrt(sum over games of (x_i - s)^2 / N) / sqrt(N),   x_i in {1, 1/2, 0}
    [Elo(s - 1.96 se), Elo(s + 1.96 se)], an end past 0 or 1 being unbounded;
for s = 1 (every game won) the point estimate is unbounded and the interval is
the one-sided 95% bound [Elo(0.05 ** (1/N)), +inf) (the exact binomial bound:
a true score below 0.05 ** (1/N) would win all N games with probability < 5%);
for s = 0 symmetrically (-inf, Elo(1 - 0.05 ** (1/N))].
"""

import argparse
import collections
import concurrent.futures
import contextlib
import datetime
import io
import json
import logging
import math
import os
import shutil
import sys
import time
import traceback
from typing import Dict, Iterable, List, Optional

import chess
from reconchess import LocalGame, play_local_game

from .player import RbcPlayer
from .process import find_rbc_binary

OPPONENTS = {
    "random": ("reconchess.bots.random_bot", "RandomBot"),
    "attacker": ("reconchess.bots.attacker_bot", "AttackerBot"),
    "trout": ("reconchess.bots.trout_bot", "TroutBot"),
}

Z95 = 1.959963984540054


# ------------------------------------------------------------------ statistics


def elo_of_score(score: float) -> float:
    """Logistic Elo difference for an expected score (inf at the ends)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def elo_interval(wins: int, losses: int, draws: int) -> Dict[str, object]:
    """Elo estimate and 95% interval (see the module docstring)."""
    n = wins + losses + draws
    if n == 0:
        return {"score": None, "elo": None, "elo_low": None, "elo_high": None, "method": "no games"}
    s = (wins + 0.5 * draws) / n
    if s >= 1.0:
        lo = elo_of_score(0.05 ** (1.0 / n))
        return {"score": s, "elo": math.inf, "elo_low": lo, "elo_high": math.inf, "method": "one-sided 95% (all won)"}
    if s <= 0.0:
        hi = elo_of_score(1.0 - 0.05 ** (1.0 / n))
        return {"score": s, "elo": -math.inf, "elo_low": -math.inf, "elo_high": hi, "method": "one-sided 95% (all lost)"}
    var = (wins * (1.0 - s) ** 2 + draws * (0.5 - s) ** 2 + losses * s ** 2) / n
    se = math.sqrt(var / n)
    return {
        "score": s,
        "elo": elo_of_score(s),
        "elo_low": elo_of_score(s - Z95 * se),
        "elo_high": elo_of_score(s + Z95 * se),
        "score_se": se,
        "method": "normal approximation, 95%",
    }


def _fmt_elo(x: Optional[float]) -> str:
    if x is None:
        return "n/a"
    if x == math.inf:
        return "+inf"
    if x == -math.inf:
        return "-inf"
    r = int(round(x))
    return "{:+d}".format(r) if r else "0"


def _json_number(x):
    """JSON has no infinities: write them as strings."""
    if isinstance(x, float) and math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return x


def summarize(records: Iterable[dict]) -> Dict[str, dict]:
    by_opp: Dict[str, List[dict]] = collections.OrderedDict()
    for r in records:
        by_opp.setdefault(r["opponent"], []).append(r)
    out = collections.OrderedDict()
    for opp, rs in by_opp.items():
        counts = collections.Counter(r["result"] for r in rs)
        w, l, d, e = counts["win"], counts["loss"], counts["draw"], counts["error"]
        reasons = {
            kind: dict(collections.Counter(str(r["reason"]) for r in rs if r["result"] == kind))
            for kind in ("win", "loss", "draw", "error")
        }
        played = [r for r in rs if r["result"] != "error"]
        used = [r["rbc_clock_used"] for r in played if r.get("rbc_clock_used") is not None]
        by_color = {}
        for color in ("white", "black"):
            c = collections.Counter(r["result"] for r in rs if r["rbc_color"] == color)
            by_color[color] = {"win": c["win"], "loss": c["loss"], "draw": c["draw"], "error": c["error"]}
        min_final = [r["rbc_final_clock"] for r in played if r.get("rbc_final_clock") is not None]
        elo = elo_interval(w, l, d)
        out[opp] = {
            "games": len(rs),
            "wins": w,
            "losses": l,
            "draws": d,
            "errors": e,
            "win_rate": (w / len(played)) if played else None,
            "reasons": reasons,
            "by_rbc_color": by_color,
            "elo": {k: _json_number(v) for k, v in elo.items()},
            "rbc_seconds_per_game_mean": (sum(used) / len(used)) if used else None,
            "rbc_seconds_per_game_max": max(used) if used else None,
            "rbc_max_turn_seconds": max((r.get("rbc_max_turn_seconds") or 0.0) for r in played) if played else None,
            "rbc_min_final_clock": min(min_final) if min_final else None,
            "rbc_timeout_losses": sum(1 for r in rs if r["result"] == "loss" and r["reason"] == "TIMEOUT"),
            "rejected_actions": sum(r.get("rejected_actions") or 0 for r in rs),
            "turns_mean": (sum(r["turns"] for r in played) / len(played)) if played else None,
            "opponent_engine_died_games": sum(1 for r in rs if r.get("opponent_engine_died")),
            "without_opponent_engine_deaths": _wld_counts([r for r in rs if not r.get("opponent_engine_died")]),
            "engines": sorted({str(r.get("engine")) for r in rs}),
            "losses_detail": [
                {"game": r["game"], "rbc_color": r["rbc_color"], "reason": r["reason"], "history": r.get("history")}
                for r in rs
                if r["result"] in ("loss", "error")
            ],
        }
    return out


def format_summary(summary: Dict[str, dict]) -> str:
    lines = []
    for opp, s in summary.items():
        elo = s["elo"]
        lines.append(
            "{opp}: {g} games  W {w}  L {l}  D {d}{err}  win rate {wr}  Elo {e} [{lo}, {hi}] ({m})".format(
                opp=opp,
                g=s["games"],
                w=s["wins"],
                l=s["losses"],
                d=s["draws"],
                err="  errors {}".format(s["errors"]) if s["errors"] else "",
                wr="n/a" if s["win_rate"] is None else "{:.1%}".format(s["win_rate"]),
                e=_fmt_elo(_from_json_number(elo["elo"])),
                lo=_fmt_elo(_from_json_number(elo["elo_low"])),
                hi=_fmt_elo(_from_json_number(elo["elo_high"])),
                m=elo["method"],
            )
        )
        for kind in ("win", "loss", "draw", "error"):
            if s["reasons"][kind]:
                parts = ", ".join("{} {}".format(k, v) for k, v in sorted(s["reasons"][kind].items()))
                lines.append("    {} reasons: {}".format(kind, parts))
        lines.append(
            "    as white: {}   as black: {}".format(
                _wld(s["by_rbc_color"]["white"]), _wld(s["by_rbc_color"]["black"])
            )
        )
        if s["rbc_seconds_per_game_mean"] is not None:
            lines.append(
                "    rbc clock used per game: mean {:.1f} s, max {:.1f} s; longest turn {:.2f} s; "
                "lowest final clock {:.1f} s; timeout losses {}; mean plies {:.1f}".format(
                    s["rbc_seconds_per_game_mean"],
                    s["rbc_seconds_per_game_max"],
                    s["rbc_max_turn_seconds"],
                    s["rbc_min_final_clock"],
                    s["rbc_timeout_losses"],
                    s["turns_mean"],
                )
            )
        lines.append("    engine: {}; rejected actions: {}".format(", ".join(s["engines"]), s["rejected_actions"]))
        if s.get("opponent_engine_died_games"):
            lines.append("    the opponent's Stockfish died (it then passes) in {} games; without them: {}".format(
                s["opponent_engine_died_games"], _wld(s["without_opponent_engine_deaths"])))
        for d in s["losses_detail"]:
            lines.append("    lost/error game {} (rbc {}): {} {}".format(d["game"], d["rbc_color"], d["reason"], d["history"]))
    return "\n".join(lines)


def _wld_counts(rs: List[dict]) -> dict:
    c = collections.Counter(r["result"] for r in rs)
    return {"win": c["win"], "loss": c["loss"], "draw": c["draw"], "error": c["error"]}


def _wld(c: dict) -> str:
    return "W {} L {} D {}{}".format(c["win"], c["loss"], c["draw"], " E {}".format(c["error"]) if c["error"] else "")


def _from_json_number(x):
    if x == "+inf":
        return math.inf
    if x == "-inf":
        return -math.inf
    return x


# ---------------------------------------------------------------------- games


def _opponent(name: str):
    module_name, cls_name = OPPONENTS[name]
    module = __import__(module_name, fromlist=[cls_name])
    return getattr(module, cls_name)()


def play_game(task: dict) -> dict:
    """Play one game described by `task`; return its record (never raises)."""
    started = time.time()
    opp_name = task["opponent"]
    rbc_white = task["rbc_color"] == "white"
    game = LocalGame(seconds_per_player=task["seconds"], seconds_increment=task["increment"])
    rbc = None
    opponent = None
    error = None
    history = None
    winner = reason = None
    # The bots print (TroutBot: "Stockfish Engine died" when its engine crashes,
    # after which it passes every move); keep that out of our stdout.
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            rbc = RbcPlayer(
                rbc_bin=task["rbc_bin"],
                engine=task.get("engine"),
                capacity=task.get("capacity"),
                memory=task.get("memory"),
                seed=task.get("seed"),
                extra_args=task.get("rbc_args") or (),
                seconds=task["seconds"],
                increment=task["increment"],
            )
            opponent = _opponent(opp_name)
            white, black = (rbc, opponent) if rbc_white else (opponent, rbc)
            winner, win_reason, history = play_local_game(white, black, game=game)
            reason = None if win_reason is None else win_reason.name
    except Exception:
        error = traceback.format_exc()
        try:
            if not game.is_over():
                game.end()
        except Exception:
            pass
        try:
            history = game.get_game_history()
        except Exception:
            history = None
    finally:
        if rbc is not None:
            rbc.close()
        engine = getattr(opponent, "engine", None)
        if engine is not None and error is not None:
            try:
                engine.quit()
            except Exception:
                pass

    rbc_color = chess.WHITE if rbc_white else chess.BLACK
    if error is not None:
        result = "error"
    elif winner is None:
        result = "draw"
    elif winner == rbc_color:
        result = "win"
    else:
        result = "loss"

    path = None
    if task.get("history_dir") and history is not None:
        path = os.path.join(
            task["history_dir"],
            "{}-{:03d}-rbc_{}-{}.json".format(opp_name, task["game"], task["rbc_color"], result),
        )
        try:
            history.save(path)
        except Exception:
            path = None

    opponent_passes = None
    if history is not None and not history.is_empty():
        try:
            opponent_passes = sum(
                1
                for t in history.turns(not rbc_color)
                if history.has_move(t) and history.requested_move(t) is None
            )
        except Exception:
            opponent_passes = None

    clock_used = final_clock = None
    if rbc is not None and error is None:
        final_clock = game.seconds_left_by_color[rbc_color]
        clock_used = task["seconds"] + task["increment"] * rbc.turns - final_clock
    return {
        "opponent": opp_name,
        "game": task["game"],
        "rbc_color": task["rbc_color"],
        "result": result,
        "reason": reason if error is None else "ERROR",
        "turns": history.num_turns() if history is not None and not history.is_empty() else 0,
        "rbc_turns": rbc.turns if rbc is not None else 0,
        "rbc_clock_used": clock_used,
        "rbc_seconds_in_callbacks": rbc.seconds_used if rbc is not None else None,
        "rbc_max_turn_seconds": rbc.max_turn_seconds if rbc is not None else None,
        "rbc_min_seconds_left": rbc.min_seconds_left if rbc is not None else None,
        "rbc_final_clock": final_clock,
        "opponent_final_clock": game.seconds_left_by_color[not rbc_color],
        "rejected_actions": rbc.rejected_actions if rbc is not None else 0,
        "engine": (rbc.engine_stats or {}).get("engine") if rbc is not None else None,
        "opponent_engine_died": "Stockfish Engine died" in printed.getvalue(),
        "opponent_passes": opponent_passes,
        "printed": printed.getvalue()[-2000:],
        "seed": task.get("seed"),
        "history": path,
        "error": error,
        "wall_seconds": time.time() - started,
    }


def make_tasks(args, rbc_bin: str) -> List[dict]:
    tasks = []
    for i in range(args.games):
        for opp in args.opponents:
            tasks.append(
                {
                    "opponent": opp,
                    "game": i,
                    "rbc_color": "white" if i % 2 == 0 else "black",
                    "seconds": args.seconds,
                    "increment": args.increment,
                    "rbc_bin": rbc_bin,
                    "engine": args.engine,
                    "capacity": args.capacity,
                    "memory": args.memory,
                    "seed": args.seed + i,
                    "rbc_args": args.rbc_arg,
                    "history_dir": args.history_dir,
                }
            )
    return tasks


def run_tasks(tasks: List[dict], jobs: int, log_path: Optional[str], quiet: bool) -> List[dict]:
    records = []
    total = len(tasks)

    def done(rec: dict) -> None:
        records.append(rec)
        if log_path:
            with open(log_path, "a") as f:
                f.write(json.dumps(rec) + "\n")
        if not quiet:
            print(
                "[{}/{}] {} #{} rbc={}: {} {} turns={} rbc_clock_used={} ({:.0f} s wall){}".format(
                    len(records),
                    total,
                    rec["opponent"],
                    rec["game"],
                    rec["rbc_color"],
                    rec["result"],
                    rec["reason"],
                    rec["turns"],
                    "n/a" if rec["rbc_clock_used"] is None else "{:.1f}s".format(rec["rbc_clock_used"]),
                    rec["wall_seconds"],
                    "\n" + rec["error"] if rec["error"] else "",
                ),
                file=sys.stderr,
                flush=True,
            )

    if jobs <= 1:
        for t in tasks:
            done(play_game(t))
    else:
        with concurrent.futures.ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(play_game, t) for t in tasks]
            for fut in concurrent.futures.as_completed(futures):
                done(fut.result())
    records.sort(key=lambda r: (list(OPPONENTS).index(r["opponent"]) if r["opponent"] in OPPONENTS else 99, r["game"]))
    return records


def _ensure_stockfish_env(explicit: Optional[str]) -> None:
    if explicit:
        os.environ["STOCKFISH_EXECUTABLE"] = explicit
    if os.environ.get("STOCKFISH_EXECUTABLE"):
        if not os.path.isfile(os.environ["STOCKFISH_EXECUTABLE"]):
            raise SystemExit("STOCKFISH_EXECUTABLE={} does not exist".format(os.environ["STOCKFISH_EXECUTABLE"]))
        return
    found = shutil.which("stockfish") or ("/usr/games/stockfish" if os.path.isfile("/usr/games/stockfish") else None)
    if not found:
        raise SystemExit("TroutBot needs Stockfish: set STOCKFISH_EXECUTABLE or pass --stockfish PATH")
    os.environ["STOCKFISH_EXECUTABLE"] = found


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m rbc_reconchess.match",
        description="Play rbc against reconchess's RandomBot, AttackerBot and TroutBot.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--games", "-n", type=int, default=10, help="games per opponent (colours alternate)")
    p.add_argument(
        "--opponents",
        default="random,attacker,trout",
        type=lambda s: [x.strip() for x in s.split(",") if x.strip()],
        help="comma-separated subset of: " + ", ".join(OPPONENTS),
    )
    p.add_argument("--seconds", type=float, default=900.0, help="clock per player")
    p.add_argument("--increment", type=float, default=5.0, help="seconds added per turn")
    p.add_argument("--jobs", "-j", type=int, default=1, help="games in parallel (processes)")
    p.add_argument("--history-dir", default=None, help="where to save histories (default: match-histories/<time>)")
    p.add_argument("--rbc-bin", default=None, help="rbc binary (default: $RBC_BIN, PATH, the repository build)")
    p.add_argument("--engine", choices=["auto", "stockfish", "builtin"], default=None, help="rbc track --engine")
    p.add_argument("--capacity", type=int, default=None, help="rbc track --capacity")
    p.add_argument("--memory", default=None, help="rbc track --memory")
    p.add_argument("--seed", type=int, default=0, help="rbc seed of game 0 (game i uses seed+i)")
    p.add_argument("--rbc-arg", action="append", default=[], help="extra argument for rbc track (repeatable)")
    p.add_argument("--stockfish", default=None, help="Stockfish for TroutBot (default: $STOCKFISH_EXECUTABLE, PATH, /usr/games/stockfish)")
    p.add_argument("--json", action="store_true", help="print the summary (and every game record) as JSON on stdout")
    p.add_argument("--quiet", "-q", action="store_true", help="no per-game progress on stderr")
    p.add_argument("--summarize", metavar="DIR", default=None, help="only summarise DIR/games.jsonl of an earlier run")
    args = p.parse_args(argv)
    unknown = [o for o in args.opponents if o not in OPPONENTS]
    if unknown:
        p.error("unknown opponent(s): {}".format(", ".join(unknown)))
    if args.capacity is not None and args.memory is not None:
        p.error("--capacity and --memory exclude each other")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")

    if args.summarize:
        with open(os.path.join(args.summarize, "games.jsonl")) as f:
            records = [json.loads(line) for line in f if line.strip()]
        settings = None
    else:
        rbc_bin = find_rbc_binary(args.rbc_bin)
        if "trout" in args.opponents:
            _ensure_stockfish_env(args.stockfish)
        if args.history_dir is None:
            args.history_dir = os.path.join(
                "match-histories", datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
            )
        os.makedirs(args.history_dir, exist_ok=True)
        settings = {
            "rbc_bin": rbc_bin,
            "games_per_opponent": args.games,
            "opponents": args.opponents,
            "seconds": args.seconds,
            "increment": args.increment,
            "jobs": args.jobs,
            "engine": args.engine,
            "capacity": args.capacity,
            "memory": args.memory,
            "seed": args.seed,
            "rbc_args": args.rbc_arg,
            "history_dir": args.history_dir,
        }
        with open(os.path.join(args.history_dir, "settings.json"), "w") as f:
            json.dump(settings, f, indent=2)
        records = run_tasks(
            make_tasks(args, rbc_bin),
            args.jobs,
            os.path.join(args.history_dir, "games.jsonl"),
            args.quiet,
        )

    summary = summarize(records)
    if args.json:
        json.dump({"settings": settings, "summary": summary, "games": records}, sys.stdout, indent=2)
        print()
    else:
        print(format_summary(summary))
    return 1 if any(r["result"] == "error" for r in records) else 0


if __name__ == "__main__":
    sys.exit(main())
