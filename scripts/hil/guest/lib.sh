# Helpers for HIL scenarios inside the VM (busybox ash). Source it: . /hil/guest/lib.sh
# shellcheck shell=dash disable=SC2034
#
#   chip_create NAME LABEL NUM_LINES "NAME0 NAME1 ..."
#                        make a live gpio-sim chip (one bank) through configfs; sets CHIP_DEV
#                        (/dev/gpiochipN), CHIP_NAME (gpiochipN) and CHIP_SYSFS
#                        (/sys/devices/platform/gpio-sim.X/gpiochipN), all read back from the
#                        kernel, and prints "CHIP_DEV CHIP_SYSFS"
#   chip_use NAME        make an existing chip the current one (sets the same variables)
#   chip_destroy NAME    live=0, then remove its lines, bank and directory
#   drive OFFSET high|low
#                        drive an input of the current chip: writes pull-up/pull-down to
#                        sim_gpioOFFSET/pull (a request with a bias rewrites that pull!)
#   press OFFSET MS      hold an active-low input active (low) for MS ms and release it (high)
#   output OFFSET        print what a consumer drives on a line of the current chip: 0 or 1
#   wait_output OFFSET VALUE TIMEOUT_S
#                        wait until an output line of the current chip reads VALUE. Only for a
#                        level that holds until the scenario's next step: a level the daemon
#                        drives for a while (a motor's run, a credit's release before its relock)
#                        is checked from the records or a plant's log, which keep it; a poll on
#                        a loaded guest can start after it ended
#   transition_t FILE FROM EVENT TO [N [WAIT_S]]
#                        the time (s, the daemon's clock) of the Nth (default 1st) transition
#                        record FROM --EVENT--> TO in FILE, empty if none came. Waits for it up
#                        to WAIT_S (default RECORD_LAG_S): the daemon's reporter writes a step's
#                        records on its own thread after the step drove the lines
#   outputs_at FILE T    the output records in FILE stamped T (a transition's time): the lines
#                        that step drove, "NAME=VALUE " each, in the order driven
#   within T0 T1 MIN SLACK
#                        T1 - T0 (seconds, from the records) is at least MIN, at most MIN + SLACK,
#                        each give or take RECORD_EPSILON_S; a timer's record is stamped with its
#                        deadline, so T1 - T0 is MIN exactly but for the decimals' rounding and
#                        awk's doubles (2.537999 - 1.537999 is a little over 1): SLACK 0 is exact
#   pass NAME            print "HIL PASS NAME"
#   fail NAME REASON     print "HIL FAIL NAME: REASON"; returns 1
#   check NAME 'COND' [REASON]
#                        pass or fail NAME as the shell condition COND holds. REASON is expanded
#                        when check is called, before COND runs: what the state was after a
#                        failure goes after it, `check ... || bd_dump`
#   wait_for TIMEOUT_S 'COND'
#                        poll COND every POLL_MS until it holds (0) or TIMEOUT_S passes (1)
#   now_ms               milliseconds since boot (from /proc/uptime: 10 ms resolution)
#   now_us               microseconds since the epoch (busybox adjtimex: 1 us resolution)
#   sleep_ms N           sleep N milliseconds (busybox usleep)
#   as_user USER CMD...  run CMD as USER (uid, gid and groups from /etc/passwd; busybox su)
#   info TEXT            print "HIL INFO TEXT" (for the log; boot.sh ignores it)
#
# Programs given to make-initramfs.sh as --bin NAME=PATH are $HIL_BIN/NAME, and $HIL_BIN/GEN/NAME
# runs it on one libgpiod generation (v1: 1.6, v2: 2.3). /hil/bin is on PATH, but v1/turnstiled
# is not looked up there: call it by full path, or put its directory first, e.g.
# PATH=$HIL_BIN/v2:$PATH turnstiled run ...
#
# Results are also appended to $HIL_RESULTS, so scenarios may run in subshells or processes
# of their own and suite.sh still counts them.

HIL_BIN=/hil/bin
# libgpiod 1.6 and 2.x: suite.sh makes $HIL_BIN/GEN/NAME for each, and the scenarios run on
# each; init narrows it from the kernel command line (hil.generations=v2, run.sh --generations).
HIL_GENERATIONS=${HIL_GENERATIONS:-v1 v2}
HIL_TOOLS_V2=/hil/tools/v2      # libgpiod 2.x's own tools, where the guest has them (arm64)
# The libgpiod versions the guest holds (make-initramfs.sh writes /hil/versions from prepare.sh's
# record): amd64 has apt's 1.6.3 and 2.3 built from the PyPI sdist; arm64 bookworm's 1.6.3 and
# trixie's 2.2.1.
HIL_LIBGPIOD_V1=1.6.3
HIL_LIBGPIOD_V2=2.3
# shellcheck disable=SC1091
[ -r /hil/versions ] && . /hil/versions
HIL_CONFIGFS=/sys/kernel/config/gpio-sim
HIL_STATE=/tmp/hil
HIL_RESULTS=$HIL_STATE/results
POLL_MS=10                      # wait_for's polling period
RECORD_LAG_S=5                  # how long a record may trail the lines it reports (loaded TCG)
RECORD_EPSILON_S=0.000002       # two record times' rounding (microseconds) and awk's doubles

mkdir -p "$HIL_STATE/chips"

info() { echo "HIL INFO $*"; }

