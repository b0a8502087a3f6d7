#!/usr/bin/env python3
"""Compares `rbc bench` between two revisions, measured in the same run.

Usage: scripts/bench_ab.py BASE NEW [--rounds N] [--fixtures LIST] [--runs N]
e.g.   scripts/bench_ab.py cb66378 HEAD --rounds 3 --fixtures 10k,100k,1m

Each revision is checked out into a temporary git worktree and built
(`cargo build --release -p rbc-cli`, its own target directory under
target/bench-ab). The two binaries then run `rbc bench --json --engine
builtin` alternately, BASE first, for the given number of rounds, so that
both see the same load. The table gives, per figure, the median over the
rounds of each binary's median (of `--runs` runs) and the ratio NEW / BASE
(for times, a ratio below 1 is faster).

Only the standard library; needs git and cargo.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def build(rev, name):
    """Builds `rev` and returns the path of its `rbc` binary."""
    sha = subprocess.run(
        ["git", "rev-parse", "--short", rev], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout.strip()
    target = os.path.join(ROOT, "target", "bench-ab", name)
    with tempfile.TemporaryDirectory(prefix="rbc-ab-") as tmp:
        tree = os.path.join(tmp, "tree")
        subprocess.run(["git", "worktree", "add", "--detach", "-q", tree, sha], cwd=ROOT, check=True)
        try:
            env = dict(os.environ, CARGO_TARGET_DIR=target)
            subprocess.run(["cargo", "build", "--release", "-q", "-p", "rbc-cli"], cwd=tree, env=env, check=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=ROOT, check=False)
    return sha, os.path.join(target, "release", "rbc")


def bench(binary, args):
    cmd = [binary, "bench", "--json", "--engine", "builtin", "--runs", str(args.runs)]
    if args.fixtures:
        cmd += ["--fixtures", args.fixtures]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return {(r["fixture"], r["figure"]): (r["value"], r["unit"]) for r in json.loads(out)["rows"]}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("base")
    p.add_argument("new")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--fixtures", default="")
    args = p.parse_args()
    (base_sha, base), (new_sha, new) = build(args.base, "base"), build(args.new, "new")
    results = {"base": [], "new": []}
    for r in range(args.rounds):
        for side, binary in (("base", base), ("new", new)):
            print(f"round {r + 1}/{args.rounds}: {side}", file=sys.stderr)
            results[side].append(bench(binary, args))
    print(f"| fixture | figure | {base_sha} | {new_sha} | ratio | unit |")
    print("|---|---|---:|---:|---:|---|")
    for key in results["base"][0]:
        if not all(key in run for side in results.values() for run in side):
            continue
        b = statistics.median(run[key][0] for run in results["base"])
        n = statistics.median(run[key][0] for run in results["new"])
        ratio = f"{n / b:.2f}x" if b else "-"
        print(f"| {key[0]} | {key[1]} | {b:.4g} | {n:.4g} | {ratio} | {results['base'][0][key][1]} |")


if __name__ == "__main__":
    main()
