#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The benchmark's figures.

  report.py table DIR
      read DIR/samples.tsv (measure, target, run, value), DIR/guest.env and
      DIR/notes.txt, and write DIR/table.txt and DIR/table.md: the median
      and the spread (min-max) of every measure for ours, stock and raw, and
      the ratios ours/stock and ours/raw of the medians. Host facts come
      from the BENCH_* environment variables bench/run.sh sets.
"""

import math
import os
import statistics
import sys

# The throughput rows, the same on the ZBC disk (tp.*) and on ZNS (zns.*).
TP_ROWS = [
    ("write_qd1", "1 MiB O_DIRECT write, QD1", "MiB/s", "high",
     [("raw_ratio_ge", 0.97), ("stock_ratio_ge", 1.0)]),
    ("write_qd8", "1 MiB O_DIRECT write, QD8", "MiB/s", "high",
     [("raw_ratio_ge", 0.97), ("stock_ratio_ge", 1.0)]),
    ("read_qd1", "1 MiB O_DIRECT read, QD1", "MiB/s", "high",
     [("raw_ratio_ge", 0.97), ("stock_ratio_ge", 1.0)]),
    ("read_qd8", "1 MiB O_DIRECT read, QD8", "MiB/s", "high",
     [("raw_ratio_ge", 0.97), ("stock_ratio_ge", 1.0)]),
    ("read_buf", "1 MiB buffered read", "MiB/s", "high", [("stock_ratio_ge", 1.0)]),
    ("append_qd1", "4 KiB O_DIRECT append+fsync, QD1", "IOPS", "high",
     [("stock_ratio_ge", 1.0)]),
    ("append_qd8", "4 KiB O_DIRECT append, QD8, fsync/8", "IOPS", "high",
     [("stock_ratio_ge", 1.0)]),
    ("write_qd8_cpu", "  guest CPU per MiB, 1 MiB write QD8", "ms", "low", None),
    ("append_qd8_cpu", "  guest CPU per append, QD8", "us", "low", None),
]

# The LSM-tree workload's rows (bench/zonefs_lsm.c), the same on the ZBC
# disk (lsm.*) and on ZNS (zlsm.*): the writers' throughput, the log's
# fdatasync and the readers' 4 KiB reads. The tails carry the goals.
LSM_ROWS = [
    ("write", "LSM: 4 writers, 64 KiB-1 MiB appends", "MiB/s", "high",
     [("raw_ratio_ge", 0.97)]),
    ("fsync_p50", "LSM: log fdatasync, median", "ms", "low", None),
    ("fsync_p99", "LSM: log fdatasync, p99", "ms", "low", [("raw_ratio_le", 1.1)]),
    ("read_p50", "LSM: 4 KiB random read, median", "ms", "low", None),
    ("read_p99", "LSM: 4 KiB random read, p99", "ms", "low", [("raw_ratio_le", 1.1)]),
]

# The measures of each scale point: id, label, unit, better.
SCALE_ROWS = [
    ("format", "mkzonefs -f (raw: zone report + reset + superblock)", "s", "low"),
    ("mount", "mount (raw: one full zone report)", "s", "low"),
    ("mem_mount", "kernel memory after mount", "B/zone", "low"),
    ("memfree_mount", "  cross-check: MemFree drop", "B/zone", "low"),
    ("stat", "stat of one file (cold)", "ms", "low"),
    ("ls", "ls -l seq/ (all files)", "s", "low"),
    ("mem_walk", "kernel memory after ls -l", "B/zone", "low"),
    ("mem_drop", "  ... after drop_caches", "B/zone", "low"),
    ("umount", "umount", "s", "low"),
    ("ready", "mount + first ls -l, one span (cold)", "s", "low"),
]


def scale_point(point, goals, labels=None, skip=()):
    """A scale point's rows: its header, then SCALE_ROWS but those in
    skip, with the goals (measure: [(kind, value)]) and labels given."""
    rows = [(point, None, None, None, None)]
    for m, label, unit, better in SCALE_ROWS:
        if m not in skip:
            rows.append((f"{point}.{m}", (labels or {}).get(m, label), unit, better,
                         goals.get(m)))
    return rows


# id, label, unit, better, goal. goal: (kind, value) pairs checked on ours.
MEASURES = scale_point("scale", {
    "format": [("raw_ratio_le", 1.2)],
    "mount": [("stock_ratio_le", 0.5), ("raw_ratio_le", 1.1)],
    "mem_mount": [("abs_le", 40), ("stock_ratio_le", 0.05)],
    "stat": [("stock_ratio_le", 1.0)],
    "ls": [("stock_ratio_le", 1.0)],
    "mem_walk": [("stock_ratio_le", 1.0)],
    "mem_drop": [("abs_le", 40)],
    "ready": [("stock_ratio_le", 0.8)],
}) + scale_point("huge", {
    "mount": [("raw_ratio_le", 1.1), ("linear", "scale.mount", 1.1)],
    "mem_mount": [("abs_le", 40), ("flat", "scale.mem_mount", 0.1)],
    "stat": [("stock_ratio_le", 1.0)],
    "ls": [("stock_ratio_le", 1.0)],
    "mem_walk": [("stock_ratio_le", 1.0)],
    "mem_drop": [("abs_le", 40)],
    "ready": [("stock_ratio_le", 0.8)],
}, labels={"format": "mkzonefs -f"}, skip=("memfree_mount",)) + scale_point("million", {
    "format": [("raw_ratio_le", 1.2)],
    "mount": [("raw_ratio_le", 1.1)],
    "mem_mount": [("abs_le", 40), ("flat", "scale.mem_mount", 0.1)],
    "mem_walk": [("stock_ratio_le", 1.0)],
    "mem_drop": [("abs_le", 40), ("flat", "scale.mem_drop", 0.1)],
}) + [
    ("tp", None, None, None, None),
] + [(f"tp.{m}", *row) for m, *row in TP_ROWS] + [
    ("zns", None, None, None, None),
] + [(f"zns.{m}", *row) for m, *row in TP_ROWS] + [
    ("lsm", None, None, None, None),
] + [(f"lsm.{m}", *row) for m, *row in LSM_ROWS] + [
    ("zlsm", None, None, None, None),
] + [(f"zlsm.{m}", *row) for m, *row in LSM_ROWS]

TARGETS = ("ours", "stock", "raw")


def number(v):
    try:
        return float(v)
    except ValueError:
        return None


def fmt(x):
    if x == 0:
        return "0"
    if abs(x) >= 100:
        return f"{x:.0f}"
    if abs(x) >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


class Cell:
    """All the runs of one measure for one target: (run, value) pairs."""

    def __init__(self, runs):
        values = [v for _, v in runs]
        self.nums = [n for n in map(number, values) if n is not None]
        self.fails = [v for v in values if number(v) is None]
        self.median = statistics.median(self.nums) if self.nums else None
        self.by_run = {r: number(v) for r, v in runs if number(v) is not None}

    def text(self):
        if not self.nums and not self.fails:
            return "-"
        if not self.nums:
            return "; ".join(sorted(set(self.fails)))
        s = fmt(self.median)
        if len(self.nums) > 1:
            s += f" [{fmt(min(self.nums))}-{fmt(max(self.nums))}]"
        if self.fails:
            s += f" ({len(self.fails)} of {len(self.nums) + len(self.fails)} runs "
            s += "; ".join(sorted(set(self.fails))) + ")"
        return s


def ratio(a, b):
    if a.median is None or b.median is None or b.median == 0:
        return None
    return a.median / b.median


def paired(a, b):
    """The ratios a/b of the runs both measured: within a run the targets
    ran back to back, so that the machine's drift cancels out."""
    return [a.by_run[r] / b.by_run[r] for r in sorted(a.by_run)
            if r in b.by_run and b.by_run[r] != 0]


