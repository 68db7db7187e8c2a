#!/usr/bin/env bash
# Boot Debian's kernel with an HIL initramfs under qemu (TCG, one vCPU), show the serial
# console and keep it in LOG, and judge the run from it. HIL_ARCH (common.sh) picks the machine:
# amd64 boots the host's Debian 12 kernel under qemu-system-x86_64 (console ttyS0); arm64 boots
# trixie's arm64 kernel (prepare.sh) under qemu-system-aarch64, machine virt, a Cortex-A72
# (console ttyAMA0, the virt board's PL011).
#
# Usage: scripts/hil/boot.sh INITRAMFS LOG [TIMEOUT_S] [--append "KERNEL ARGS"] [--interactive]
#   TIMEOUT_S       wall clock for the whole VM run, default 600; qemu is killed after it
#   --append ARGS   more kernel command line, e.g. hil.only=smoke
#   --interactive   keep the terminal on the serial console and stay in a shell after the
#                   suite (hil.shell=1); leave with `poweroff -f`
#
# Verdict: exit 0 only if the log has at least one "HIL PASS" line, no "HIL FAIL" line, and
# the "HIL DONE" line init prints after the suite. Prints "HIL: N passed, M failed".
set -euo pipefail
# shellcheck source=scripts/hil/common.sh
. "$(dirname "$0")/common.sh"

DEFAULT_TIMEOUT_S=600
KILL_GRACE_S=10                 # after the timeout's SIGTERM, SIGKILL this much later
# The initramfs unpacks into a tmpfs of half the memory: it holds four static daemons of about
# 75 MB each (turnstiled and barrierd, per libgpiod), over 300 MB in all.
QEMU_MEMORY=1G
KERNEL_ARGS="panic=-1 quiet"
# The arm64 CPU: cortex-a72 (a Raspberry Pi 4's core), not `max`, whose pointer authentication
# costs TCG much (a QARMA computation per signed return).
ARM64_CPU=cortex-a72

usage() { hil_usage "$0" "${1:-2}"; }

[ $# -ge 2 ] || usage
INITRAMFS=$1 LOG=$2; shift 2
TIMEOUT_S=$DEFAULT_TIMEOUT_S
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then TIMEOUT_S=$1; shift; fi
EXTRA_ARGS="" INTERACTIVE=0
while [ $# -gt 0 ]; do
    case $1 in
        --append) [ $# -ge 2 ] || usage; EXTRA_ARGS="$EXTRA_ARGS $2"; shift 2 ;;
        --interactive) INTERACTIVE=1; EXTRA_ARGS="$EXTRA_ARGS hil.shell=1"; shift ;;
        *) usage ;;
    esac
done

KVER=$(hil_kernel_version)
KERNEL=$(hil_kernel_image "$KVER")
[ -r "$KERNEL" ] || hil_die "$KERNEL not readable"
[ -f "$INITRAMFS" ] || hil_die "no initramfs $INITRAMFS"
mkdir -p "$(dirname "$LOG")"

case $HIL_ARCH in
    amd64) QEMU=(qemu-system-x86_64) KERNEL_ARGS="console=ttyS0 $KERNEL_ARGS" ;;
    arm64) QEMU=(qemu-system-aarch64 -machine virt -cpu "$ARM64_CPU") KERNEL_ARGS="console=ttyAMA0 $KERNEL_ARGS" ;;
esac
QEMU+=(-accel tcg -smp 1 -m "$QEMU_MEMORY" -nographic -no-reboot -nic none
       -kernel "$KERNEL" -initrd "$INITRAMFS" -append "$KERNEL_ARGS$EXTRA_ARGS")

hil_log "booting $KERNEL (timeout ${TIMEOUT_S}s), console log $LOG"
t0=$(now_s)
set +e
if [ "$INTERACTIVE" -eq 1 ]; then
    "${QEMU[@]}" 2>&1 | tee "$LOG"
    rc=${PIPESTATUS[0]}
else
    # stdin from /dev/null: qemu must not take over (or wait on) a terminal. --foreground
    # keeps qemu in our process group, so ^C reaches it. The serial console's CRs and the
    # firmware's terminal escapes are dropped so LOG greps cleanly; sed -u keeps it live.
    timeout --foreground -k "$KILL_GRACE_S" "$TIMEOUT_S" "${QEMU[@]}" </dev/null 2>&1 \
        | sed -u 's/\r$//; s/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc/\n/g' | tee "$LOG"
    rc=${PIPESTATUS[0]}
fi
set -e
elapsed=$(awk -v a="$t0" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }')

passed=$(grep -ac '^HIL PASS ' "$LOG" || true)
failed=$(grep -ac '^HIL FAIL ' "$LOG" || true)
problems=()
case $rc in
    0) ;;
    124|137) problems+=("timed out after ${TIMEOUT_S}s (qemu killed)") ;;
    *) problems+=("qemu exited with status $rc") ;;
esac
grep -aq '^HIL DONE' "$LOG" || problems+=("no HIL DONE line: the suite did not finish")
[ "$passed" -gt 0 ] || problems+=("no HIL PASS line")

echo
echo "HIL: $passed passed, $failed failed (VM ${elapsed}s)"
grep -a '^HIL FAIL ' "$LOG" || true
if [ ${#problems[@]} -gt 0 ]; then printf 'HIL: %s\n' "${problems[@]}"; fi
[ "$failed" -eq 0 ] && [ ${#problems[@]} -eq 0 ]
