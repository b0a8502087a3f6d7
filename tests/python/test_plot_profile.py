"""scripts/plot_profile.py on real and hand-made `--profile` files.

The SVG must parse as XML and hold, per game and side, the belief line(s)
in the top panel and the two time lines in the bottom one, with the axis
labels and legend. Needs the release binary for the real profile: run
`cargo build --release` first (or set RBC_BIN).
"""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "plot_profile.py"
RBC = Path(os.environ.get("RBC_BIN", ROOT / "target" / "release" / "rbc"))
SVG = "{http://www.w3.org/2000/svg}"
PHASES = ["opponent_move", "sense", "sense_result", "move", "move_result"]


def plot(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def parse(path):
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    return root


def polylines(root, cls):
    return [p for p in root.iter(f"{SVG}polyline") if cls in p.get("class", "").split()]


def texts(root):
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def points(line):
    return [tuple(map(float, p.split(","))) for p in line.get("points").split()]


def write_profile(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def turn_rows(game, color, turns, boards, player="rbc", stashed=0):
    rows = []
    for t in range(1, turns + 1):
        for phase in PHASES:
            rows.append({"game": game, "player": player, "color": color, "turn": t,
                         "phase": phase, "ms": 0.25 * t, "boards": boards(t, phase),
                         "stashed": stashed, "dropped": 0,
                         "seconds_left": 60.0 if phase in ("sense", "move") else None})
    return rows


def test_a_real_match_plots_one_line_set_per_game(tmp_path):
    if not (RBC.is_file() and os.access(RBC, os.X_OK)):
        pytest.fail(f"{RBC} is missing: run `cargo build --release` first", pytrace=False)
    profile = tmp_path / "match.jsonl"
    proc = subprocess.run([str(RBC), "play", "--opponent", "random", "--engine", "builtin",
                           "--games", "2", "--capacity", "100000", "--seed", "4", "--quiet",
                           "--profile", str(profile)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in profile.read_text().splitlines()]
    assert {r["game"] for r in rows} == {1, 2}

    out = tmp_path / "match.svg"
    proc = plot(profile, "-o", out)
    assert proc.returncode == 0, proc.stderr
    root = parse(out)
    assert len(polylines(root, "boards")) >= 2
    for cls in ("decision", "update"):
        lines = polylines(root, cls)
        assert sorted(line.get("data-game") for line in lines) == ["1", "2"], cls
    # rbc is white in game 1 and black in game 2.
    colors = {line.get("data-game"): line.get("data-color") for line in polylines(root, "decision")}
    assert colors == {"1": "white", "2": "black"}
    # One time point per turn of rbc's.
    turns = {g: max(r["turn"] for r in rows if r["game"] == g) for g in (1, 2)}
    for line in polylines(root, "decision"):
        assert len(points(line)) == turns[int(line.get("data-game"))]
    words = " ".join(texts(root))
    for label in ("Belief size (log scale)", "Time per turn (log scale)", "our turn", "boards",
                  "game 1 · white", "game 2 · black", "sense + move decisions", "belief updates"):
        assert label in words, label
    ids = {g.get("id") for g in root.iter(f"{SVG}g")}
    assert {"boards-panel", "time-panel"} <= ids

    # --game keeps one game; a linear time axis is on request.
    proc = plot(profile, "-o", out, "--game", "2", "--linear-time")
    assert proc.returncode == 0, proc.stderr
    root = parse(out)
    assert {line.get("data-game") for line in polylines(root, "decision")} == {"2"}
    assert "Time per turn (linear)" in texts(root)


def test_a_one_board_game_gets_a_decade_of_log_scale(tmp_path):
    profile = tmp_path / "one.jsonl"
    write_profile(profile, turn_rows(1, "white", 3, lambda t, p: 1))
    out = tmp_path / "one.svg"
    proc = plot(profile, "-o", out)
    assert proc.returncode == 0, proc.stderr
    root = parse(out)
    (line,) = polylines(root, "boards")
    ys = {y for _, y in points(line)}
    assert len(ys) == 1, "every point on the line of 1 board"
    labels = texts(root)
    assert "1" in labels and "10" in labels
    assert not polylines(root, "stashed")


def test_stashed_boards_get_their_own_line_and_both_rbc_sides_are_named(tmp_path):
    profile = tmp_path / "self.jsonl"
    rows = (turn_rows(1, "white", 4, lambda t, p: 10 ** t, player="rbc#1", stashed=5)
            + turn_rows(1, "black", 3, lambda t, p: 2, player="rbc#2"))
    write_profile(profile, rows)
    out = tmp_path / "self.svg"
    proc = plot(profile, "-o", out)
    assert proc.returncode == 0, proc.stderr
    root = parse(out)
    assert len(polylines(root, "stashed")) == 1
    assert len(polylines(root, "boards")) == 2
    words = " ".join(texts(root))
    assert "game 1 · rbc#1 · white" in words and "game 1 · rbc#2 · black" in words
    assert "stashed boards" in words
    assert "10k" in words, "log ticks up to the largest belief"


def test_track_profiles_skip_queries_and_errors(tmp_path):
    profile = tmp_path / "track.jsonl"
    rows = [{"line": 1, "game": 0, "color": None, "turn": 1, "phase": "count", "ok": False,
             "ms": 0.01, "boards": None, "stashed": None, "dropped": None, "seconds_left": None},
            {"line": 2, "game": 1, "color": "white", "turn": 1, "phase": "game_start", "ok": True,
             "ms": 0.01, "boards": 1, "stashed": 0, "dropped": 0, "seconds_left": None}]
    for i, phase in enumerate(PHASES):
        rows.append({"line": 3 + i, "game": 1, "color": "white", "turn": 1, "phase": phase,
                     "ok": True, "ms": 0.5, "boards": 1, "stashed": 0, "dropped": 0,
                     "seconds_left": None})
    write_profile(profile, rows)
    out = tmp_path / "track.svg"
    proc = plot(profile, "-o", out)
    assert proc.returncode == 0, proc.stderr
    root = parse(out)
    assert {line.get("data-game") for line in polylines(root, "boards")} == {"1"}


@pytest.mark.parametrize("content, message", [
    ("", "is empty"),
    ("\n\n", "is empty"),
    ("not json\n", "not JSON"),
    ('{"line":1,"game":0,"color":null,"turn":1,"phase":"count","ok":false,"ms":0.1}\n',
     "no turn phases"),
    ('{"hello":"world"}\n', "not a profile line"),
])
def test_unplottable_files_are_clear_errors(tmp_path, content, message):
    profile = tmp_path / "bad.jsonl"
    profile.write_text(content)
    out = tmp_path / "bad.svg"
    proc = plot(profile, "-o", out)
    assert proc.returncode == 2
    assert message in proc.stderr, proc.stderr
    assert not out.exists()


def test_an_unknown_game_is_named_in_the_error(tmp_path):
    profile = tmp_path / "g.jsonl"
    write_profile(profile, turn_rows(1, "white", 2, lambda t, p: 3))
    proc = plot(profile, "-o", tmp_path / "g.svg", "--game", "7")
    assert proc.returncode == 2
    assert "no game 7" in proc.stderr and "games: 1" in proc.stderr


def test_a_missing_file_is_a_clear_error(tmp_path):
    proc = plot(tmp_path / "nothing.jsonl", "-o", tmp_path / "x.svg")
    assert proc.returncode == 2
    assert "cannot read" in proc.stderr
