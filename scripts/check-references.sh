#!/usr/bin/env bash
# Nothing in the repository refers to a file that is not in it:
#   1. every relative link of a Markdown file (`[text](path)`, `![alt](path)`) names a file or
#      folder of the repository (from the linking file's folder);
#   2. every `docs/NAME` a tracked text file mentions is in docs/;
#   3. no file cites the design notes the project was started from (DESIGN.md): what a user or
#      the next engineer needs is written here, in docs/ and the READMEs.
# usage: scripts/check-references.sh   (from anywhere; exits 1 naming each dangling reference)
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - <<'PY'
import os, re, subprocess, sys

files = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout.decode().split("\0")
files = [f for f in files if f and os.path.isfile(f)]
problems = []
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
docs = re.compile(r"(?<![\w./-])docs/[A-Za-z0-9_.-]+\.(?:md|png|svg|html)")
for path in files:
    if path.endswith((".png", ".sqlite", ".bin")) or "/Fixtures/" in path:
        continue
    try:
        text = open(path, encoding="utf-8").read()
    except UnicodeDecodeError:
        continue
    if "DESIGN.md" in text and path != "scripts/check-references.sh":
        problems.append(f"{path}: cites DESIGN.md, which is not in the repository: say it here, or point to docs/")
    if path.endswith(".md"):
        for target in link.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))
            if not os.path.exists(resolved):
                problems.append(f"{path}: links to {target}, which is not in the repository")
    for mention in set(docs.findall(text)):
        if not os.path.exists(mention):
            problems.append(f"{path}: mentions {mention}, which is not in the repository")
for problem in sorted(problems):
    print(problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-references: {len(files)} files, every reference is to a file in the repository")
PY
