#!/usr/bin/env python3
"""Draws an `rbc play --profile` or `rbc track --profile` file as an SVG.

Usage: scripts/plot_profile.py PROFILE.jsonl [-o OUT.svg] [--game N ...]
                               [--linear-time] [--title TEXT]

Two panels share the x axis, our turn in the game:

- top: the belief's active boards on a log scale, after each update of the
  turn (the opponent's move at the left of the turn, our sense result in the
  middle, our move's result at the right), so expansion and narrowing show
  as a saw tooth; stashed boards, dashed, when there are any;
- bottom: milliseconds per turn, log scale unless --linear-time: the
  decisions (sense + move, solid) and the belief updates (opponent move +
  sense result + move result, dashed).

One colour per game and side (both sides when both players of `rbc play`
are rbc); --game keeps only the games named. Only the standard library is
used, so this runs with any Python 3.8+. The profile format is described in
docs/PERF.md ("Profiling a game").
"""
import argparse
import json
import math
import sys
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

UPDATES = ("opponent_move", "sense_result", "move_result")
DECISIONS = ("sense", "move")
# Where each update sits inside its turn, in turns from the turn's tick.
UPDATE_OFFSET = {"opponent_move": -1 / 3, "sense_result": 0.0, "move_result": 1 / 3}

# Distinct colours that stay apart for most kinds of colour blindness.
PALETTE = ["#1f5fa8", "#d1495b", "#2a9d57", "#e08a00", "#7a4eb0",
           "#00a0b0", "#8c5a2b", "#c2418f", "#5c6b73", "#9aa31d"]

WIDTH = 980
LEFT, RIGHT = 84, 236          # margins around the plot area (legend on the right)
TOP = 92                       # title and subtitle above the first panel
BOARDS_H, TIME_H, GAP = 270, 210, 56
PAD = 6                        # pixels between a log scale's ends and the frame
BOTTOM = 56                    # x labels and the axis title
HEIGHT = TOP + BOARDS_H + GAP + TIME_H + BOTTOM
FONT = "font-family=\"system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif\""


class ProfileError(Exception):
    """A profile that cannot be plotted, with the reason."""


# ---- reading ---------------------------------------------------------------------

class Series:
    """One side of one game: its belief sizes and times, by turn."""

    def __init__(self, game, color, player):
        self.game, self.color, self.player = game, color, player
        self.boards = []     # (x, active boards)
        self.stashed = []    # (x, stashed boards)
        self.decision = {}   # turn -> ms
        self.update = {}     # turn -> ms

    def label(self, with_player):
        parts = [f"game {self.game}"]
        if with_player and self.player:
            parts.append(self.player)
        parts.append(self.color or "?")
        return " · ".join(parts)

    def turns(self):
        return max(list(self.decision) + list(self.update) + [0])