def paired_text(a, b):
    """The median of the paired ratios and their range, or the ratio of
    the medians when no run has both."""
    p = paired(a, b)
    if not p:
        r = ratio(a, b)
        return f"{r:.2f}" if r is not None else "-"
    s = f"{statistics.median(p):.2f}"
    if len(p) > 1:
        s += f" [{min(p):.2f}-{max(p):.2f}]"
    return s


def paired_verdict(p, val, low):
    """(good, maybe) for a ratio goal from the paired ratios p: good when
    their median meets the goal; not even maybe (MISSED) when at least 4
    in 5 of them miss it; in between, within noise."""
    meets = [(r <= val if low else r >= val) for r in p]
    good = (statistics.median(p) <= val) if low else (statistics.median(p) >= val)
    short = meets.count(False)
    return good, good or short < math.ceil(0.8 * len(p))


def spread_ratio(a, b, best_low):
    """The ratio a/b most in favour of the goal that the spreads allow."""
    if not a.nums or not b.nums or min(b.nums) == 0:
        return None
    if best_low:
        return min(a.nums) / max(b.nums)
    return max(a.nums) / min(b.nums)


def goal_text(goals, cells, unit, allcells=None, zones=None):
    """ "met" when every goal is met; "MISSED" when one is missed beyond
    doubt; "within noise" in between. A goal against stock or raw is
    judged on the paired ratios (paired_verdict); the others on the
    medians, with the spreads as the benefit of the doubt."""
    if not goals:
        return ""
    ours = cells["ours"]
    if not ours.nums and not ours.fails:
        return "not measured"
    allcells = allcells or {}
    zones = zones or {}
    parts, ok, possible = [], True, True
    for goal in goals:
        kind, val = goal[0], goal[-1]
        low = kind.endswith("le")
        op = "<=" if low else ">="
        if kind in ("linear", "flat"):
            # Against ours on the other scale point: time grows at most
            # in proportion to the zones (times val); B/zone at most val
            # above.
            other = allcells.get(goal[1], {}).get("ours")
            zr = zones.get(goal[1])
            a, b = ours, other
            if kind == "linear":
                parts.append(f"<= {val:g} x linear from {zr:g}x fewer zones" if zr else "linear")
                lim_hi, lim_lo = (val * zr if zr else None), None
            else:
                # Bytes per zone must not grow with the zones; fewer
                # (fixed costs spread over more zones) is no miss.
                parts.append(f"at most {val * 100:g}% above the other scale point")
                lim_hi, lim_lo = 1 + val, None
            r = ratio(a, b) if b is not None else None
            good = r is not None and lim_hi is not None and r <= lim_hi and (lim_lo is None or r >= lim_lo)
            lo_r = spread_ratio(a, b, True) if b is not None else None
            hi_r = spread_ratio(a, b, False) if b is not None else None
            maybe = good or (lo_r is not None and lim_hi is not None and lo_r <= lim_hi and
                             (lim_lo is None or hi_r >= lim_lo))
        elif kind == "abs_le":
            parts.append(f"<= {val} {unit}")
            good = ours.median is not None and ours.median <= val
            maybe = bool(ours.nums) and min(ours.nums) <= val
        else:
            other = cells["stock" if kind.startswith("stock") else "raw"]
            parts.append(f"{op} {val:g} x {'stock' if kind.startswith('stock') else 'raw'}")
            r = ratio(ours, other)
            p = paired(ours, other)
            if ours.median is not None and other.median is None and other.fails:
                good = maybe = not low  # the other cannot do it at all
            elif p:
                good, maybe = paired_verdict(p, val, low)
            elif r is None:
                good = maybe = False
            else:
                good = r <= val if low else r >= val
                b = spread_ratio(ours, other, low)
                maybe = good or (b is not None and (b <= val if low else b >= val))
        ok = ok and good
        possible = possible and maybe
    verdict = "met" if ok else "within noise" if possible else "MISSED"
    return ", ".join(parts) + ": " + verdict


