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
memory at the largest dataset with the device's copy bandwidth. With the composer's export
(aristotle_compose_units.csv, aristotle_compose_samples.csv) it scores the composing rules per
dataset (Table 6) as `clmap db compose` does: step v0 -> v1 tests the prediction for the first
MAP, v1 -> v2 the one for the second; a structure is predicted to gain when its mbr on the same
device and dataset exceeds 1 + delta, and a step fails when a predicted gain slows the kernel or
a predicted non-gain speeds it up beyond delta (kernel times are the means of each version's
samples).
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


def print_compose(export_dir, tables, delta):
    """Table 6 from the composer's export, with each step's share apart."""
    units_path = os.path.join(export_dir, "aristotle_compose_units.csv")
    if not os.path.exists(units_path):
        return
    devices = {row["id"]: row for row in read_csv(os.path.join(export_dir, "devices.csv"))}
    kernel_ns = defaultdict(list)
    for row in read_csv(os.path.join(export_dir, "aristotle_compose_samples.csv")):
        kernel_ns[row["unit_id"]].append(float(row["kernel_ns"]))
    times = defaultdict(dict)
    for u in read_csv(units_path):
        if u["status"] == "measured" and kernel_ns[u["id"]]:
            key = (u["device_id"], int(u["map1"]), int(u["map2"]), int(u["dataset"]))
            times[key][u["version"]] = mean_std(kernel_ns[u["id"]])[0]
    # Per dataset: tests and successes of step 1, of step 2, of the steps predicted to gain.
    by_device = defaultdict(lambda: defaultdict(lambda: [0, 0, 0, 0, 0, 0]))
    pairs = defaultdict(set)
    for (device, m1, m2, n), t in sorted(times.items()):
        name = devices.get(device, {}).get("name", f"device {device}")
        mbr = {m: r for m, rn, *_rest, r in tables.get(name, []) if rn == n}
        if not all(v in t for v in ("v0", "v1", "v2")) or m1 not in mbr or m2 not in mbr:
            continue
        pairs[name].add((m1, m2))
        row = by_device[name][n]
        for step, (m, before, after) in enumerate(((m1, "v0", "v1"), (m2, "v1", "v2"))):
            predicted = impact(mbr[m], delta) == "gain"
            measured = impact(t[before] / t[after], delta)
            holds = measured != "loss" if predicted else measured != "gain"
            row[2 * step] += 1
            row[2 * step + 1] += int(holds)
            if predicted:
                row[4] += 1
                row[5] += int(holds)
    for name, rows in by_device.items():
        print(f"### Composing rules: {name}, {len(pairs[name])} pairs (δ = {delta})\n")
        print("| N | tests | correct | accuracy | v0→v1 (MAP1) | v1→v2 (MAP2) "
              "| predicted to gain |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        for n, (t1, c1, t2, c2, tg, cg) in sorted(rows.items()):
            tests, correct = t1 + t2, c1 + c2
            print(f"| {n} | {tests} | {correct} | {100 * correct / tests:.1f} % "
                  f"| {c1}/{t1} | {c2}/{t2} | {cg}/{tg} |")
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
    print_compose(args.export_dir, tables, args.delta)


if __name__ == "__main__":
    main()
