#!/usr/bin/env bash
# Crash test of a controller daemon's durable counts (issue 8, "Show"; the barrier since issue 19):
#   scripts/crash-test.sh [KILLS]      (default 50)
#
# Runs the daemon on its simulated board with a fresh --database, drives a stream of random
# inputs through `ctl` (turnstiled: coins and passages; barrierd: requests and vehicles over the
# loop), and at a random moment (0.2–1.5 s in) takes the counts the daemon reports (`ctl status
# --json`), then kills it with SIGKILL and starts it again on the same database. Every count
# reported before the kill must be in the database afterwards (read by `stats --json` with the
# daemon down, and by `ctl status --json` from the restarted daemon), and every balance stats
# reports (each `*Balances` key) must hold. A daemon that reports a `credit` (the turnstile) is
# held to its money rules besides:
#   coins == passages + expiredCredits + coinsOutOfService + creditsVoidedByRestart + credit,
# before the kill, in the database after it and after the restart, whose credit is 0 (the credit
# standing at the kill is what the restart voids).
# Midway it also copies the database while the daemon writes (SQLite's online backup), truncates the copy mid-file, and
# checks that the daemon refuses the copy (exit 4, a message naming it as damaged) and leaves
# it byte for byte as it was.
#
# DAEMON= the daemon's binary (TURNSTILED= is the same; default the debug build
# .build/debug/turnstiled: `swift build` first; the test script gives it the shipped builds,
# $(scripts/release-build.sh --show-bin-path)/turnstiled and .../barrierd). Which inputs it is
# driven with comes from its package's packaging/checks.json ("crash"), the package found by the
# name the binary gives itself (its --help's USAGE line): a new controller's package gets this
# test by saying there what drives it.
# BOARD= the board (default: the product's boards/sim.toml, with checks.json's edits). Needs
# python3. SEED=N repeats a run's random choices.
set -euo pipefail
cd "$(dirname "$0")/.."

kills="${1:-50}"
daemon="${DAEMON:-${TURNSTILED:-.build/debug/turnstiled}}"
if [ ! -x "$daemon" ]; then
    echo "error: $daemon is not built; run \`swift build\` first (or set DAEMON)" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "error: the crash test needs python3" >&2; exit 2; }
# The product's name as the binary gives it, and the package (with its boards) that declares it.
product=$("$daemon" --help | sed -n 's/^USAGE: \([a-z][a-z0-9-]*\) .*/\1/p' | sed -n 1p)
[ -n "$product" ] || { echo "error: $daemon --help has no \"USAGE: NAME ...\" line: not a controller's daemon" >&2; exit 2; }
package=$(scripts/product-package.sh "$product") || exit 2
checks=$package/packaging/checks.json
[ -f "$checks" ] || { echo "error: $checks is missing: a product's package says what drives its checks there (copy packaging/checks.json, turnstiled's)" >&2; exit 2; }
board="${BOARD:-}"
if [ -z "$board" ]; then
    board=$package/boards/sim.toml
    edit_board=1
fi

exec python3 - "$daemon" "$product" "$board" "${edit_board:-0}" "$kills" "${SEED:-}" "$checks" "$PWD/scripts/lib" <<'PYTHON'
import hashlib, json, os, random, re, shutil, signal, sqlite3, subprocess, sys, tempfile, threading, time

daemon_path, product, board, edit_board, kills, seed, checks_path, lib = sys.argv[1:9]
sys.path.insert(0, lib)
import board_edits
daemon_path, edit_board, kills = os.path.abspath(daemon_path), edit_board == "1", int(kills)
seed = int(seed) if seed else random.randrange(1, 2**32)
rng = random.Random(seed)

# What the test drives and expects: the product's packaging/checks.json, "crash". The inputs are
# `ctl` words chosen at random (a word listed twice comes twice as often). They are listed there
# rather than read from `ctl --help`, which lists every line a simulated board takes: the
# barrier's limit switches there are its simulated arm's own (driving them would fight it and
# make every travel a fault), and the service key would repair the faults the test wants left
# alone; the mix is the product's too (more coins than pushes, so credit stands at the kills).
# Each word is checked against `ctl --help` at the start, so a renamed line fails here rather
# than every pulse being refused.
#   inputs       the `ctl` words of one random input
#   counted      counters that must not be 0 at the end: the inputs reached the daemon
#   summary      the counters the last line prints, with their labels
#   boardEdits   "section.key": value changes to the product's boards/sim.toml (not to a BOARD
#                given): the barrier's arm travels in 0.3 s rather than 3, so vehicles pass
#                between kills 0.2–1.5 s apart
try:
    spec = json.load(open(checks_path, encoding="utf-8"))["crash"]
    spec["inputs"] = [tuple(words) for words in spec["inputs"]]
