#!/usr/bin/env python3
"""Prints scripts/bench.sh's comparison table.

Arguments: the folder of ordo-one/benchmark `histogramSamples` exports, the folder of callgrind
outputs (`NAME.COUNT.out`), events per benchmark sample, events per callgrind run.
Benchmark names are MACHINE.IMPLEMENTATION (Benchmarks/DispatchBenchmarks).
"""
import math
import re
import sys
from pathlib import Path

MACHINES = ["turnstile", "complex", "turnstile-nested"]
IMPLEMENTATIONS = ["c-switch", "c-qhsm", "swift-switch", "closure-dictionary", "controllerfsm", "controllerfsm-full"]
REFERENCE = "c-switch"
# Issue 4's targets: (machine, implementation, largest ratio to the C switch).
TARGETS = [("turnstile", "controllerfsm", 1.25), ("complex", "controllerfsm", 1.5), ("turnstile", "controllerfsm-full", 2.0)]
# Issue 9: instructions per event (callgrind, exact) and wall time against the C switch.
RUNTIME_V2_TARGETS = [
    ("turnstile", "controllerfsm", "instr", 100),
    ("turnstile", "controllerfsm", "time", 2.5),
    ("turnstile", "controllerfsm-full", "instr", 150),
    ("complex", "controllerfsm", "time", 1.25),
]
PREFIX = "Current_run.DispatchBenchmarks."


def samples(folder: Path, name: str, metric: str) -> list[int]:
    path = folder / f"{PREFIX}{name}.{metric}.histogram.samples.tsv"
    if not path.exists():
        return []
    return [int(line) for line in path.read_text().splitlines()[1:] if line.strip()]


def percentile(values: list[int], p: float) -> float:
    """Nearest-rank percentile, as HDR histograms report them."""
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def instructions(folder: Path, name: str, count: int) -> float | None:
    def total(n: int) -> int | None:
        path = folder / f"{name}.{n}.out"
        if not path.exists():
            return None
        match = re.search(r"^(?:summary|totals): (\d+)", path.read_text(errors="replace"), re.M)
        return int(match.group(1)) if match else None

    full, empty = total(count), total(0)
    if full is None or empty is None or count == 0:
        return None
    return (full - empty) / count


def main() -> None:
    sample_folder, callgrind_folder = Path(sys.argv[1]), Path(sys.argv[2])
    events, callgrind_events = int(sys.argv[3]), int(sys.argv[4])

    rows = {}
    for machine in MACHINES:
        for implementation in IMPLEMENTATIONS:
            name = f"{machine}.{implementation}"
            wall = samples(sample_folder, name, "wallClock")
            if not wall:
                continue
            mallocs = samples(sample_folder, name, "mallocCountTotal")
            rows[(machine, implementation)] = {
                "p50": percentile(wall, 50) / events,
                "p99": percentile(wall, 99) / events,
                "mallocs": (sum(mallocs) / (len(mallocs) * events)) if mallocs else None,
                "samples": len(wall),
                "ir": instructions(callgrind_folder, name, callgrind_events),
            }

    header = ["machine", "implementation", "ns/event p50", "ns/event p99", "mallocs/event", "events/s",
              "x C (time)", "instr/event", "x C (instr)", "samples"]
    table = [header]
    for (machine, implementation), row in rows.items():
        reference = rows.get((machine, REFERENCE))
        ratio = row["p50"] / reference["p50"] if reference else None
        ir_ratio = (row["ir"] / reference["ir"]) if reference and row["ir"] and reference["ir"] else None
        table.append([
            machine, implementation,
            f"{row['p50']:.2f}", f"{row['p99']:.2f}",
            "n/a" if row["mallocs"] is None else f"{row['mallocs']:.4g}",
            f"{1e9 / row['p50'] / 1e6:.1f} M",
            "n/a" if ratio is None else f"{ratio:.2f}x",
            "n/a" if row["ir"] is None else f"{row['ir']:.1f}",
            "n/a" if ir_ratio is None else f"{ir_ratio:.2f}x",
            str(row["samples"]),
        ])
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for index, line in enumerate(table):
        cells = [cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i]) for i, cell in enumerate(line)]
        print("| " + " | ".join(cells) + " |")
        if index == 0:
            print("|" + "|".join("-" * (w + 2) for w in widths) + "|")

    print()
    print(f"Per event: one sample = {events:,} events; instr/event over {callgrind_events:,} events (callgrind).")
    print("Targets (issue 4), wall-clock median against the C switch:")
    for machine, implementation, limit in TARGETS:
        row, reference = rows.get((machine, implementation)), rows.get((machine, REFERENCE))
        if not row or not reference:
            continue
        ratio = row["p50"] / reference["p50"]
        verdict = "met" if ratio <= limit else f"MISSED by {ratio / limit:.2f}x"
        print(f"  {machine} {implementation}: {ratio:.2f}x (target <= {limit}x): {verdict}")
    print("Targets (issue 9, runtime v2):")
    for machine, implementation, kind, limit in RUNTIME_V2_TARGETS:
        row, reference = rows.get((machine, implementation)), rows.get((machine, REFERENCE))
        if not row:
            continue
        if kind == "instr":
            if row["ir"] is None:
                continue
            value, shown = row["ir"], f"{row['ir']:.1f} instr/event (target <= {limit})"
        else:
            if not reference:
                continue
            value = row["p50"] / reference["p50"]
            shown = f"{value:.2f}x the C switch's time (target <= {limit}x)"
        verdict = "met" if value <= limit else f"MISSED by {value / limit:.2f}x"
        print(f"  {machine} {implementation}: {shown}: {verdict}")
    print("Targets (issue 29, statecharts): flat machines pay nothing; nested dispatch within 1.5x the flat bare figure:")
    flat, flat_full, nested = (rows.get(("turnstile", "controllerfsm")), rows.get(("turnstile", "controllerfsm-full")),
                               rows.get(("turnstile-nested", "controllerfsm")))
    for label, row, limit in (("turnstile controllerfsm", flat, 100), ("turnstile controllerfsm-full", flat_full, 175)):
        if row and row["ir"] is not None:
            verdict = "met" if row["ir"] <= limit else f"MISSED by {row['ir'] / limit:.2f}x"
            print(f"  {label}: {row['ir']:.1f} instr/event (target <= {limit}): {verdict}")
    if flat and nested and flat["ir"] and nested["ir"]:
        ratio = nested["ir"] / flat["ir"]
        verdict = "met" if ratio <= 1.5 else f"MISSED by {ratio / 1.5:.2f}x"
        print(f"  turnstile-nested controllerfsm: {nested['ir']:.1f} instr/event, {ratio:.2f}x the flat bare figure (target <= 1.5x): {verdict}")
    qhsm = rows.get(("turnstile-nested", "c-qhsm"))
    if qhsm and nested and qhsm["ir"] and nested["ir"]:
        print(f"  turnstile-nested: ControllerFSM {nested['ir']:.1f} against QHsm-style C {qhsm['ir']:.1f} instr/event ({nested['ir'] / qhsm['ir']:.2f}x)")
    for machine in MACHINES:
        for implementation in ("controllerfsm", "controllerfsm-full"):
            row = rows.get((machine, implementation))
            if row and row["mallocs"] is not None:
                verdict = "met" if row["mallocs"] == 0 else "MISSED"
                print(f"  {machine} {implementation}: {row['mallocs']:.4g} mallocs/event (target 0): {verdict}")


if __name__ == "__main__":
    main()