pass() {
    echo "HIL PASS $1"
    echo "PASS $1" >>"$HIL_RESULTS"
}

fail() {
    echo "HIL FAIL $1: $2"
    echo "FAIL $1" >>"$HIL_RESULTS"
    return 1
}

check() {
    if eval "$2"; then pass "$1"; else fail "$1" "${3:-not true: $2}"; fi
}

now_ms() {
    local up
    read -r up _ </proc/uptime                  # "123.45 ..." (centiseconds)
    echo $(( ${up%.*} * 1000 + 1${up#*.} * 10 - 1000 ))
}

now_us() {
    # busybox date has no %N; busybox adjtimex prints the kernel's struct timex, tv_usec too.
    adjtimex | awk '/time.tv_sec/ { s = $2 } /time.tv_usec/ { u = $2 }
        END { printf "%d%06d\n", s, u }'
}

sleep_ms() { usleep $(( $1 * 1000 )); }

wait_for() {
    local deadline
    deadline=$(( $(now_ms) + $1 * 1000 ))
    while ! eval "$2"; do
        [ "$(now_ms)" -lt "$deadline" ] || return 1
        usleep $(( POLL_MS * 1000 ))
    done
}

as_user() {
    # busybox setpriv cannot change uid (no --reuid) and busybox su takes options anywhere on
    # its command line, so the command goes in as one -c string, each argument single-quoted.
    local user=$1 cmd="exec" arg
    shift
    for arg in "$@"; do
        cmd="$cmd '$(printf '%s' "$arg" | sed "s/'/'\\\\''/g")'"
    done
    su -s /bin/sh "$user" -c "$cmd"
}

chip_use() {
    [ -f "$HIL_STATE/chips/$1" ] || { echo "chip_use: no chip $1" >&2; return 1; }
    read -r CHIP_DEV CHIP_SYSFS CHIP_NAME <"$HIL_STATE/chips/$1"
}

chip_create() {
    local name=$1 label=$2 num=$3 names=$4
    local dir=$HIL_CONFIGFS/$1 bank=$HIL_CONFIGFS/$1/gpio-bank0 k=0 line dev
    mkdir "$dir" "$bank" || return 1
    echo "$num" >"$bank/num_lines" || return 1
    echo "$label" >"$bank/label" || return 1
    for line in $names; do
        mkdir "$bank/line$k" && echo "$line" >"$bank/line$k/name" || return 1
        k=$((k + 1))
    done
    echo 1 >"$dir/live" || return 1
    # Ask the kernel which device and chip it made: gpio-sim.X and gpiochipN are not ours to pick.
    dev=$(cat "$dir/dev_name")
    CHIP_NAME=$(cat "$bank/chip_name")
    CHIP_DEV=/dev/$CHIP_NAME
    CHIP_SYSFS=/sys/devices/platform/$dev/$CHIP_NAME
    if [ ! -c "$CHIP_DEV" ] || [ ! -d "$CHIP_SYSFS/sim_gpio0" ]; then
        echo "chip_create: $CHIP_DEV or $CHIP_SYSFS/sim_gpio0 missing" >&2
        return 1
    fi
    echo "$CHIP_DEV $CHIP_SYSFS $CHIP_NAME" >"$HIL_STATE/chips/$name"
    echo "$CHIP_DEV $CHIP_SYSFS"
}

chip_destroy() {
    local dir=$HIL_CONFIGFS/$1 l
    echo 0 >"$dir/live" || return 1
    for l in "$dir"/gpio-bank0/line*; do
        [ -d "$l" ] && rmdir "$l"
    done
    rmdir "$dir/gpio-bank0" "$dir" || return 1
    rm -f "$HIL_STATE/chips/$1"
}

drive() {
    local pull
    case $2 in
        high|1) pull="pull-up" ;;
        low|0) pull="pull-down" ;;
        *) echo "drive: $2 is not high or low" >&2; return 2 ;;
    esac
    echo "$pull" >"$CHIP_SYSFS/sim_gpio$1/pull"
}

output() { cat "$CHIP_SYSFS/sim_gpio$1/value"; }

press() { drive "$1" low; sleep_ms "$2"; drive "$1" high; }

wait_output() { wait_for "$3" "[ \"\$(output $1)\" = $2 ]"; }

transition_t() {
    local file=$1 row="\"from\":\"$2\",\"event\":\"$3\",\"to\":\"$4\"" n=${5:-1} t deadline
    deadline=$(( $(now_ms) + ${6:-$RECORD_LAG_S} * 1000 ))
    while :; do
        t=$(grep '"type":"transition"' "$file" | grep -F "$row" | sed -n "${n}s/.*\"t\":\([0-9.]*\).*/\1/p")
        [ -z "$t" ] && [ "$(now_ms)" -lt "$deadline" ] || break
        usleep $(( POLL_MS * 1000 ))
    done
    echo "$t"
}

outputs_at() {
    grep '"type":"output"' "$1" | grep -F "\"t\":$2," |
        sed 's/.*"line":"\([^"]*\)","value":\([01]\).*/\1=\2/' | tr '\n' ' '
}

within() {
    [ -n "$1" ] && [ -n "$2" ] &&
        awk -v a="$1" -v b="$2" -v min="$3" -v slack="$4" -v e=$RECORD_EPSILON_S \
            'BEGIN { exit !(b - a >= min - e && b - a <= min + slack + e) }'
}
