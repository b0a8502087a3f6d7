#!/usr/bin/env python3
"""Runs a criterion bench and prints its figures as a markdown table.

Usage: scripts/perf.py BENCH [criterion args...]
e.g.   scripts/perf.py movegen --measurement-time 5

Benches print `nodes <id> <count>` (or `elems <id> <count>`) on stderr for
each benchmark id; this script pairs them with criterion's bencher-format
times and reports elements per second, and for ids `<group>/<ours>/<case>`
next to `<group>/<baseline>/<case>` the ratio of the first to each of the
others, all measured in the same run.
"""
import re
import subprocess
import sys


def main():
    bench = sys.argv[1]
    extra = sys.argv[2:]
    cmd = ["cargo", "bench", "-p", "rbc-benches", "--bench", bench, "--", "--output-format", "bencher"] + extra
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        sys.exit(proc.returncode)
    counts = {}
    for line in proc.stderr.splitlines():
        m = re.match(r"^(?:nodes|elems) (\S+) (\d+)$", line)
        if m:
            counts[m.group(1)] = int(m.group(2))
    rows = []
    for line in proc.stdout.splitlines():
        m = re.match(r"^test (\S+) \.\.\. bench:\s+([\d,]+) ns/iter \(\+/- ([\d,]+)\)", line)
        if m:
            name, ns = m.group(1), int(m.group(2).replace(",", ""))
            n = counts.get(name)
            rows.append((name, ns, n, n / (ns / 1e9) if n else None))
    print(f"| benchmark | time per iteration | elements | elements/s |")
    print(f"|---|---:|---:|---:|")
    for name, ns, n, rate in rows:
        rate_s = f"{rate / 1e6:.1f} M/s" if rate else "-"
        print(f"| {name} | {ns / 1e6:.3f} ms | {n if n else '-'} | {rate_s} |")
    # Ratios: pair ids that differ only in their middle part.
    by_case = {}
    for name, ns, n, rate in rows:
        parts = name.split("/")
        if len(parts) == 3 and rate:
            by_case.setdefault((parts[0], parts[2]), []).append((parts[1], rate))
    ratios = [(k, v) for k, v in by_case.items() if len(v) >= 2]
    if ratios:
        print()
        print("| case | ratio (first / other) |")
        print("|---|---:|")
        for (group, case), ((a, ra), *others) in ratios:
            for b, rb in others:
                print(f"| {group}/{case}: {a} vs {b} | {ra / rb:.2f}x |")


if __name__ == "__main__":
    main()
