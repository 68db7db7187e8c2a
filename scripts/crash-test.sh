#!/usr/bin/env bash
# Crash test of turnstiled's durable counts (issue 8, "Show"):
#   scripts/crash-test.sh [KILLS]      (default 50)
#
# Runs the daemon on the simulated board (boards/sim.toml) with a fresh --database, drives a
# stream of random coins and passages through `turnstiled ctl pulse`, and at a random moment
# (0.2–1.5 s in) takes the counts the daemon reports (`ctl status --json`), then kills it with
# SIGKILL and starts it again on the same database. Every count reported before the kill must
# be in the database afterwards (read by `turnstiled stats --json` with the daemon down, and by
# `ctl status --json` from the restarted daemon), and the money invariant over the durable
# totals must hold:
#   coins == passages + expiredCredits + coinsOutOfService + creditsVoidedByRestart + credit.
# Midway it also copies the database while the daemon writes (SQLite's online backup), truncates the copy mid-file, and
# checks that the daemon refuses the copy (exit 4, a message naming it as damaged) and leaves
# it byte for byte as it was.
#
# Uses $TURNSTILED, or the debug build .build/debug/turnstiled (`swift build` first). Needs
# python3. SEED=N repeats a run's random choices.
set -euo pipefail
cd "$(dirname "$0")/.."

kills="${1:-50}"
turnstiled="${TURNSTILED:-.build/debug/turnstiled}"
if [ ! -x "$turnstiled" ]; then
    echo "error: $turnstiled is not built; run \`swift build\` first (or set TURNSTILED)" >&2
    exit 2
fi
command -v python3 >/dev/null || { echo "error: the crash test needs python3" >&2; exit 2; }

exec python3 - "$turnstiled" "$kills" "${SEED:-}" <<'PYTHON'
import hashlib, json, os, random, shutil, signal, sqlite3, subprocess, sys, tempfile, threading, time

turnstiled, kills, seed = os.path.abspath(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
seed = int(seed) if seed else random.randrange(1, 2**32)
rng = random.Random(seed)
board = os.path.abspath("boards/sim.toml")
work = tempfile.mkdtemp(prefix="turnstiled-crash-")
database = os.path.join(work, "counts.sqlite")
socket = os.path.join(work, "control.sock")
log_path = os.path.join(work, "daemon.log")

# A debug build on a busy two-core machine: a start may take a second or two.
START_TIMEOUT = 15.0
# The kill comes this long after the stream of pulses began (the issue's "random moments").
KILL_WINDOW = (0.2, 1.5)
# The kinds the money invariant sums.
MONEY_OUT = ["passages", "expiredCredits", "coinsOutOfService", "creditsVoidedByRestart"]

def fail(message):
    print(f"crash test FAILED (seed {seed}, SEED={seed} repeats it; files kept in {work}): {message}", file=sys.stderr)
    sys.exit(1)

def ctl(*words, timeout=10):
    return subprocess.run([turnstiled, "ctl", "--socket", socket, *words], capture_output=True, text=True, timeout=timeout)

def status():
    reply = ctl("status", "--json")
    if reply.returncode != 0:
        return None
    return json.loads(reply.stdout)["status"]

def start_daemon():
    log = open(log_path, "ab")
    daemon = subprocess.Popen(
        [turnstiled, "run", "--board", board, "--database", database, "--control-socket", socket, "--json", "--no-http"],
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

def check_kept(reported, durable, where):
    """Every count reported before the kill is at most what is durable now; how many compared."""
    for kind, value in reported.items():
        if durable.get(kind, 0) < value:
            fail(f"{where}: {kind} was reported as {value} before the kill but is {durable.get(kind, 0)} after it")
    return len(reported)

def stats():
    result = subprocess.run([turnstiled, "stats", "--database", database, "--json"], capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        fail(f"stats after a kill exited {result.returncode}: {result.stderr.strip()}")
    return json.loads(result.stdout)

class Pulses(threading.Thread):
    """Coins and passages through `ctl pulse`, until stopped (refusals while killed are fine)."""
    def __init__(self, rng):
        super().__init__(daemon=True)
        self.rng, self.stop, self.sent = rng, threading.Event(), 0
    def run(self):
        while not self.stop.is_set():
            try:
                if ctl("pulse", self.rng.choice(["coin", "coin", "push"]), timeout=5).returncode == 0:
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
            [turnstiled, "run", "--board", board, "--database", copy, "--no-http"],
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
    check_invariant(reported["counters"], reported["credit"], f"kill {kill}, reported before it")
    os.kill(daemon.pid, signal.SIGKILL)
    daemon.wait()
    pulses.stop.set()
    pulses.join()
    pulses_sent += pulses.sent

    durable = stats()
    if not durable["moneyBalances"]:
        fail(f"kill {kill}: stats says the money does not balance: {durable}")
    check_invariant(durable["totals"], durable["credit"], f"kill {kill}, stats after it")
    checked += check_kept(reported["counters"], durable["totals"], f"kill {kill}, stats after it")

    daemon, restarted = start_daemon()
    check_invariant(restarted["counters"], restarted["credit"], f"kill {kill}, status after the restart")
    checked += check_kept(reported["counters"], restarted["counters"], f"kill {kill}, status after the restart")
    if restarted["credit"] != 0:
        fail(f"kill {kill}: the restarted daemon reports credit {restarted['credit']}; credit never survives a restart")
    voided = restarted["counters"].get("creditsVoidedByRestart", 0) - durable["totals"].get("creditsVoidedByRestart", 0)
    if voided != durable["credit"]:
        fail(f"kill {kill}: credit {durable['credit']} stood at the kill but {voided} was voided by the restart")

daemon.send_signal(signal.SIGTERM)
if daemon.wait(timeout=20) != 0:
    fail(f"the last daemon exited {daemon.returncode} after SIGTERM; its log: {log_path}")
final = stats()
if not final["moneyBalances"]:
    fail(f"after the last run the money does not balance: {final}")
if final["totals"].get("coins", 0) == 0:
    fail("no coin was ever counted: the pulses did not reach the daemon")
elapsed = time.monotonic() - started
shutil.rmtree(work)
size, cut, message = truncation
refusal = next(line for line in message.splitlines() if "damaged" in line)
print(f"truncated copy ({size} → {cut} bytes) refused with exit 4, file unchanged: {refusal[:200]}")
print(f"totals: {final['sessions']} runs, coins {final['totals']['coins']}, passages {final['totals']['passages']}, "
      f"voided by restart {final['totals']['creditsVoidedByRestart']}, {pulses_sent} pulses sent")
print(f"crash test: {kills} kills, {checked} counts checked, invariant held ({elapsed:.0f} s, seed {seed})")
PYTHON
