#!/usr/bin/env python3
"""The advisor's accuracy table from `clmap tune --work-groups none --json` runs.

Usage: bench/advise_accuracy.py OUT_DIR [--tie PERCENT]

Reads OUT_DIR/runs/NAME.json (one `clmap tune --json` report per workload; NAME.rc holds the
exit status and NAME.err the progress lines), writes OUT_DIR/accuracy.json and
OUT_DIR/accuracy.md, and prints the markdown.

Per workload and device: the layout the advisor advised, the measured winner among the layout
variants that were validated and timed (the smallest median, recomputed here rather than taken
from the report's `chosen`), whether the winner has the advised layout, and, when it does not,
how far the advice is from the winner: median(advised variant) / median(winner). A workload is
*judged* when the advisor gave advice and at least two layout variants were timed; only judged
workloads count towards the accuracy. `--tie` (default 5 %) also reports the accuracy that
counts an advised variant within that margin of the winner as agreeing, since timings of a few
microseconds move by more than that between runs.
"""
import json
import math
import os
import sys

# `stage_all`: several buffers staged together, built when the advice stages several.
LAYOUT_KINDS = ("as_written", "unlocal", "stage", "stage_all")


def layout_key(layout):
    """A layout as a comparable value: the buffers it stages and those it unstages."""
    layout = layout or {}
    return (tuple(sorted(layout.get("staged", []))), tuple(sorted(layout.get("unstaged", []))))


def human_ns(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.2f} {unit}"
    return f"{ns:.0f} ns"


def judge(report, tie):
    """One row of the table from one device's report of `clmap tune --json`."""
    variants = [
        v for v in report.get("variants", []) if v.get("built", {}).get("kind") in LAYOUT_KINDS
    ]
    timed = [v for v in variants if v.get("status") == "timed" and v.get("time")]
    advisor = report.get("advisor") or {}
    row = {
        "device": report.get("device"),
        "variants_built": len(variants),
        "variants_timed": len(timed),
        "times_ns": {v["name"]: v["time"]["median_ns"] for v in timed},
        # The runs' standard deviation, so that a re-judged database knows each time's noise.
        "spread_ns": {v["name"]: v["time"].get("std_ns") for v in timed},
        # Each variant's layout as tune built it (Grover's `unlocal:TILE` names a tile, not the
        # buffers it unstages), so that a re-judge compares layouts, not names.
        "layouts": {v["name"]: v.get("layout") for v in timed},
        "advised": advisor.get("advised"),
        "advised_variant": advisor.get("advised_variant"),
        "decisions": advisor.get("decisions", []),
        "winner": None,
        "winner_ns": None,
        "advised_ns": None,
        "agree": None,
        "ratio": None,
        "within_tie": None,
        "winner_moves_undecided": None,
        "decisive": None,
        "tie_margin": None,
        "judged": False,
        "note": None,
    }
    if timed:
        best = min(timed, key=lambda v: v["time"]["median_ns"])
        row["winner"] = best["name"]
        row["winner_ns"] = best["time"]["median_ns"]
    if not advisor.get("decisions"):
        row["note"] = "no advice: " + (advisor.get("note") or "the advisor decided no buffer")
        return row
    if len(timed) < 2:
        others = [
            f"{v['name']} {v.get('status')}" for v in variants if v.get("status") != "timed"
        ]
        row["note"] = "fewer than two layout variants timed" + (
            f" ({'; '.join(others)})" if others else ""
        )
        return row
    row["judged"] = True
    by_name = {v["name"]: v for v in variants}
    advised = by_name.get(row["advised_variant"]) if row["advised_variant"] else None
    winner = by_name[row["winner"]]
    # The winner is a variant that was built, so when no variant has the advised layout, or it
    # was not timed, the winner cannot have it: the advice is wrong and its cost unknown.
    row["agree"] = advised is not None and layout_key(advised.get("layout")) == layout_key(
        winner.get("layout")
    )
    if not row["agree"]:
        # A winner that moves only buffers the advisor had no MAP for is a gap in detection
        # rather than a wrong rule; it still counts as wrong, and the note says which.
        decided = {d.split(" in ", 1)[0] for d in row["decisions"]}
        staged, unstaged = layout_key(winner.get("layout"))
        moved = sorted(set(staged) | set(unstaged))
        row["winner_moves_undecided"] = bool(moved) and not set(moved) & decided
        if row["winner_moves_undecided"]:
            add_note(row, "the winner moves " + ", ".join(f"`{b}`" for b in moved) + (
                ", which the advisor did not judge (no MAP detected)"
            ))
    if advised is not None and advised["name"] in row["times_ns"]:
        row["advised_ns"] = row["times_ns"][advised["name"]]
        row["ratio"] = row["advised_ns"] / row["winner_ns"]
        row["within_tie"] = row["ratio"] <= 1.0 + tie
    elif advised is None:
        row["within_tie"] = False
        add_note(row, "no variant with the advised layout was built")
    else:
        row["within_tie"] = False
        add_note(row, f"the advised variant {advised['name']} is {advised.get('status')}")
    decide(row, timed, winner, advised, tie)
    return row


