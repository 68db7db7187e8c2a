#!/bin/sh
# The production daemon on the kernel's gpio-sim chip: counts made durable in SQLite (in the
# guest's tmpfs), `turnstiled ctl` on a control socket, the status endpoints on loopback.
#   - coins and passages driven on the lines show in `ctl status`, /status and /metrics;
#   - `ctl fault` breaks it: the alarm line goes high; `ctl repair` brings it back;
#   - SIGTERM with the arm released: the lock at the fail level before the release, exit 0;
#   - a restart on the same database: `stats` and `ctl status` show the counts kept;
#   - kill -9 right after a coin: every count `ctl status` had reported is there after a
#     restart, and the money still balances.
# shellcheck disable=SC2016
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

HTTP=127.0.0.1:9180             # the daemon's default address, given explicitly
DURABLE_S=5                     # longest wait for a count to be committed and reported
SAMPLES=/tmp/daemon-lock-samples
# A credit stands until it is used: the released arm must not relock by itself while ctl and
# the sampler (each a process start under TCG) look at it.
RELOCK_TIMEOUT=30s
board_relocking_after $RELOCK_TIMEOUT /tmp/daemon.toml
BOARD=/tmp/daemon.toml

ctl() { /hil/bin/$gen/turnstiled ctl --socket "$SOCK" --json "$@"; }