def read_profile(path, games=None):
    """The series in the file, in order of first appearance."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise ProfileError(f"cannot read {path}: {e.strerror or e}") from None
    if not text.strip():
        raise ProfileError(f"{path} is empty: nothing to plot (was the game played with --profile?)")
    series = {}
    seen_games = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as e:
            raise ProfileError(f"{path}:{number}: not JSON ({e.msg})") from None
        if not isinstance(row, dict):
            raise ProfileError(f"{path}:{number}: expected a JSON object")
        missing = [k for k in ("game", "turn", "phase", "ms") if k not in row]
        if missing:
            raise ProfileError(f"{path}:{number}: not a profile line (no {', '.join(missing)})")
        phase = row["phase"]
        if row.get("ok") is False or (phase not in UPDATES and phase not in DECISIONS):
            continue  # rbc track: error replies, game_start, game_end and plain queries
        game = row["game"]
        if game not in seen_games:
            seen_games.append(game)
        if games and game not in games:
            continue
        key = (game, row.get("player"), row.get("color"))
        s = series.get(key)
        if s is None:
            s = series[key] = Series(game, row.get("color"), row.get("player"))
        turn, ms = int(row["turn"]), max(float(row["ms"] or 0.0), 0.0)
        if phase in DECISIONS:
            s.decision[turn] = s.decision.get(turn, 0.0) + ms
        else:
            s.update[turn] = s.update.get(turn, 0.0) + ms
            x = turn + UPDATE_OFFSET[phase]
            if row.get("boards") is not None:
                s.boards.append((x, int(row["boards"])))
            if row.get("stashed") is not None:
                s.stashed.append((x, int(row["stashed"])))
    if not seen_games:
        raise ProfileError(f"{path} has no turn phases to plot (opponent_move, sense, "
                           f"sense_result, move, move_result)")
    if not series:
        listed = ", ".join(str(g) for g in seen_games)
        raise ProfileError(f"no game {', '.join(map(str, sorted(games)))} in {path} (games: {listed})")
    return sorted(series.values(), key=lambda s: (s.game, s.player or "", s.color or ""))


# ---- scales and ticks ------------------------------------------------------------

class Linear:
    def __init__(self, lo, hi, a, b):
        self.lo, self.hi, self.a, self.b = lo, hi if hi > lo else lo + 1, a, b

    def __call__(self, v):
        return self.a + (v - self.lo) / (self.hi - self.lo) * (self.b - self.a)


class Log:
    """A log scale from a power of ten to a higher one."""

    def __init__(self, vmin, vmax, a, b, floor):
        vmin, vmax = max(vmin, floor), max(vmax, floor)
        self.lo = math.floor(math.log10(vmin) + 1e-9)
        self.hi = max(math.ceil(math.log10(vmax) - 1e-9), self.lo + 1)
        self.a, self.b = a, b

    def __call__(self, v):
        t = (math.log10(v) - self.lo) / (self.hi - self.lo)
        return self.a + t * (self.b - self.a)

    def decades(self):
        return [10.0 ** e for e in range(self.lo, self.hi + 1)]


def nice_step(span, most):
    """A step of 1, 2 or 5 times a power of ten giving at most `most` ticks."""
    raw = max(span / max(most, 1), 1e-12)
    power = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * power >= raw:
            return m * power
    return 10 * power


def count_label(v):
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= size:
            return f"{v / size:g}{suffix}"
    return f"{v:g}"


def ms_label(v):
    if v >= 1000:
        return f"{v / 1000:g} s"
    if v >= 1:
        return f"{v:g} ms"
    return f"{v * 1000:g} µs"


def duration(ms):
    """A total time to three significant digits in a fitting unit."""
    if ms >= 1000:
        return f"{ms / 1000:.3g} s"
    if ms >= 1:
        return f"{ms:.3g} ms"
    return f"{ms * 1000:.3g} µs"


def thousands(n):
    return f"{n:,}"


# ---- drawing ---------------------------------------------------------------------

def polyline(points, cls, color, dashed, title, extra="", dots=False):
    """A series' line; a lone point, or every point with `dots`, gets a marker."""
    coords = " ".join(f"{x:.1f},{y:.1f}" for x, y in points)
    dash = ' stroke-dasharray="6 4"' if dashed else ""
    out = (f'<polyline class="series {cls}"{extra} points="{coords}" fill="none" '
           f'stroke="{color}" stroke-width="1.8" stroke-linejoin="round"{dash}>'
           f"<title>{escape(title)}</title></polyline>")
    if dots or len(points) == 1:
        fill = "#ffffff" if dashed else color
        out += "".join(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.6" fill="{fill}" '
                       f'stroke="{color}" stroke-width="1.2"/>' for x, y in points)
    return out


def runs(points, keep):
    """Splits points into runs of those `keep` accepts (a log scale cannot show 0)."""
    out, cur = [], []
    for p in points:
        if keep(p[1]):
            cur.append(p)
        elif cur:
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def x_axis(parts, xs, y0, y1, tick_labels):
    for t in xs.ticks:
        x = xs(t)
        parts.append(f'<line x1="{x:.1f}" y1="{y0}" x2="{x:.1f}" y2="{y1}" class="grid"/>')
        if tick_labels:
            parts.append(f'<text x="{x:.1f}" y="{y1 + 18}" text-anchor="middle" class="tick">{t}</text>')


def frame(parts, y0, y1):
    parts.append(f'<rect x="{LEFT}" y="{y0}" width="{WIDTH - LEFT - RIGHT}" '
                 f'height="{y1 - y0}" class="frame"/>')


def panel_title(parts, y0, y1, text):
    mid = (y0 + y1) / 2
    parts.append(f'<text transform="translate(22 {mid:.1f}) rotate(-90)" text-anchor="middle" '
                 f'class="axis-title">{escape(text)}</text>')


def log_y_axis(parts, ys, label):
    x0, x1 = LEFT, WIDTH - RIGHT
    for i, v in enumerate(ys.decades()):
        y = ys(v)
        parts.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x1}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{x0 - 8}" y="{y + 4:.1f}" text-anchor="end" class="tick">{label(v)}</text>')
        if i + 1 < len(ys.decades()):
            for m in (2, 5):
                ym = ys(v * m)
                parts.append(f'<line x1="{x0}" y1="{ym:.1f}" x2="{x1}" y2="{ym:.1f}" class="minor"/>')


