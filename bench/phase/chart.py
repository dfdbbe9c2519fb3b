#!/usr/bin/env python3
"""Summary and chart of a phase-order campaign (bench/phase/campaign.sh).

Usage: bench/phase/chart.py OUTDIR

Reads the `clmap phase --json` reports OUTDIR/NAME.json and writes OUTDIR/summary.json,
OUTDIR/summary.csv and OUTDIR/speedups.svg (and .png with rsvg-convert) (speedup of the best sequence over NVIDIA's
compilation from source, over clang -O0 and over the best -O level, per kernel and as
geometric means, on a logarithmic axis as seed 003's Figure 1), and prints a Markdown table
for docs/phase.md.
"""
import csv
import shutil
import subprocess
import json
import math
import sys
from pathlib import Path

ORDER = ["2dconv", "2mm", "3dconv", "3mm", "atax", "bicg", "corr", "covar", "fdtd2d", "gemm",
         "gesummv", "gramschm", "mvt", "syr2k", "syrk"]
SERIES = [("vs_source", "over NVIDIA from source", "#4477aa"),
          ("vs_o0", "over clang -O0", "#ee6677"),
          ("vs_best_ox", "over the best -O level", "#228833")]


def load(out):
    rows = []
    for name in ORDER + sorted(p.stem for p in out.glob("*.json")):
        path = out / f"{name}.json"
        if name in [r["kernel"] for r in rows] or not path.exists() or name == "summary":
            continue
        try:
            report = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        best = report.get("best") or {}
        speedups = best.get("speedups") or {}
        baselines = {b["name"]: b.get("median_ns") for b in report.get("baselines", [])}
        minimised = report.get("minimised") or {}
        counts = report.get("counts", {})
        rows.append({
            "kernel": name,
            "best_ns": best.get("median_ns"),
            "source_ns": baselines.get("source"),
            "o0_ns": baselines.get("-O0"),
            "best_ox": speedups.get("best_ox"),
            "vs_source": speedups.get("vs_source"),
            "vs_o0": speedups.get("vs_o0"),
            "vs_best_ox": speedups.get("vs_best_ox"),
            "sequences": counts.get("sequences"),
            "distinct_valid_timed": counts.get("timed"),
            "sequences_per_second": report.get("sequences_per_second"),
            "best_passes": len(best.get("passes", [])),
            "minimised": (" ".join(minimised.get("passes", []))
                          if minimised.get("validated") is not False else "(failed validation)"),
        })
    return rows


def geomean(values):
    values = [v for v in values if v and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def svg(rows, means, path):
    groups = [(r["kernel"].upper(), [r[key] for key, _, _ in SERIES]) for r in rows]
    groups.append(("GEOMEAN", [means[key] for key, _, _ in SERIES]))
    values = [v for _, vs in groups for v in vs if v]
    lo = min([0.8] + values) / 1.1
    hi = max([2.0] + values) * 1.1
    width, height, left, top, bottom = max(640, 60 + 52 * len(groups)), 380, 50, 40, 80
    plot_h = height - top - bottom

    def y(v):
        return top + plot_h * (math.log(hi) - math.log(v)) / (math.log(hi) - math.log(lo))

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="DejaVu Sans, sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="20" font-size="13">Speedup of the best pass sequence '
           f'(log scale; above 1: faster)</text>']
    for tick in [0.5, 0.75, 1, 1.25, 1.5, 2, 3, 4, 6, 8]:
        if lo <= tick <= hi:
            out.append(f'<line x1="{left}" x2="{width - 10}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                       f'stroke="{"#000" if tick == 1 else "#ddd"}"/>')
            out.append(f'<text x="{left - 5}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
    for gi, (label, vs) in enumerate(groups):
        x0 = left + 8 + gi * 52
        for si, v in enumerate(vs):
            if not v:
                continue
            top_y, base = min(y(v), y(1)), max(y(v), y(1))
            out.append(f'<rect x="{x0 + si * 14}" y="{top_y:.1f}" width="13" '
                       f'height="{max(base - top_y, 0.5):.1f}" fill="{SERIES[si][2]}">'
                       f'<title>{label} {SERIES[si][1]}: {v:.2f}x</title></rect>')
        out.append(f'<text x="{x0 + 20}" y="{height - bottom + 14}" text-anchor="end" '
                   f'transform="rotate(-45 {x0 + 20} {height - bottom + 14})">{label}</text>')
    for si, (_, name, colour) in enumerate(SERIES):
        lx = left + si * 190
        out.append(f'<rect x="{lx}" y="{height - 18}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{lx + 14}" y="{height - 9}">{name}</text>')
    out.append("</svg>")
    path.write_text("\n".join(out) + "\n")


def fmt(v, digits=2):
    return "-" if v is None else f"{v:.{digits}f}"


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    rows = load(out)
    if not rows:
        sys.exit(f"no reports in {out}")
    means = {key: geomean([r[key] for r in rows]) for key, _, _ in SERIES}
    (out / "summary.json").write_text(json.dumps({"kernels": rows, "geomean": means}, indent=2) + "\n")
    with open(out / "summary.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    svg(rows, means, out / "speedups.svg")
    if shutil.which("rsvg-convert"):
        # A PNG beside the SVG for viewers that do not render SVG.
        subprocess.run(["rsvg-convert", str(out / "speedups.svg"), "-o", str(out / "speedups.png")],
                       check=False)
    print("| kernel | best (ms) | NVIDIA from source (ms) | vs source | vs -O0 | vs best -O (level) | minimised sequence |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        ms = lambda ns: None if ns is None else ns / 1e6
        print(f"| {r['kernel'].upper()} | {fmt(ms(r['best_ns']), 3)} | {fmt(ms(r['source_ns']), 3)} | "
              f"{fmt(r['vs_source'])} | {fmt(r['vs_o0'])} | {fmt(r['vs_best_ox'])} ({r['best_ox'] or '-'}) | "
              f"`{r['minimised'] or '-'}` |")
    print(f"| **geomean** | | | **{fmt(means['vs_source'])}** | **{fmt(means['vs_o0'])}** | "
          f"**{fmt(means['vs_best_ox'])}** | |")


if __name__ == "__main__":
    main()