# The counters object of a JSON document on stdin, one "name":value per line.
counters_of() { sed -n "s/.*\"$1\":{\([^}]*\)}.*/\1/p" | tr ',' '\n'; }
# status_counter NAME: a durable counter as `ctl status` reports it (empty when unreachable).
status_counter() { ctl status 2>/dev/null | counters_of counters | sed -n "s/^\"$1\":\([0-9]*\)\$/\1/p"; }
status_state() { ctl status 2>/dev/null | sed -n 's/.*"state":"\([a-zA-Z]*\)".*/\1/p'; }
# stats_total NAME: a total from `turnstiled stats --json` (the daemon stopped or running).
stats_total() {
    /hil/bin/$gen/turnstiled stats --database "$DB" --json | counters_of totals | sed -n "s/^\"$1\":\([0-9]*\)\$/\1/p"
}
pair() {
    pulse $COIN; wait_output $LOCK 0 5
    pulse $PUSH; wait_output $LOCK 1 5
}
# fetch PATH: the body of a GET, if the answer is 200. busybox nc, not busybox wget: the static
# busybox's wget dies of a segmentation fault in the guest (likely glibc's NSS, which a static
# binary cannot load, looking the "http" service up).
fetch() {
    printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" "$HTTP" | nc -w 5 "${HTTP%:*}" "${HTTP##*:}" |
        tr -d '\r' >/tmp/daemon-http
    head -n 1 /tmp/daemon-http | grep -q "^HTTP/1\.[01] 200" || { head -n 1 /tmp/daemon-http; return 1; }
    sed '1,/^$/d' /tmp/daemon-http
}

for gen in $GENERATIONS; do
    DB=/tmp/daemon-$gen.sqlite SOCK=/tmp/daemon-$gen.sock
    rm -f "$DB" "$DB-wal" "$DB-shm"
    board_up
    drive $LOCK low                          # secure: the fail level 1 shows before the release
    ts_start $gen --database "$DB" --control-socket "$SOCK" --http $HTTP ||
        { fail "$gen/daemon" "did not start"; ts_dump; board_down; continue; }

    pair; pair; pair
    check "$gen/daemon-ctl-status-counts" 'wait_for $DURABLE_S "[ \"\$(status_counter coins)\" = 3 ]" &&
        [ "$(status_counter passages)" = 3 ] && [ "$(status_state)" = locked ]' \
        "ctl status: $(ctl status 2>&1)" || ts_dump

    # HTTP on loopback (the guest init brings lo up; busybox nc is the client).
    health=$(fetch /healthz 2>&1)
    check "$gen/daemon-healthz" '[ "$health" = ok ]' "GET /healthz: $health"
    metrics=$(fetch /metrics 2>&1)
    check "$gen/daemon-metrics" 'echo "$metrics" | grep -Eq "^turnstiled_events_total\{kind=\"coins\"\} 3(\.0)?\$" &&
        echo "$metrics" | grep -Eq "^turnstiled_state\{state=\"locked\"\} 1(\.0)?\$"' \
        "GET /metrics: $(echo "$metrics" | grep "events_total\|turnstiled_state" | tr '\n' ' ')"
    check "$gen/daemon-status-json" 'fetch /status | counters_of counters | grep -q "^\"coins\":3\$"' \
        "GET /status: $(fetch /status 2>&1)"

    # A fault from the control socket: broken, the alarm sounds; a repair brings it back.
    reply=$(ctl fault 2>&1)
    check "$gen/daemon-ctl-fault-breaks" 'wait_for 5 "[ \"\$(status_state)\" = broken ]" && wait_output $ALARM 1 5 &&
        [ "$(output $LOCK)" = 1 ]' "reply $reply; state $(status_state), alarm $(output $ALARM), lock $(output $LOCK)" || ts_dump
    ctl repair >/dev/null
    check "$gen/daemon-ctl-repair" 'wait_for 5 "[ \"\$(output $READY)\$(output $ALARM)\" = 10 ]" &&
        wait_for $DURABLE_S "[ \"\$(status_counter repairs)\" = 1 ] && [ \"\$(status_counter faults)\" = 1 ]"' \
        "ready/alarm $(output $READY)$(output $ALARM): $(ctl status 2>&1)"

    # SIGTERM with the arm released: the lock goes to the fail level (1), then the line is let go.
    pulse $COIN; wait_output $LOCK 0 5
    wait_for $DURABLE_S '[ "$(status_counter coins)" = 4 ]'
    (while :; do cat "$CHIP_SYSFS/sim_gpio$LOCK/value"; done >"$SAMPLES") & sampler=$!
    sleep_ms 50
    ts_stop TERM
    sleep_ms 50
    kill $sampler; wait $sampler 2>/dev/null
    seen=$(uniq "$SAMPLES" | tr -d '\n')
    info "$gen: LOCK levels seen around SIGTERM: $seen"
    check "$gen/daemon-sigterm-fail-level-exit-0" '[ $TS_RC = 0 ] && echo "$seen" | grep -q "^0*10\$" &&
        grep -q "\"reason\":\"stopped\",\"lock\":1" "$TS_OUT"' "exit $TS_RC, lock levels $seen: $(record stopped)" || ts_dump
    check "$gen/daemon-stats-after-stop" '[ "$(stats_total coins)" = 4 ] && [ "$(stats_total passages)" = 3 ] &&
        [ "$(stats_total faults)" = 1 ] && [ "$(stats_total repairs)" = 1 ]' \
        "stats: $(/hil/bin/$gen/turnstiled stats --database "$DB" --json 2>&1)"
    info "$gen stats: $(/hil/bin/$gen/turnstiled stats --database "$DB" --json 2>&1)"

    # A restart on the same database carries on from the durable counts.
    ts_start $gen --database "$DB" --control-socket "$SOCK" --http $HTTP ||
        { fail "$gen/daemon-restart" "did not start again"; ts_dump; board_down; continue; }
    check "$gen/daemon-restart-keeps-counts" '[ "$(status_counter coins)" = 4 ] && [ "$(status_counter passages)" = 3 ] &&
        [ "$(status_counter faults)" = 1 ]' "ctl status after the restart: $(ctl status 2>&1)" || ts_dump

    # kill -9 while running: what ctl status reported is what the next start finds (at least:
    # a coin in flight at the kill may have been committed after the last look).
    pair; pair
    wait_for $DURABLE_S '[ "$(status_counter coins)" = 6 ]'
    reported_coins=$(status_counter coins) reported_passages=$(status_counter passages)
    pulse $COIN
    ts_stop KILL
    info "$gen: killed (status $TS_RC) after ctl status reported coins $reported_coins, passages $reported_passages"
    ts_start $gen --database "$DB" --control-socket "$SOCK" --http $HTTP ||
        { fail "$gen/daemon-kill9-restart" "did not start after kill -9"; ts_dump; board_down; continue; }
    coins=$(status_counter coins) passages=$(status_counter passages)
    check "$gen/daemon-kill9-keeps-reported-counts" '[ "$reported_coins" = 6 ] && [ "$coins" -ge "$reported_coins" ] &&
        [ "$passages" -ge "$reported_passages" ]' \
        "reported coins $reported_coins, passages $reported_passages before kill -9; after: $coins, $passages" || ts_dump
    ts_stop
    check "$gen/daemon-kill9-money-balances" '[ $TS_RC = 0 ] &&
        /hil/bin/$gen/turnstiled stats --database "$DB" --json | grep -q "\"moneyBalances\":true"' \
        "exit $TS_RC; stats: $(/hil/bin/$gen/turnstiled stats --database "$DB" --json 2>&1)"
    board_down
done