except (OSError, ValueError, KeyError) as error:
    sys.exit(f"error: {checks_path} has no usable \"crash\" entry ({error}): the `{product} ctl` words that drive it and the counters they must move")


work = tempfile.mkdtemp(prefix=f"{product}-crash-")
database = os.path.join(work, "counts.sqlite")
socket = os.path.join(work, "control.sock")
log_path = os.path.join(work, "daemon.log")

# A debug build on a busy two-core machine: a start may take a second or two.
START_TIMEOUT = 15.0
# The kill comes this long after the stream of pulses began (the issue's "random moments").
KILL_WINDOW = (0.2, 1.5)
# The turnstile's money rules: the kinds its invariant sums, besides the credit standing.
MONEY_OUT = ["passages", "expiredCredits", "coinsOutOfService", "creditsVoidedByRestart"]

def fail(message):
    print(f"crash test FAILED (seed {seed}, SEED={seed} repeats it; files kept in {work}): {message}", file=sys.stderr)
    sys.exit(1)

def edited_board(path, edits):
    """The board at path with the product's changes for this test; every key must be found."""
    text, missing = board_edits.edited(open(path, encoding="utf-8").read(), edits)
    if missing:
        fail(f"{path} has no {', '.join(missing)} to change; update boardEdits in {checks_path}")
    edited = os.path.join(work, "board.toml")
    open(edited, "w", encoding="utf-8").write(text)
    return edited

if edit_board and spec["boardEdits"]:
    board = edited_board(board, spec["boardEdits"])
board = os.path.abspath(board)

def ctl(*words, timeout=10):
    return subprocess.run([daemon_path, "ctl", "--socket", socket, *words], capture_output=True, text=True, timeout=timeout)

def check_inputs_exist():
    """Each input of the table is a command `ctl --help` lists, with its line."""
    usage = subprocess.run([daemon_path, "ctl", "--help"], capture_output=True, text=True, timeout=30).stdout
    for words in set(spec["inputs"]):
        command = re.search(rf"^\s*{re.escape(words[0])} (\S+)", usage, re.MULTILINE)
        lines = command.group(1).split("|") if command else []
        if words[1] not in lines:
            fail(f"`{product} ctl --help` has no `{words[0]} {words[1]}`; update 'crash' in {checks_path}")

def status():
    reply = ctl("status", "--json")
    if reply.returncode != 0:
        return None
    return json.loads(reply.stdout)["status"]

