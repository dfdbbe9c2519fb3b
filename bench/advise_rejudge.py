#!/usr/bin/env python3
"""Re-judges an accuracy table's timings with the current advisor, without a device.

Usage: bench/advise_rejudge.py RESULT_DIR [--measurements DIR] [--replicate DIR] [--out DIR]
                               [--tie PERCENT] [--simd-width N] [--database DB [--device SEL]]
                               [--advise-args "ARGS"]

RESULT_DIR is a folder bench/advise_accuracy.sh wrote (its accuracy.json keeps, per workload,
the median time of every layout variant `clmap tune` timed). The advisor's question for a
buffer is whether the stager's tile of the buffer's MAP beats the MAP's kernel as written, and
the MAP microbenchmarks of an accuracy run measured exactly that: `mapNNN_nolocal_n256` timed as
written (b) and with `stage:in`, the stager's tile (B), on 16 x 16 work-groups. This script

1. turns the MAP rows of --measurements (default: RESULT_DIR itself) into a performance
   database: one record per MAP with both times, b and B in GB/s from the MAP's bytes read,
   imported with `clmap db import-aristotle` as a device of its own (records-only, like the 2014
   history, so the advisor takes the nearest recorded dataset: N = 256 for every buffer);
2. asks the current `clmap advise WORKLOAD --json` for every workload of RESULT_DIR (the corpus
   kernels under tests/corpus, the MAP microbenchmarks generated again at the table's N), with
   that device, 48 KiB of local memory and `--nearest` (nothing measured: a buffer whose MAP
   the database lacks at its own dataset and work-group is judged from the nearest record);
3. judges the advice against RESULT_DIR's timings exactly as bench/advise_accuracy.py does, and
   writes OUT/accuracy.{json,md} (default OUT: RESULT_DIR/rejudged).

When --measurements is RESULT_DIR, each MAP row is judged by its own timings and agrees unless
no record was made; the corpus rows are the independent test. With the other run of the same
device (PoCL's run1 and run2), both are independent measurements.

--simd-width N passes the device's warp (SIMD) width to `clmap advise` (32 on NVIDIA GPUs, the
preferred work-group size multiple on PoCL), which splits each buffer's reuse between the
work-items of one warp and different warps; without it the advisor splits nothing (the imported
device records no width).

--database DB asks the advisor with a clmap performance database instead of one made from MAP
rows, e.g. the `accuracy.db` of the run itself, which holds the microbenchmarks the advisor
measured at each kernel's own N and work-group (a `MAPS=none` run has no MAP rows); --device
picks its device (default `gpu`). The database is copied first, never written.

--replicate DIR names another run of the same workloads (or some of them) on the same device: a
workload whose two runs crown different winners was decided by the runs' noise, not by the
layouts, and no advisor can be expected to call it. Each row then says whether its winner was
replicated (null when DIR did not time it), and the summary adds the accuracy over the rows the
other run does not contradict (`replicated` in accuracy.json).

--advise-args "ARGS" passes further options to every `clmap advise` call (split on spaces),
e.g. "--launch-multiple 0" to see what the advisor would have said without one of its
refinements, judged against the same timings.

Environment: CLMAP, the clmap binary (default target/release/clmap).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import advise_accuracy  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCAL_CAPACITY = 48 * 1024
MAP_ROW = re.compile(r"^map(\d{3})_nolocal_n(\d+)$")


def elements_per_item(map_id, n):
    """Elements one work-item of the microbenchmark reads (seed 001 §6.1)."""
    imap = map_id // 100
    return {1: 1, 2: n, 3: n, 4: 49, 5: 5}[imap]


def database_records(table):
    """MAP -> (N, b, b's std, B, B's std) in GB/s from the MAP rows that timed both layouts.

    A bandwidth's standard deviation is the time's relative one applied to the bandwidth (to
    first order, bytes / t spreads as t does); tables written before the spreads were kept
    give 0, and the advisor then judges with delta alone."""
    records = {}
    for row in table["rows"]:
        m = MAP_ROW.match(row["name"])
        times = row.get("times_ns") or {}
        spreads = row.get("spread_ns") or {}
        if not m or "as-written" not in times or "stage:in" not in times:
            continue
        map_id, n = int(m.group(1)), int(m.group(2))
        bytes_read = n * n * elements_per_item(map_id, n) * 4

        def bandwidth(variant):
            t = times[variant]
            relative = (spreads.get(variant) or 0.0) / t if t > 0 else 0.0
            return bytes_read / t, bytes_read / t * relative

        records[map_id] = (n, *bandwidth("as-written"), *bandwidth("stage:in"))
    return records


def clmap_binary():
    clmap = os.environ.get("CLMAP", os.path.join(ROOT, "target", "release", "clmap"))
    if not os.access(clmap, os.X_OK):
        sys.exit(f"no clmap binary at {clmap}: build it or set CLMAP")
    return clmap


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)


def make_database(clmap, records, work):
    """A database holding `records` as the device `accuracy-measured`."""
    csv = os.path.join(work, "measured.csv")
    with open(csv, "w", encoding="utf-8") as f:
        f.write("platform,map,n,b_mean,b_std,B_mean,B_std,mbr_mean\n")
        for map_id, (n, b, b_std, big_b, big_b_std) in sorted(records.items()):
            f.write(f"accuracy-measured,{map_id},{n},{b},{b_std},{big_b},{big_b_std},{big_b / b}\n")
    db = os.path.join(work, "measured.db")
    done = run([clmap, "db", "import-aristotle", csv, "--db", db])
    if done.returncode != 0:
        sys.exit(f"import failed: {done.stderr.strip()}")
    return db


def workload_path(name, map_dir):
    if MAP_ROW.match(name):
        return os.path.join(map_dir, f"{name}.toml")
    return os.path.join(ROOT, "tests", "corpus", f"{name}.toml")


# The work-group the MAP rows of an accuracy run were timed with (bench/advise_accuracy.sh
# generates them on 16 x 16): the records imported from them keep no work-group of their own.
RECORD_WORK_GROUP = [16, 16]


def record_of(b):
    """What the advice for buffer `b` stood on: the launch's (N, work-group) and the record's."""
    m = (b.get("measurements") or [{}])[0]
    return {
        "buffer": b["buffer"], "map": b.get("map"), "advice": b.get("advice"),
        "rule": b.get("rule"), "mbr": b.get("mbr"),
        "dataset": b.get("dataset"), "work_group": b.get("work_group"),
        "record_dataset": m.get("dataset"),
        "record_work_group": m.get("work_group") or (RECORD_WORK_GROUP if m else None),
    }


def describe_record(r):
    def shape(n, wg):
        return f"N = {n}" + (f" on {wg[0]}×{wg[1]}" if wg else "")
    if r["record_dataset"] is None:
        return f"{r['buffer']} {r['map']}: no record"
    return (f"{r['buffer']} {r['map']}: mbr {r['mbr']:.2f} at"
            f" {shape(r['record_dataset'], r['record_work_group'])}, launch"
            f" {shape(r['dataset'], r['work_group'])}")


def advised_layout(advice, kernel):
    """The layout the advice asks of `kernel`: buffers to stage and to unstage."""
    staged, unstaged, decisions = [], [], []
    for b in advice:
        if b.get("kernel") != kernel or b.get("advice") is None:
            continue
        decisions.append(f"{b['buffer']} in {kernel}: {b['map']} → {b['advice']}, rule {b['rule']}")
        if b["advice"] == "local" and not b.get("staged_now"):
            staged.append(b["buffer"])
        elif b["advice"] == "global" and b.get("staged_now"):
            unstaged.append(b["buffer"])
    return sorted(staged), sorted(unstaged), decisions


def describe(staged, unstaged):
    parts = [f"stage {' '.join(staged)}"] if staged else []
    parts += [f"unstage {' '.join(unstaged)}"] if unstaged else []
    return ", ".join(parts) or "as written"


def staged_now_buffer(old_row):
    """The buffer the kernel stages now, when the old advice names exactly one."""
    staged = [d.split(" in ", 1)[0] for d in old_row.get("decisions", []) if "(staged now)" in d]
    return staged[0] if len(staged) == 1 else None


def layout_of_variant(name, old_row, staged_now=None):
    """A tune variant's layout: as tune built it when the table kept it (`layouts`), else from
    its name: `stage:B` stages B; Grover's `unlocal:TILE` is named after the tile, so it
    unstages the one buffer the kernel stages now: `staged_now`, from the current advice, else
    the one the old advice named (the tile's name when neither is known)."""
    if name == "as-written":
        return {"staged": [], "unstaged": []}
    known = (old_row.get("layouts") or {}).get(name)
    if known is not None:
        return {"staged": list(known.get("staged", [])), "unstaged": list(known.get("unstaged", []))}
    kind, _, what = name.partition(":")
    if kind == "stage":
        # `stage:A+B` stages several buffers together.
        return {"staged": what.split("+"), "unstaged": []}
    return {"staged": [], "unstaged": [staged_now or staged_now_buffer(old_row) or f"tile {what}"]}


def rejudge_row(old, advice, tie):
    kernel = old.get("kernel")
    staged, unstaged, decisions = advised_layout(advice, kernel)
    staged_now = [b["buffer"] for b in advice if b.get("kernel") == kernel and b.get("staged_now")]
    staged_now = staged_now[0] if len(staged_now) == 1 else None
    times = old.get("times_ns") or {}
    variants = []
    advised_variant = None
    for name, ns in times.items():
        layout = layout_of_variant(name, old, staged_now)
        if (sorted(layout["staged"]), sorted(layout["unstaged"])) == (staged, unstaged):
            advised_variant = name
        variants.append({
            "name": name,
            "built": {"kind": "as_written" if name == "as-written" else name.split(":")[0]},
            "status": "timed",
            "time": {"median_ns": ns, "std_ns": (old.get("spread_ns") or {}).get(name)},
            "layout": layout,
        })
    report = {
        "device": old.get("device"),
        "variants": variants,
        "advisor": {
            "advised": describe(staged, unstaged),
            "advised_variant": advised_variant,
            "decisions": decisions,
            "note": None if decisions else "the advisor decided no buffer",
        },
    }
    row = advise_accuracy.judge(report, tie)
    # The buffers the winner places otherwise than the advice.
    won = layout_of_variant(row["winner"], old, staged_now) if row.get("winner") else None
    moved = []
    if won is not None:
        moved = sorted((set(won["staged"]) ^ set(staged)) | (set(won["unstaged"]) ^ set(unstaged)))
    row.update({"name": old["name"], "group": old["group"], "workload": old.get("workload"),
                "kernel": kernel, "moved": moved,
                "records": [record_of(b) for b in advice
                            if b.get("kernel") == kernel and b.get("advice") is not None]})
    return row


def cause(row):
    """Why a wrong verdict was wrong, from what it stood on: `noise` (another run of the same
    device crowned another winner), `tie` (the winner beat the advice by less than the tie
    margin), `detection` (the winner moves a buffer without a MAP), `shape` (a buffer the
    advice and the winner place differently was judged from a record of another dataset or
    work-group than its launch's), `no record`, else `rule` (a record of the launch's own
    shape, and the rules still chose wrong)."""
    if row.get("replicated") is False:
        return "noise"
    if row.get("decisive") is False:
        return "tie"
    if row.get("winner_moves_undecided"):
        return "detection"
    records = {r["buffer"]: r for r in row.get("records", [])}
    moved = [records[b] for b in row.get("moved", []) if b in records] or list(records.values())
    if any(r["record_dataset"] is None for r in moved):
        return "no record"
    if any(r["record_dataset"] != r["dataset"] or r["record_work_group"] != r["work_group"]
           for r in moved):
        return "shape"
    return "rule"


def wrong_table(rows):
    """The wrong verdicts with what each stood on and its cause, as Markdown."""
    out = ["| workload | advised | winner | advised / winner | records of the buffers moved |"
           " cause |", "|---|---|---|---:|---|---|"]
    for r in rows:
        if not r.get("judged") or r.get("agree"):
            continue
        ratio = f"×{r['ratio']:.2f}" if r.get("ratio") is not None else "-"
        records = r.get("records", [])
        moved = [x for x in records if x["buffer"] in r.get("moved", [])] or records
        stood = "; ".join(describe_record(x) for x in moved)
        out.append(f"| `{r['name']}` | {r.get('advised')} | `{r.get('winner')}` | {ratio}"
                   f" | {stood} | {r['cause']} |")
    return "\n".join(out) + "\n"


def mark_replicated(rows, other_table):
    """Marks each judged row with whether `other_table`'s run of the workload has the same
    winner (None when it did not time the workload), and returns the summary of the rows it
    does not contradict."""
    winners = {}
    for row in other_table["rows"]:
        times = row.get("times_ns") or {}
        if len(times) >= 2:
            winners[row["name"]] = min(times, key=times.get)
    for row in rows:
        if row.get("judged"):
            other = winners.get(row["name"])
            row["replicated"] = None if other is None else other == row.get("winner")
            if other is not None and other != row.get("winner"):
                advise_accuracy.add_note(row, f"the other run's winner is `{other}`")
    summary = advise_accuracy.summarise([r for r in rows if r.get("replicated") is not False])
    summary["contradicted"] = sum(1 for r in rows if r.get("replicated") is False)
    summary["replicated"] = sum(1 for r in rows if r.get("replicated"))
    return summary


def main(argv):
    args = list(argv[1:])

    def option(flag, default=None):
        if flag in args:
            i = args.index(flag)
            value = args[i + 1]
            del args[i:i + 2]
            return value
        return default

    if "-h" in args or "--help" in args:
        sys.stdout.write(__doc__.strip() + "\n")
        sys.stdout.flush()
        return 0
    tie = float(option("--tie", "5")) / 100.0
    measurements = option("--measurements")
    replicate = option("--replicate")
    out = option("--out")
    simd_width = option("--simd-width")
    database = option("--database")
    device = option("--device", "gpu")
    advise_args = option("--advise-args", "").split()
    if len(args) != 1:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 1
    result = args[0]
    measurements = measurements or result
    out = out or os.path.join(result, "rejudged")
    with open(os.path.join(result, "accuracy.json"), encoding="utf-8") as f:
        old_table = json.load(f)
    with open(os.path.join(measurements, "accuracy.json"), encoding="utf-8") as f:
        records = database_records(json.load(f))
    clmap = clmap_binary()
    work = tempfile.mkdtemp(prefix="advise-rejudge-")
    try:
        if database:
            db = os.path.join(work, "given.db")
            shutil.copyfile(database, db)
            records = {}
        else:
            db = make_database(clmap, records, work)
            device = "accuracy-measured"
        extra = (["--simd-width", str(simd_width)] if simd_width else []) + advise_args
        map_size = old_table.get("meta", {}).get("map_size", 256)
        map_dir = os.path.join(work, "maps")
        run([clmap, "maps", "generate", "--out", map_dir, "--maps", "all", "--sizes",
             str(map_size), "--variants", "nolocal", "--work-group", "16x16"])
        rows = []
        for old in old_table["rows"]:
            if not old.get("judged"):
                rows.append(dict(old))
                continue
            done = run([clmap, "advise", workload_path(old["name"], map_dir), "--device",
                        device, "--db", db, "--local-capacity",
                        str(LOCAL_CAPACITY), "--nearest", "--json"] + extra)
            try:
                advice = json.loads(done.stdout)
            except ValueError:
                row = dict(old)
                row.update({"judged": False, "agree": None,
                            "note": f"advise failed: {done.stderr.strip()[:200]}"})
                rows.append(row)
                continue
            rows.append(rejudge_row(old, advice, tie))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    replicated = None
    if replicate:
        with open(os.path.join(replicate, "accuracy.json"), encoding="utf-8") as f:
            replicated = mark_replicated(rows, json.load(f))
    for row in rows:
        if row.get("judged") and not row.get("agree"):
            row["cause"] = cause(row)
    table = {
        "meta": dict(old_table.get("meta", {}), rejudged_with=database or measurements,
                     replicated_by=replicate, database_maps=sorted(records),
                     simd_width=int(simd_width) if simd_width else None),
        "devices": old_table.get("devices", []),
        "tie": tie,
        "summary": advise_accuracy.summarise(rows),
        "groups": {g: advise_accuracy.summarise([r for r in rows if r["group"] == g])
                   for g in ("corpus", "maps")},
        "rows": rows,
    }
    if replicated is not None:
        table["replicated"] = replicated
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "accuracy.json"), "w", encoding="utf-8") as f:
        json.dump(table, f, indent=2)
        f.write("\n")
    text = advise_accuracy.markdown(table)
    if replicated is not None:
        r = replicated
        line = (f"Leaving out the {r['contradicted']} workloads whose winner another run"
                f" ({replicate}) contradicts ({r['replicated']} replicated, the rest not timed"
                f" there): **{r['agree']} of {r['judged']}"
                f" ({advise_accuracy.percent(r['accuracy'])})**, {r['agree_within_tie']} within"
                f" {100 * tie:.0f} %, decisive {r['decisive_agree']} of {r['decisive']}.\n")
        first, _, rest = text.partition("\n\n")
        head, _, table_text = rest.partition("\n\n")
        text = f"{first}\n\n{head}\n{line}\n{table_text}"
    text += "\nWrong verdicts and their causes:\n\n" + wrong_table(rows)
    with open(os.path.join(out, "accuracy.md"), "w", encoding="utf-8") as f:
        f.write(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
