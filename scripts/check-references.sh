#!/usr/bin/env bash
# Nothing in the repository refers to a file that is not in it:
#   1. every relative link of a Markdown file (`[text](path)`, `![alt](path)`) names a file or
#      folder of the repository (from the linking file's folder), and a link to a heading
#      (`file.md#heading`, `#heading`) names a heading that file has, as GitHub makes its anchor;
#   2. every `docs/NAME` (or `docs/FOLDER/NAME`) a tracked text file mentions is in docs/;
#   3. no file cites the design notes the project was started from (DESIGN.md): what a user or
#      the next engineer needs is written here, in docs/ and the READMEs;
#   4. every path into the repository a tracked text file mentions (`scripts/…`, `boards/…`,
#      `packaging/…`, `Sources/…`, `Tests/…`, `Examples/…`, `AllocationTests/…`, `Benchmarks/…`,
#      `Fuzz/…`, `.ci/…`, ending in a file's extension) is a file: from the repository's root,
#      the root of the package the mentioning file is in, or its folder. A file named `x.EXT`
#      is an example in a message, not a reference.
# usage: scripts/check-references.sh   (from anywhere; exits 1 naming each dangling reference)
set -euo pipefail
cd "$(dirname "$0")/.."

python3 - <<'PY'
import os, re, subprocess, sys

files = subprocess.run(["git", "ls-files", "-z"], capture_output=True, check=True).stdout.decode().split("\0")
files = [f for f in files if f and os.path.isfile(f)]
problems = []
link = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
docs = re.compile(r"(?<![\w./-])docs/(?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_.-]+\.(?:md|png|svg|html)")
fence = re.compile(r"^(```|~~~)")
path_mention = re.compile(
    r"(?<![\w./$-])((?:scripts|boards|packaging|Sources|Tests|Examples|AllocationTests|Benchmarks|Fuzz|\.ci)/"
    r"(?:[A-Za-z0-9_+-]+/)*[A-Za-z0-9_.+-]+\.(?:sh|py|swift|toml|json|txt|conf|md|c|h))\b")

def package_root(path):
    """The folder of the nearest Package.swift above `path` ("" for the repository's)."""
    folder = os.path.dirname(path)
    while folder:
        if os.path.exists(os.path.join(folder, "Package.swift")):
            return folder
        folder = os.path.dirname(folder)
    return ""

def anchors(path):
    """The anchors GitHub gives the headings of the Markdown file `path` (outside code blocks)."""
    found, seen, in_code = set(), {}, False
    for line in open(path, encoding="utf-8").read().split("\n"):
        if fence.match(line):
            in_code = not in_code
            continue
        heading = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if in_code or not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found
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
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(resolved):
                problems.append(f"{path}: links to {target}, which is not in the repository")
            elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
                problems.append(f"{path}: links to {target}, but {resolved} has no heading whose anchor is #{anchor}")
    for mention in set(docs.findall(text)):
        if not os.path.exists(mention):
            problems.append(f"{path}: mentions {mention}, which is not in the repository")
    for mention in set(path_mention.findall(text)):
        if os.path.basename(mention).startswith("x."):
            continue
        places = [mention, os.path.join(package_root(path), mention), os.path.join(os.path.dirname(path), mention)]
        if not any(os.path.exists(place) for place in places):
            problems.append(f"{path}: mentions {mention}, which is not in the repository")
for problem in sorted(problems):
    print(problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"check-references: {len(files)} files, every reference is to a file in the repository")
PY