def start_daemon():
    log = open(log_path, "ab")
    daemon = subprocess.Popen(
        [daemon_path, "run", "--board", board, "--database", database, "--control-socket", socket, "--json", "--no-http"],
        stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    log.close()
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            fail(f"the daemon exited {daemon.returncode} at start; its log: {log_path}")
        snapshot = status() if os.path.exists(socket) else None
        if snapshot is not None and snapshot.get("phase") == "running":
            return daemon, snapshot
        time.sleep(0.02)
    daemon.kill()
    fail(f"the daemon did not answer `ctl status` within {START_TIMEOUT} s; its log: {log_path}")

def check_invariant(counters, credit, where):
    out = sum(counters.get(k, 0) for k in MONEY_OUT) + credit
    if counters.get("coins", 0) != out:
        fail(f"{where}: money does not balance: coins {counters.get('coins', 0)} != "
             + " + ".join(f"{k} {counters.get(k, 0)}" for k in MONEY_OUT) + f" + credit {credit}")

def check_balances(durable, where):
    """Every balance stats reports holds; a daemon with credit must report its balances."""
    balances = {key: value for key, value in durable.items() if key.endswith("Balances")}
    if "credit" in durable and not balances:
        fail(f"{where}: stats reports a credit but no balance over it: {durable}")
    broken = [key for key, holds in balances.items() if holds is not True]
    if broken:
        fail(f"{where}: stats says {', '.join(broken)} false: {durable}")

def check_kept(reported, durable, where):
    """Every count reported before the kill is at most what is durable now; how many compared."""
    for kind, value in reported.items():
        if durable.get(kind, 0) < value:
            fail(f"{where}: {kind} was reported as {value} before the kill but is {durable.get(kind, 0)} after it")
    return len(reported)

def stats():
    result = subprocess.run([daemon_path, "stats", "--database", database, "--json"], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        fail(f"stats after a kill exited {result.returncode}: {result.stderr.strip()}")
    return json.loads(result.stdout)

class Pulses(threading.Thread):
    """The product's inputs through `ctl`, until stopped (refusals while killed are fine)."""
    def __init__(self, rng):
        super().__init__(daemon=True)
        self.rng, self.stop, self.sent = rng, threading.Event(), 0
    def run(self):
        while not self.stop.is_set():
            try:
                if ctl(*self.rng.choice(spec["inputs"]), timeout=5).returncode == 0:
                    self.sent += 1
            except subprocess.TimeoutExpired:
                pass
            self.stop.wait(self.rng.uniform(0.0, 0.06))

def truncated_copy_is_refused():
    """Copies the database while the daemon writes, cuts the copy mid-file, and expects a refusal."""
    copy = os.path.join(work, "truncated.sqlite")
    # SQLite's online backup: a whole database as of now, WAL included (the main file alone
    # holds little while the daemon writes; its pages are in the WAL until a checkpoint).
    source = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
    target = sqlite3.connect(copy)
    source.backup(target)
    target.close()
    source.close()
    size = os.path.getsize(copy)
    if size < 2 * 4096:
        fail(f"the database is only {size} bytes mid-run; too small to truncate meaningfully")
    # Mid-file and off any page boundary, as a write cut by a power loss leaves it.
    cut = size // 2 + 1234
    with open(copy, "r+b") as f:
        f.truncate(cut)
    digest = hashlib.sha256(open(copy, "rb").read()).hexdigest()
    try:
        result = subprocess.run(
            [daemon_path, "run", "--board", board, "--database", copy, "--no-http"],
            capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        fail(f"the daemon took a database truncated from {size} to {cut} bytes and ran on it")
    if result.returncode != 4:
        fail(f"a database truncated from {size} to {cut} bytes: exit {result.returncode}, not 4; stderr: {result.stderr.strip()}")
    message = result.stderr.strip()
    if copy not in message or "damaged" not in message:
        fail(f"the refusal does not name the file as damaged: {message}")
    if hashlib.sha256(open(copy, "rb").read()).hexdigest() != digest:
        fail("the refused database file was changed")
    for suffix in ("-wal", "-journal"):
        if os.path.exists(copy + suffix) and os.path.getsize(copy + suffix) > 0:
            fail(f"refusing the database left a non-empty {copy + suffix}")
    return size, cut, message

check_inputs_exist()
started = time.monotonic()
checked = 0
pulses_sent = 0
truncation = None
daemon, snapshot = start_daemon()
for kill in range(1, kills + 1):
    pulses = Pulses(random.Random(rng.randrange(2**32)))
    pulses.start()
    time.sleep(rng.uniform(*KILL_WINDOW))
    if kill == max(1, kills // 2) and truncation is None:
        truncation = truncated_copy_is_refused()
    reported = status()
    if reported is None:
        fail(f"kill {kill}: `ctl status --json` failed while the daemon ran; its log: {log_path}")
    if "credit" in reported:
        check_invariant(reported["counters"], reported["credit"], f"kill {kill}, reported before it")
    os.kill(daemon.pid, signal.SIGKILL)
    daemon.wait()
    pulses.stop.set()
    pulses.join()
    pulses_sent += pulses.sent

    durable = stats()
    check_balances(durable, f"kill {kill}")
    if "credit" in durable:
        check_invariant(durable["totals"], durable["credit"], f"kill {kill}, stats after it")
    checked += check_kept(reported["counters"], durable["totals"], f"kill {kill}, stats after it")

    daemon, restarted = start_daemon()
    if "credit" in restarted:
        check_invariant(restarted["counters"], restarted["credit"], f"kill {kill}, status after the restart")
    checked += check_kept(reported["counters"], restarted["counters"], f"kill {kill}, status after the restart")
    if "credit" in restarted:
        if restarted["credit"] != 0:
            fail(f"kill {kill}: the restarted daemon reports credit {restarted['credit']}; credit never survives a restart")
        voided = restarted["counters"].get("creditsVoidedByRestart", 0) - durable["totals"].get("creditsVoidedByRestart", 0)
        if voided != durable["credit"]:
            fail(f"kill {kill}: credit {durable['credit']} stood at the kill but {voided} was voided by the restart")

daemon.send_signal(signal.SIGTERM)
if daemon.wait(timeout=20) != 0:
    fail(f"the last daemon exited {daemon.returncode} after SIGTERM; its log: {log_path}")
final = stats()
check_balances(final, "after the last run")
for kind in spec["counted"]:
    if final["totals"].get(kind, 0) == 0:
        fail(f"no {kind} was ever counted: the inputs ({', '.join(' '.join(w) for w in spec['inputs'])}) did not reach the daemon")
elapsed = time.monotonic() - started
shutil.rmtree(work)
size, cut, message = truncation
refusal = next(line for line in message.splitlines() if "damaged" in line)
print(f"truncated copy ({size} → {cut} bytes) refused with exit 4, file unchanged: {refusal[:200]}")
print(f"totals: {final['sessions']} runs, "
      + ", ".join(f"{label} {final['totals'][kind]}" for kind, label in spec["summary"]) + f", {pulses_sent} pulses sent")
held = "invariant held" if "credit" in final else "every one kept"
print(f"crash test: {kills} kills, {checked} counts checked, {held} ({elapsed:.0f} s, seed {seed})")
PYTHON
