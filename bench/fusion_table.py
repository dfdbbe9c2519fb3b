#!/usr/bin/env python3
"""Seed 002's results table and chart from `bench/fusion_measure.sh` reports.

Usage: bench/fusion_table.py OUT.svg LABEL=REPORTS.jsonl [LABEL=REPORTS.jsonl ...]

Prints a markdown table per device (unfused and fused pipeline time, speedup, fused steps K,
tile, work-group, redundant computation RC, launches before and after) with the geometric
mean, and draws the speedups as grouped bars on a logarithmic axis (above 1: fusion wins).
"""
import json
import math
import sys

COLOURS = ["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee"]


def human(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def read(path):
    return [json.loads(line) for line in open(path, encoding="utf-8") if line.strip()]


def table(label, reports):
    print(f"### {label}")
    device = next((r["device"] for r in reports if r.get("device")), "?")
    print(f"\nDevice: {device}\n")
    print("| application | unfused | fused | speedup | K | tile | work-group | RC | launches |")
    print("|---|---|---|---|---|---|---|---|---|")
    speedups = []
    for r in reports:
        if not r.get("fused") or "speedup" not in r:
            why = r.get("reason") or r.get("error") or "; ".join(r.get("refusals", []))
            print(f"| {r['app']} | | | not fused: {why.strip().splitlines()[-1] if why else '?'} | | | | | |")
            continue
        s = r["segments"][0]
        speedups.append((r["app"], r["speedup"]))
        print(
            f"| {r['app']} | {human(r['unfused_ns'])} | {human(r['fused_ns'])} | "
            f"**{r['speedup']:.2f}×** | {s['steps']} | {'×'.join(map(str, s['tile']))} | "
            f"{'×'.join(map(str, s['work_group']))} | {100 * s['redundant_computation']:.1f} % | "
            f"{r['launches_before']} → {r['launches_after']} |"
        )
    if speedups:
        geo = math.exp(sum(math.log(v) for _, v in speedups) / len(speedups))
        print(f"\nGeometric mean speedup: **{geo:.2f}×** over {len(speedups)} applications.\n")
    return dict(speedups)


def chart(path, series):
    apps = []
    for _, values in series:
        for a in values:
            if a not in apps:
                apps.append(a)
    width, height, left, bottom, top = 900, 380, 60, 90, 30
    plot_w, plot_h = width - left - 20, height - bottom - top
    values = [v for _, s in series for v in s.values()] or [1.0]
    lo = min(0.5, min(values) / 1.2)
    hi = max(2.0, max(values) * 1.2)
    y = lambda v: top + plot_h * (1 - (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo)))
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="16" text-anchor="middle" font-size="13">'
           'Fused vs unfused pipeline (speedup, log scale)</text>']
    tick = lo
    for t in (0.5, 1, 2, 3, 5, 10, 20, 50):
        if lo <= t <= hi:
            out.append(f'<line x1="{left}" x2="{width - 20}" y1="{y(t):.1f}" y2="{y(t):.1f}" '
                       f'stroke="{"#444" if t == 1 else "#ddd"}"/>')
            out.append(f'<text x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{t}×</text>')
    group = plot_w / max(1, len(apps))
    bar = group * 0.8 / max(1, len(series))
    for i, app in enumerate(apps):
        x0 = left + i * group + group * 0.1
        for j, (label, values) in enumerate(series):
            if app not in values:
                continue
            v = values[app]
            y1, y0 = sorted((y(v), y(1)))
            out.append(f'<rect x="{x0 + j * bar:.1f}" y="{y1:.1f}" width="{bar * 0.9:.1f}" '
                       f'height="{max(1, y0 - y1):.1f}" fill="{COLOURS[j % len(COLOURS)]}">'
                       f'<title>{label} {app}: {v:.2f}×</title></rect>')
        cx = left + i * group + group / 2
        out.append(f'<text transform="translate({cx:.1f},{top + plot_h + 10}) rotate(35)">{app}</text>')
    for j, (label, _) in enumerate(series):
        lx = left + 10 + j * 160
        out.append(f'<rect x="{lx}" y="{height - 18}" width="10" height="10" fill="{COLOURS[j % len(COLOURS)]}"/>')
        out.append(f'<text x="{lx + 14}" y="{height - 9}">{label}</text>')
    out.append("</svg>")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    series = []
    for arg in sys.argv[2:]:
        label, _, path = arg.partition("=")
        series.append((label, table(label, read(path))))
    chart(sys.argv[1], series)


if __name__ == "__main__":
    main()