def linear_y_axis(parts, ys, top, label):
    step = nice_step(top, 5)
    v = 0.0
    while v <= top + 1e-9:
        y = ys(v)
        parts.append(f'<line x1="{LEFT}" y1="{y:.1f}" x2="{WIDTH - RIGHT}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end" class="tick">{label(v)}</text>')
        v += step


def legend(parts, series, colors, with_player, has_stash):
    x = WIDTH - RIGHT + 18
    y = TOP + 6
    parts.append(f'<g class="legend" transform="translate({x} {y})">')
    groups = [("Belief", [(False, "active boards")] + ([(True, "stashed boards")] if has_stash else [])),
              ("Time per turn", [(False, "sense + move decisions"), (True, "belief updates")])]
    line_y = 0
    for heading, rows in groups:
        parts.append(f'<text x="0" y="{line_y + 4}" class="legend-head">{heading}</text>')
        line_y += 18
        for dashed, text in rows:
            dash = ' stroke-dasharray="6 4"' if dashed else ""
            parts.append(f'<line x1="0" y1="{line_y}" x2="26" y2="{line_y}" stroke="#333" '
                         f'stroke-width="1.8"{dash}/>')
            parts.append(f'<text x="34" y="{line_y + 4}" class="legend-text">{escape(text)}</text>')
            line_y += 18
        line_y += 6
    parts.append(f'<text x="0" y="{line_y + 4}" class="legend-head">Games</text>')
    line_y += 18
    limit = max(1, (BOARDS_H + GAP + TIME_H - line_y) // 18 - 1)
    for i, s in enumerate(series):
        if i == limit and len(series) > limit + 1:
            parts.append(f'<text x="0" y="{line_y + 4}" class="legend-text">… and '
                         f'{len(series) - limit} more (use --game)</text>')
            break
        parts.append(f'<rect x="0" y="{line_y - 5}" width="26" height="10" rx="2" '
                     f'fill="{colors[i]}"/>')
        parts.append(f'<text x="34" y="{line_y + 4}" class="legend-text">'
                     f'{escape(s.label(with_player))}</text>')
        line_y += 18
    parts.append("</g>")


def render(series, source, title=None, linear_time=False):
    """The SVG document for `series` read from `source`."""
    colors = [PALETTE[i % len(PALETTE)] for i in range(len(series))]
    with_player = len({s.player for s in series}) > 1
    turns = max(s.turns() for s in series)
    x0, x1 = LEFT, WIDTH - RIGHT

    xs = Linear(0.5, turns + 0.5, x0, x1)
    step = max(1, int(nice_step(turns, 12)))
    xs.ticks = ([1] if step >= 5 else []) + list(range(step, turns + 1, step))

    # Top panel: boards.
    b0, b1 = TOP, TOP + BOARDS_H
    counts = [v for s in series for _, v in s.boards if v > 0]
    stashes = [v for s in series for _, v in s.stashed if v > 0]
    # Log scales keep a few pixels off the frame, so a line of 1 board shows.
    ys_b = Log(1, max(counts + stashes + [1]), b1 - PAD, b0 + PAD, floor=1)
    # Bottom panel: milliseconds per turn.
    t0, t1 = b1 + GAP, b1 + GAP + TIME_H
    times = [v for s in series for v in list(s.decision.values()) + list(s.update.values())]
    if linear_time:
        top_ms = max(times + [0.0])
        top_ms = top_ms * 1.08 if top_ms > 0 else 1.0
        step_ms = nice_step(top_ms, 5)
        top_ms = math.ceil(top_ms / step_ms) * step_ms
        ys_t = Linear(0.0, top_ms, t1, t0)
    else:
        positive = [v for v in times if v > 0] or [1.0]
        ys_t = Log(min(positive), max(positive), t1 - PAD, t0 + PAD, floor=0.001)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" {FONT} font-size="12">',
        "<style>"
        ".grid{stroke:#e3e6ea;stroke-width:1}.minor{stroke:#f1f3f5;stroke-width:1}"
        ".frame{fill:none;stroke:#9aa3ad;stroke-width:1}"
        ".tick{fill:#4a525a;font-size:11px}.axis-title{fill:#22272c;font-size:12px}"
        ".title{fill:#111;font-size:17px;font-weight:600}.subtitle{fill:#555;font-size:12px}"
        ".panel-label{fill:#22272c;font-size:12px;font-weight:600}"
        ".legend-text{fill:#22272c;font-size:12px}"
        ".legend-head{fill:#22272c;font-size:12px;font-weight:600}"
        "</style>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
    ]
    games = sorted({s.game for s in series})
    max_boards = max(counts + [0])
    decide_ms = sum(sum(s.decision.values()) for s in series)
    update_ms = sum(sum(s.update.values()) for s in series)
    heading = title or f"rbc profile: {Path(source).name}"
    sub = (f"{len(games)} game{'s' if len(games) != 1 else ''} · {len(series)} "
           f"side{'s' if len(series) != 1 else ''} · up to {turns} turns · "
           f"largest belief {thousands(max_boards)} board{'s' if max_boards != 1 else ''} · "
           f"decisions {duration(decide_ms)}, updates {duration(update_ms)} in all")
    parts.append(f'<text x="{LEFT}" y="30" class="title">{escape(heading)}</text>')
    parts.append(f'<text x="{LEFT}" y="52" class="subtitle">{escape(sub)}</text>')

    # Boards panel.
    parts.append('<g id="boards-panel">')
    parts.append(f'<text x="{LEFT}" y="{b0 - 8}" class="panel-label">Belief size (log scale)</text>')
    log_y_axis(parts, ys_b, count_label)
    x_axis(parts, xs, b0, b1, tick_labels=False)
    frame(parts, b0, b1)
    panel_title(parts, b0, b1, "boards")
    has_stash = False
    for s, color in zip(series, colors):
        attrs = f' data-game="{s.game}" data-color={quoteattr(s.color or "")}'
        name = s.label(with_player)
        for run in runs(s.boards, lambda v: v > 0):
            pts = [(xs(x), ys_b(v)) for x, v in run]
            parts.append(polyline(pts, "boards", color, False, f"{name}: active boards", attrs))
        if any(v > 0 for _, v in s.stashed):
            has_stash = True
            for run in runs(s.stashed, lambda v: v > 0):
                pts = [(xs(x), ys_b(v)) for x, v in run]
                parts.append(polyline(pts, "stashed", color, True, f"{name}: stashed boards", attrs))
    parts.append("</g>")

    # Time panel.
    parts.append('<g id="time-panel">')
    scale_name = "linear" if linear_time else "log scale"
    parts.append(f'<text x="{LEFT}" y="{t0 - 8}" class="panel-label">Time per turn ({scale_name})</text>')
    if linear_time:
        linear_y_axis(parts, ys_t, ys_t.hi, ms_label)
    else:
        log_y_axis(parts, ys_t, ms_label)
    x_axis(parts, xs, t0, t1, tick_labels=True)
    frame(parts, t0, t1)
    panel_title(parts, t0, t1, "time")
    floor = 0.0 if linear_time else 10.0 ** ys_t.lo
    for s, color in zip(series, colors):
        attrs = f' data-game="{s.game}" data-color={quoteattr(s.color or "")}'
        name = s.label(with_player)
        for cls, data, dashed, what in (("decision", s.decision, False, "sense + move"),
                                        ("update", s.update, True, "updates")):
            pts = [(xs(t), ys_t(max(v, floor))) for t, v in sorted(data.items())]
            if pts:
                parts.append(polyline(pts, cls, color, dashed, f"{name}: {what} ms per turn",
                                      attrs, dots=turns <= 40))
    parts.append(f'<text x="{(x0 + x1) / 2:.1f}" y="{t1 + 42}" text-anchor="middle" '
                 f'class="axis-title">our turn</text>')
    parts.append("</g>")

    legend(parts, series, colors, with_player, has_stash)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Plot an rbc --profile file (JSON lines) as an SVG: belief size and "
                    "time per turn.")
    ap.add_argument("profile", help="the file written by `rbc play/track --profile`")
    ap.add_argument("-o", "--output", help="the SVG to write (default: PROFILE with .svg)")
    ap.add_argument("--game", type=int, action="append", metavar="N",
                    help="plot only game N (repeat for several)")
    ap.add_argument("--linear-time", action="store_true",
                    help="a linear time axis instead of a log one")
    ap.add_argument("--title", help="the heading (default: the file's name)")
    args = ap.parse_args(argv)
    out = Path(args.output) if args.output else Path(args.profile).with_suffix(".svg")
    try:
        series = read_profile(args.profile, set(args.game) if args.game else None)
        svg = render(series, args.profile, args.title, args.linear_time)
        try:
            out.write_text(svg, encoding="utf-8")
        except OSError as e:
            raise ProfileError(f"cannot write {out}: {e.strerror or e}") from None
    except ProfileError as e:
        print(f"plot_profile.py: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({len(series)} series)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
