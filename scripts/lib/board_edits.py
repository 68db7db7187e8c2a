"""A product's board with the changes its packaging/checks.json lists for a check.

Each change is "section.key": "value" (the value as TOML writes it: '"300ms"'), applied to the
line `key = ...` of `[section]`; every key must be found, so a renamed setting fails the check
that relies on it instead of running it on the wrong board.

    python3 scripts/lib/board_edits.py BOARD EDITS_JSON OUT     # exit 1 naming what is missing
"""
import json
import re
import sys


def edited(text, edits):
    """The board's text with each change made, and the changes not found."""
    wanted = {tuple(name.split(".", 1)): value for name, value in edits.items()}
    lines, section, done = text.splitlines(keepends=True), None, set()
    for i, line in enumerate(lines):
        header = re.match(r"\s*\[([^\]]+)\]", line)
        if header:
            section = header.group(1).strip()
            continue
        entry = re.match(r"\s*([A-Za-z0-9_]+)\s*=", line)
        if entry and (section, entry.group(1)) in wanted:
            lines[i] = f"{entry.group(1)} = {wanted[(section, entry.group(1))]}\n"
            done.add((section, entry.group(1)))
    missing = [f"[{s}] {k}" for s, k in wanted if (s, k) not in done]
    return "".join(lines), missing


if __name__ == "__main__":
    board, edits, out = sys.argv[1:4]
    text, missing = edited(open(board, encoding="utf-8").read(), json.loads(edits))
    if missing:
        sys.exit(f"{board} has no {', '.join(missing)} to change; update boardEdits in the product's packaging/checks.json")
    open(out, "w", encoding="utf-8").write(text)
