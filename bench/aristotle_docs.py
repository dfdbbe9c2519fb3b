#!/usr/bin/env python3
"""Markdown tables of an Aristotle campaign, rebuilt from its CSV export without hardware.

    bench/aristotle_docs.py EXPORT_DIR [--history ../shared/data/aristotle-pdb-2014.csv]
        [--local-variant max] [--delta 0.05]

EXPORT_DIR holds devices.csv, aristotle_units.csv and aristotle_samples.csv as written by
bench/aristotle_campaign.sh (`clmap db export`). Prints, per measured device, the b / B / mbr
table per MAP and dataset, and the gain/loss/similar distribution (Table 5 of the Aristotle
paper) next to the 2014 platforms when the history file is given. The statistics are the same
as `clmap db maps`: mean and sample standard deviation of each unit's bandwidth samples.
With aristotle_copy_bandwidth.csv present, it also compares the Single MAPs without local
memory at the largest dataset with the device's copy bandwidth.
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


def print_copy_check(export_dir):
    """Single MAPs without local memory at the largest dataset against the device's copy
    bandwidth. §6.1's bandwidth counts the bytes read; the kernels also write one float per
    work-item, so reads + writes (2 b) is what compares with a copy's read + write."""
    path = os.path.join(export_dir, "aristotle_copy_bandwidth.csv")
    if not os.path.exists(path):
        return
    copies = {row["device_id"]: float(row["bandwidth_gbs"]) for row in read_csv(path)}
    devices = {row["id"]: row for row in read_csv(os.path.join(export_dir, "devices.csv"))}
    units = read_csv(os.path.join(export_dir, "aristotle_units.csv"))
    samples = defaultdict(list)
    for row in read_csv(os.path.join(export_dir, "aristotle_samples.csv")):
        samples[row["unit_id"]].append(float(row["bandwidth_gbs"]))
    for device, copy in copies.items():
        singles = [u for u in units if u["device_id"] == device and u["variant"] == "nolocal"
                   and u["status"] == "measured" and 100 < int(u["map"]) < 200]
        if not singles:
            continue
        largest = max(int(u["dataset"]) for u in singles)
        name = devices.get(device, {}).get("name", f"device {device}")
        print(f"### Copy bandwidth check: {name}, N = {largest}\n")
        print(f"Copy bandwidth (clEnqueueCopyBuffer, read + write): {copy:.0f} GB/s.\n")
        print("| MAP | b (reads, §6.1) GB/s | reads + writes GB/s | of copy |")
        print("|---|---:|---:|---:|")
        for u in sorted(singles, key=lambda u: int(u["map"])):
            if int(u["dataset"]) != largest:
                continue
            b, _ = mean_std(samples[u["id"]])
            print(f"| MAP-{u['map']} | {b:.0f} | {2 * b:.0f} | {200 * b / copy:.0f} % |")
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
    print_copy_check(args.export_dir)


if __name__ == "__main__":
    main()
