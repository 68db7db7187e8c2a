#!/usr/bin/env python3
"""How long the SCXML loader takes on the largest documents its limits allow (SCXMLLimits), and on
the worst shapes within them: a benchmark, not a test (the tests assert that each largest
document loads and the next size up is refused: LoaderBoundsTests). Each document is written to
a temporary folder and run by `scxml-run` under /usr/bin/time; its wall time and peak memory are
printed beside the budget the limits were chosen for (2 s, on two cores).

    swift build -c release --product scxml-run
    Benchmarks/scripts/scxml-limits.py "$(swift build -c release --show-bin-path)/scxml-run"
"""
import os
import re
import subprocess
import sys
import tempfile

BUDGET_SECONDS = 2.0
OPEN = '<scxml xmlns="http://www.w3.org/2005/07/scxml" version="1.0">\n'


def limits():
    """The limits, read from the source, so the documents follow any change of them."""
    here = os.path.dirname(os.path.abspath(__file__))
    text = open(os.path.join(here, "..", "..", "Sources", "ControllerSCXML", "SCXMLLimits.swift")).read()
    found = {}
    for name, value in re.findall(r"public static let (maximum\w+)(?:: \w+)? = ([\d_ *]+)$", text, re.MULTILINE):
        product = 1
        for factor in value.replace("_", "").split("*"):
            product *= int(factor)
        found[name] = product
    return found


def documents(limit):
    states, events, cells = limit["maximumStates"], limit["maximumEvents"], limit["maximumTableCells"]
    # The audit's cubic case: one state raising N events, N event="*" transitions, as many as
    # the rows allow.
    n = min(events - 1, int(limit["maximumRows"] ** 0.5) - 1)
    raises = "".join(f'<raise event="e{i}"/>' for i in range(n))
    stars = '<transition event="*" cond="true"/>' * n
    yield f"{n} events x {n} wildcard rows", OPEN + f'<state id="a"><onentry>{raises}</onentry>{stars}</state></scxml>'
    # A chain of eventless transitions through every state the bound allows.
    chain = "".join(f'<state id="s{i}"><transition target="s{i + 1}"/></state>\n' for i in range(states - 2))
    yield f"{states - 1} states in an eventless chain", OPEN + chain + f'<state id="s{states - 2}"/><final id="pass"/></scxml>'
    # The widest table: as many states, each with a row, as the cells allow across every
    # event ((events + 1) x (states + rows) cells).
    wide_events = events - 2
    width = min(states - 2, cells // (wide_events + 2) // 2 - 2)
    raises = "".join(f'<raise event="e{i}"/>' for i in range(wide_events))
    plain = "".join(f'<state id="s{i}"><transition event="e{i % wide_events}" target="s{(i + 1) % width}"/></state>\n' for i in range(width))
    yield f"{width} states x {wide_events + 1} events", OPEN + f'<state id="init"><onentry>{raises}</onentry></state>\n' + plain + "</scxml>"
    # The most bytes: one state and a comment to the size bound.
    head = OPEN + '<state id="a"/>\n<!--'
    tail = "-->\n</scxml>"
    room = limit["maximumDocumentBytes"] - len(head) - len(tail)
    yield f"{limit['maximumDocumentBytes']} bytes", head + ("x" * 79 + "\n") * (room // 80) + "x" * (room % 80) + tail


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runner = sys.argv[1]
    print(f"{'document':44} {'seconds':>8} {'peak MB':>8}  (budget {BUDGET_SECONDS} s)")
    with tempfile.TemporaryDirectory() as folder:
        for name, text in documents(limits()):
            path = os.path.join(folder, "largest.scxml")
            with open(path, "w") as file:
                file.write(text)
            timed = subprocess.run(["/usr/bin/time", "-f", "%e %M", runner, path], capture_output=True, text=True)
            seconds, kilobytes = timed.stderr.strip().splitlines()[-1].split()
            outcome = timed.stdout.strip().split(": ", 1)[-1][:60]
            print(f"{name:44} {float(seconds):8.2f} {int(kilobytes) / 1024:8.1f}  {outcome}")


if __name__ == "__main__":
    main()
