#!/usr/bin/env python3
"""Markdown tables of an Aristotle campaign, rebuilt from its CSV export without hardware.

    bench/aristotle_docs.py EXPORT_DIR [--history ../shared/data/aristotle-pdb-2014.csv]
        [--local-variant max] [--delta 0.05]

EXPORT_DIR holds devices.csv, aristotle_units.csv and aristotle_samples.csv as written by
bench/aristotle_campaign.sh (`clmap db export`). Prints, per measured device, the b / B / mbr
table per MAP and dataset, and the gain/loss/similar distribution (Table 5 of the Aristotle
paper) next to the 2014 platforms when the history file is given. The statistics are the same
as `clmap db maps`: mean and sample standard deviation of each unit's bandwidth samples.
"""

import argparse
import csv
import math
import os
import sys
from collections import defaultdict


def mean_std(values):
    if not values:
        return 0.0, 0.0
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(var)


def impact(mbr, delta):
    if not math.isfinite(mbr):
        return "similar"
    if mbr > 1 + delta:
        return "gain"
    if mbr < 1 - delta:
        return "loss"
    return "similar"


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def measured_tables(export_dir, local_variant):
    devices = {row["id"]: row for row in read_csv(os.path.join(export_dir, "devices.csv"))}
    units = read_csv(os.path.join(export_dir, "aristotle_units.csv"))
    samples = defaultdict(list)
    for row in read_csv(os.path.join(export_dir, "aristotle_samples.csv")):
        samples[row["unit_id"]].append(float(row["bandwidth_gbs"]))
    stats = {}
    for u in units:
        if u["status"] != "measured" or not samples[u["id"]]:
            continue
        key = (u["device_id"], int(u["map"]), int(u["dataset"]), u["variant"])
        stats[key] = mean_std(samples[u["id"]])
    tables = {}
    for (device, m, n, variant), (b_mean, b_std) in stats.items():
        if variant != "nolocal":
            continue
        other = stats.get((device, m, n, local_variant))
        if other is None:
            continue
        big_mean, big_std = other
        mbr = big_mean / b_mean if b_mean > 0 else float("nan")
        name = devices.get(device, {}).get("name", f"device {device}")
        tables.setdefault(name, []).append((m, n, b_mean, b_std, big_mean, big_std, mbr))
    return {name: sorted(rows) for name, rows in tables.items()}


def history_tables(path):
    tables = {}
    for row in read_csv(path):
        tables.setdefault(f"{row['platform']} (2014)", []).append((
            int(row["map"]), int(row["n"]), float(row["b_mean"]), float(row["b_std"]),
            float(row["B_mean"]), float(row["B_std"]), float(row["mbr_mean"])))
    return {name: sorted(rows) for name, rows in tables.items()}


def distribution(rows, delta):
    counts = defaultdict(lambda: {"gain": 0, "loss": 0, "similar": 0})
    for _, n, *_rest, mbr in rows:
        counts[n][impact(mbr, delta)] += 1
    return dict(sorted(counts.items()))


def print_table(name, rows, local_variant):
    print(f"### {name}\n")
    print(f"b: no local memory; B: `{local_variant}` variant; GB/s, mean ± standard deviation.\n")
    print("| MAP | N | b | B | mbr |")
    print("|---|---:|---:|---:|---:|")
    for m, n, b, bs, big, bigs, mbr in rows:
        print(f"| MAP-{m} | {n} | {b:.3f} ± {bs:.3f} | {big:.3f} ± {bigs:.3f} | {mbr:.3f} |")
    print()


def print_distributions(tables, delta):
    names = list(tables)
    dists = {name: distribution(rows, delta) for name, rows in tables.items()}
    sizes = sorted({n for d in dists.values() for n in d})
    print(f"### Gain / loss / similar (δ = {delta})\n")
    print("| N | | " + " | ".join(names) + " |")
    print("|---|---|" + "---:|" * len(names))
    for n in sizes:
        for kind in ("gain", "loss", "similar"):
            cells = []
            for name in names:
                c = dists[name].get(n)
                if c is None:
                    cells.append("–")
                    continue
                total = sum(c.values())
                cells.append(f"{c[kind]} ({c[kind] * 100 // total}%)")
            print(f"| {n} | {kind} | " + " | ".join(cells) + " |")
    print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("export_dir")
    parser.add_argument("--history")
    parser.add_argument("--local-variant", default="max")
    parser.add_argument("--delta", type=float, default=0.05)
    args = parser.parse_args()
    try:
        tables = measured_tables(args.export_dir, args.local_variant)
    except FileNotFoundError as e:
        sys.exit(f"error: {e}")
    for name, rows in tables.items():
        print_table(name, rows, args.local_variant)
    everything = dict(tables)
    if args.history:
        everything.update(history_tables(args.history))
    if everything:
        print_distributions(everything, args.delta)


if __name__ == "__main__":
    main()