def decide(row, timed, winner, advised, tie):
    """Whether the verdict is decisive or a tie, by one rule for both outcomes.

    The verdict compares the winner with one other layout: the advised variant when the
    advice is wrong, the fastest variant of another layout than the winner's when it agrees.
    It is a tie when the two medians differ by at most the margin, max(tie, the relative
    spread of their ratio √((σ₁/t₁)² + (σ₂/t₂)²) from the runs' standard deviations): a
    right advice that beats the runner-up by less than that is as undecided as a wrong one
    that loses by less. A wrong advice without a timed variant is decisive."""
    if row["agree"]:
        key = layout_key(winner.get("layout"))
        others = [v for v in timed if layout_key(v.get("layout")) != key]
        other = min(others, key=lambda v: v["time"]["median_ns"]) if others else None
    else:
        other = advised if advised is not None and row.get("advised_ns") is not None else None
    if other is None:
        row["decisive"] = True
        return
    t_w, t_o = winner["time"]["median_ns"], other["time"]["median_ns"]

    def relative(v, t):
        std = v["time"].get("std_ns")
        return std / t if std and t > 0 else 0.0

    spread = math.hypot(relative(winner, t_w), relative(other, t_o))
    row["tie_margin"] = max(tie, spread)
    row["decisive"] = t_o / t_w - 1.0 > row["tie_margin"]


def add_note(row, text):
    row["note"] = f"{row['note']}; {text}" if row.get("note") else text


def rows_from_runs(runs_dir, tie):
    rows = []
    names = sorted(
        {os.path.splitext(f)[0] for f in os.listdir(runs_dir) if f.endswith((".json", ".rc"))}
    )
    for name in names:
        base = os.path.join(runs_dir, name)
        group = "maps" if name.startswith("map") and name[3:4].isdigit() else "corpus"
        rc = read_text(base + ".rc")
        report = None
        try:
            with open(base + ".json", encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError):
            pass
        if not report or not report.get("devices"):
            err = read_text(base + ".err") or ""
            last = [line for line in err.splitlines() if line.strip()][-1:] or ["no output"]
            if rc in ("124", "137"):
                why = "timed out"
            elif rc == "skipped":
                why = "not started: the run's TOTAL time was spent"
            else:
                why = f"exit {rc}: {last[0].strip()}"
            rows.append(
                {"name": name, "group": group, "workload": None, "kernel": None,
                 "judged": False, "agree": None, "ratio": None, "within_tie": None,
                 "winner": None, "advised": None, "variants_timed": 0,
                 "note": f"no report ({why})"}
            )
            continue
        for device_report in report["devices"]:
            row = judge(device_report, tie)
            row.update(
                {"name": name, "group": group, "workload": report.get("workload"),
                 "kernel": report.get("kernel")}
            )
            rows.append(row)
    return rows


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().strip()
    except OSError:
        return None


def summarise(rows):
    judged = [r for r in rows if r["judged"]]
    wrong = [r for r in judged if not r["agree"]]
    ratios = [r["ratio"] for r in wrong if r["ratio"] is not None]
    agreed = len(judged) - len(wrong)
    tie_agreed = sum(1 for r in judged if r["agree"] or r["within_tie"])
    # Rows of tables written before the decisive rule count as decisive.
    decisive = [r for r in judged if r.get("decisive", True) is not False]
    decisive_agreed = sum(1 for r in decisive if r["agree"])
    return {
        "workloads": len(rows),
        "judged": len(judged),
        "agree": agreed,
        "accuracy": agreed / len(judged) if judged else None,
        "agree_within_tie": tie_agreed,
        "accuracy_within_tie": tie_agreed / len(judged) if judged else None,
        "decisive": len(decisive),
        "decisive_agree": decisive_agreed,
        "decisive_accuracy": decisive_agreed / len(decisive) if decisive else None,
        "ties_right": sum(1 for r in judged if r.get("decisive") is False and r["agree"]),
        "ties_wrong": sum(1 for r in judged if r.get("decisive") is False and not r["agree"]),
        "wrong": len(wrong),
        "wrong_on_undecided_buffer": sum(1 for r in wrong if r.get("winner_moves_undecided")),
        "wrong_with_time": len(ratios),
        "wrong_ratio_geomean": math.exp(sum(map(math.log, ratios)) / len(ratios))
        if ratios else None,
        "wrong_ratio_max": max(ratios) if ratios else None,
    }