def load(path):
    rows = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 4:
                    rows.setdefault((parts[0], parts[1]), []).append((parts[2], parts[3]))
    except OSError:
        pass
    return rows


def load_env(path):
    env = {}
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                k, _, v = line.rstrip("\n").partition("=")
                env[k] = v
    except OSError:
        pass
    return env


def table(outdir):
    samples = load(os.path.join(outdir, "samples.tsv"))
    genv = load_env(os.path.join(outdir, "guest.env"))
    e = os.environ.get
    head = ["measure", "unit", "ours", "stock", "raw", "ours/stock", "ours/raw", "goal (ours)"]
    body = []
    allcells = {mid: {t: Cell(samples.get((mid, t), [])) for t in TARGETS}
                for mid, label, _, _, _ in MEASURES if label is not None}

    def nzones(key):
        try:
            return float(genv.get(key, "").split()[0])
        except (IndexError, ValueError):
            return None

    big, huge = nzones("zbc_big"), nzones("zbc_huge")
    # How many times the zones of the other scale point a row's disk has.
    zones = {"scale.mount": huge / big} if big and huge else {}
    skip = False
    for mid, label, unit, better, goals in MEASURES:
        if label is None:
            # The million-zone point runs only with BENCH_MILLION=1.
            skip = mid == "million" and not genv.get("zbc_million")
        if skip:
            continue
        if label is None:
            if mid == "scale":
                body.append(f"Scale: {genv.get('zbc_big', '?')}, 64 MiB each, 4 conventional; "
                            "one mkzonefs format per run, shared by both modules")
            elif mid == "million":
                body.append(f"Scale, third point (BENCH_MILLION=1): {genv.get('zbc_million', '?')}, "
                            "4 MiB each, 4 conventional; one format against its floor, one run")
            elif mid == "huge":
                body.append(f"Scale, second point: {genv.get('zbc_huge', '?')}, 16 MiB each, "
                            "4 conventional; formatted once, up to 3 runs")
            elif mid == "tp":
                body.append(f"Throughput, ZBC: 4 GiB disk, 64 MiB zones; {genv.get('mb', '?')} MiB "
                            f"per 1 MiB-block run, {genv.get('append_mb', '?')} MiB per append run")
            elif mid == "zns":
                body.append(f"Throughput, ZNS: QEMU's NVMe ZNS namespace, {genv.get('zns_dev', '?')} "
                            f"of 64 MiB (capacity = size); {genv.get('zns_mb', genv.get('mb', '?'))} MiB "
                            f"per 1 MiB-block run, {genv.get('zns_append_mb', genv.get('append_mb', '?'))} "
                            "MiB per append run")
            elif genv.get("lsm") == "0":
                body.append(f"LSM-tree workload, {'ZBC disk' if mid == 'lsm' else 'ZNS namespace'}: "
                            "not run (BENCH_LSM=0)")
            elif mid == "lsm":
                body.append(f"LSM-tree workload, ZBC disk: zonefs_lsm, {genv.get('lsm_reps', '?')} "
                            f"runs of {genv.get('lsm_seconds', '?')} s; 4 writers, a log of 4 KiB "
                            "appends with fdatasync every 4, 2 readers, 13 zones; explicit-open "
                            "mounts, raw: zonefs_lsm --raw --explicit-open")
            else:
                body.append(f"LSM-tree workload, ZNS namespace: {genv.get('zns_dev', '?')} "
                            "of 64 MiB, the same runs")
            continue
        cells = allcells[mid]
        body.append([label, unit, cells["ours"].text(), cells["stock"].text(),
                     cells["raw"].text(),
                     paired_text(cells["ours"], cells["stock"]),
                     paired_text(cells["ours"], cells["raw"]),
                     goal_text(goals, cells, unit, allcells, zones)])

    reps = genv.get("reps", "?")
    lines_hdr = [
        f"zonefs benchmark, {e('BENCH_DATE', '?')}, on {e('BENCH_HOST', '?')} "
        f"({e('BENCH_CPU', '?')}, {e('BENCH_CORES', '?')} cores, {e('BENCH_RAM', '?')} RAM, "
        f"{e('BENCH_OS', '?')})",
        f"guest: Linux {genv.get('guest_kernel_version', '?')} under QEMU TCG, "
        f"{genv.get('guest_cpus', '?')} vCPUs, {genv.get('guest_mem_mb', '?')} MiB; "
        "ZBC disks: tcmu-runner zbc over iSCSI on the guest's 127.0.0.1",
        f"each cell: median [min-max] of {reps} runs; ratios: median [min-max] of the runs' "
        "own ratios (in each run the targets ran back to back, the order turning); a goal "
        "against stock or raw is met when that median meets it, MISSED when 4 in 5 of the "
        "runs' ratios miss it, within noise in between; "
        "lower is better for s, ms, B/zone, higher for MiB/s and IOPS",
        f"ours: module/zonefs.ko; stock: Debian's fs/zonefs/zonefs.ko; raw: fio --zonemode=zbd "
        "on the block device",
    ]
    if e("BENCH_OTHER_VMS"):
        lines_hdr.append(f"other QEMU guests on the host: {e('BENCH_OTHER_VMS')} (they share "
                         "its cores: absolute figures drop and spreads widen)")
    notes = []
    try:
        with open(os.path.join(outdir, "notes.txt"), encoding="utf-8") as f:
            seen = set()
            for line in f:
                line = line.strip()
                key = line.split(": ", 1)[-1]
                if line and key not in seen:
                    seen.add(key)
                    notes.append(line)
    except OSError:
        pass
    if e("BENCH_DURATION"):
        notes.append(f"make bench took {e('BENCH_DURATION')}")

    rows = [r for r in body if isinstance(r, list)]
    widths = [max(len(str(r[i])) for r in rows + [head]) for i in range(len(head))]

    def line(r):
        return "  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip()

    txt = lines_hdr + [""]
    md = [f"{lines_hdr[0]}.", ""] + [f"{h}." for h in lines_hdr[1:]] + [""]
    md.append("| " + " | ".join(head) + " |")
    md.append("|" + "|".join("---" for _ in head) + "|")
    txt.append(line(head))
    for r in body:
        if isinstance(r, str):
            txt.append("")
            txt.append(r)
            md.append("| **" + r + "** |" + " |" * (len(head) - 1))
        else:
            txt.append(line(r))
            md.append("| " + " | ".join(str(c).replace("|", "/") for c in r) + " |")
    if notes:
        txt.append("")
        md.append("")
        for n in notes:
            txt.append(f"- {n}")
            md.append(f"- {n}")
    with open(os.path.join(outdir, "table.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(txt) + "\n")
    with open(os.path.join(outdir, "table.md"), "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "table":
        return table(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
