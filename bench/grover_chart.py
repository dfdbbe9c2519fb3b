#!/usr/bin/env python3
"""Seed 000's Figure 10 and Table IV from `bench/grover_measure.sh` tables.

Usage: bench/grover_chart.py OUT.svg LABEL=TABLE.md [LABEL=TABLE.md ...]

Draws normalised performance np = t(with local) / t(without) per case and device as grouped
bars on a logarithmic axis (np > 1: removing local memory is faster), and prints the
gain / similar / loss distribution per device at the 5 % threshold of the paper.
"""
import math
import sys

THRESHOLD = 0.05
COLOURS = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee"]


def read_table(path):
    rows = []
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 5 or cells[0] in ("ID", "") or cells[0].startswith("---"):
            continue
        try:
            rows.append((cells[0], float(cells[4])))
        except ValueError:
            continue
    return rows


def verdict(np_value):
    if np_value > 1 + THRESHOLD:
        return "gain"
    if np_value < 1 - THRESHOLD:
        return "loss"
    return "similar"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out = sys.argv[1]
    devices = []
    for arg in sys.argv[2:]:
        label, _, path = arg.partition("=")
        devices.append((label, dict(read_table(path))))
    cases = []
    for _, table in devices:
        for case in table:
            if case not in cases:
                cases.append(case)

    print("| device | gain | similar | loss |")
    print("|---|---|---|---|")
    for label, table in devices:
        counts = {"gain": 0, "similar": 0, "loss": 0}
        for value in table.values():
            counts[verdict(value)] += 1
        print(f"| {label} | {counts['gain']} | {counts['similar']} | {counts['loss']} |")

    width, height = 900, 420
    left, right, top, bottom = 60, 20, 40, 110
    plot_w, plot_h = width - left - right, height - top - bottom
    lo, hi = math.log2(0.25), math.log2(8.0)

    def y_of(value):
        v = min(max(math.log2(max(value, 1e-9)), lo), hi)
        return top + plot_h * (hi - v) / (hi - lo)

    group = plot_w / max(len(cases), 1)
    bar = group * 0.8 / max(len(devices), 1)
    svg = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="DejaVu Sans, sans-serif" font-size="11">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">'
        "np = t(with local memory) / t(without); above 1: removing local memory is faster</text>",
    ]
    for tick in (0.25, 0.5, 1, 2, 4, 8):
        y = y_of(tick)
        svg.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" '
                   f'stroke="{"#000" if tick == 1 else "#ddd"}"/>')
        svg.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{tick:g}</text>')
    for i, case in enumerate(cases):
        x0 = left + i * group + group * 0.1
        for j, (_, table) in enumerate(devices):
            if case not in table:
                continue
            y, y1 = y_of(table[case]), y_of(1.0)
            svg.append(f'<rect x="{x0 + j * bar:.1f}" y="{min(y, y1):.1f}" width="{bar * 0.9:.1f}" '
                       f'height="{abs(y1 - y):.1f}" fill="{COLOURS[j % len(COLOURS)]}"/>')
        cx = left + (i + 0.5) * group
        svg.append(f'<text transform="translate({cx:.1f},{top + plot_h + 10}) rotate(40)">{case}</text>')
    for j, (label, _) in enumerate(devices):
        x = left + j * 220
        svg.append(f'<rect x="{x}" y="{height - 18}" width="12" height="12" fill="{COLOURS[j % len(COLOURS)]}"/>')
        svg.append(f'<text x="{x + 16}" y="{height - 8}">{label}</text>')
    svg.append("</svg>")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