def build(out_dir, tie=0.05):
    rows = rows_from_runs(os.path.join(out_dir, "runs"), tie)
    meta = {}
    try:
        with open(os.path.join(out_dir, "meta.json"), encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError):
        pass
    devices = sorted({r["device"] for r in rows if r.get("device")})
    table = {
        "meta": meta,
        "devices": devices,
        "tie": tie,
        "summary": summarise(rows),
        "groups": {g: summarise([r for r in rows if r["group"] == g]) for g in ("corpus", "maps")},
        "rows": rows,
    }
    return table


def percent(x):
    return "-" if x is None else f"{100 * x:.0f} %"


def markdown(table):
    out = []
    meta = table["meta"]
    s = table["summary"]
    tie = table["tie"]
    out.append(f"Device: {', '.join(table['devices']) or '?'}")
    if meta:
        out.append(
            f"Settings: `--work-groups none --reps {meta.get('reps')} --seeds {meta.get('seeds')}`"
            f", {meta.get('limit_s')} s per workload, MAP benchmarks at N = {meta.get('map_size')}"
            f" ({meta.get('map_variants')}); clmap {meta.get('clmap_version', '?')}"
        )
    out.append("")
    out.append(
        f"**Accuracy: {s['agree']} of {s['judged']} judged workloads ({percent(s['accuracy'])})**;"
        f" counting an advised variant within {100 * tie:.0f} % of the winner as agreeing:"
        f" {s['agree_within_tie']} of {s['judged']} ({percent(s['accuracy_within_tie'])})."
    )
    if s.get("decisive") is not None:
        out.append(
            f"Decisive verdicts only (the winner and the layout it is compared with, the advised"
            f" one when wrong and the runner-up when right, more than max({100 * tie:.0f} %, the"
            f" runs' spread) apart): **{s['decisive_agree']} of {s['decisive']}"
            f" ({percent(s['decisive_accuracy'])})**; ties left out: {s['ties_right']} right,"
            f" {s['ties_wrong']} wrong."
        )
    if s["wrong"]:
        geo = s["wrong_ratio_geomean"]
        worst = s["wrong_ratio_max"]
        out.append(
            f"When wrong ({s['wrong']}), the advised variant took"
            + (f" ×{geo:.2f} the winner's time (geometric mean of {s['wrong_with_time']}), at"
               f" worst ×{worst:.2f}." if geo is not None else " no measured time.")
            + (f" In {s['wrong_on_undecided_buffer']} of them the winner moves only buffers the"
               " advisor had no MAP for." if s["wrong_on_undecided_buffer"] else "")
        )
    for g, gs in table["groups"].items():
        if gs["workloads"]:
            out.append(
                f"- {g}: {gs['agree']} of {gs['judged']} judged ({percent(gs['accuracy'])}),"
                f" {gs['agree_within_tie']} within {100 * tie:.0f} %"
                f" ({percent(gs['accuracy_within_tie'])}), {gs['decisive_agree']} of"
                f" {gs['decisive']} decisive ({percent(gs['decisive_accuracy'])});"
                f" {gs['workloads']} workloads run"
            )
    out.append("")
    out.append(
        "| workload | kernel | layouts timed | advised | advised variant | winner | agree |"
        " advised / winner | note |"
    )
    out.append("|---|---|---:|---|---|---|---|---:|---|")
    for r in table["rows"]:
        if r["agree"] is None:
            agree = "-"
        elif r["agree"]:
            agree = "yes" if r.get("decisive", True) is not False else "yes (tie)"
        else:
            agree = "tie" if r["within_tie"] else "**no**"
            if r.get("decisive") is False and not r["within_tie"]:
                agree = "no (tie)"
        ratio = f"×{r['ratio']:.2f}" if r.get("ratio") is not None else "-"
        winner = (
            f"`{r['winner']}` {human_ns(r.get('winner_ns'))}" if r.get("winner") else "-"
        )
        note = (r.get("note") or "").replace("|", "\\|").replace("\n", " ")
        out.append(
            f"| `{r['name']}` | {r.get('kernel') or '-'} | {r.get('variants_timed', 0)}"
            f" | {r.get('advised') or '-'} | {('`' + r['advised_variant'] + '`') if r.get('advised_variant') else '-'}"
            f" | {winner} | {agree} | {ratio} | {note} |"
        )
    return "\n".join(out) + "\n"


def main(argv):
    args = list(argv[1:])
    tie = 0.05
    if "--tie" in args:
        i = args.index("--tie")
        tie = float(args[i + 1]) / 100.0
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    out_dir = args[0]
    table = build(out_dir, tie)
    with open(os.path.join(out_dir, "accuracy.json"), "w", encoding="utf-8") as f:
        json.dump(table, f, indent=2)
        f.write("\n")
    text = markdown(table)
    with open(os.path.join(out_dir, "accuracy.md"), "w", encoding="utf-8") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
