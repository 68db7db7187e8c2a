# shellcheck shell=bash
# A script's steps, each one's time noted, all printed when the script ends (however it ends),
# with a work folder removed then. Sourced by the arm64 lane's scripts (scripts/arm64/check.sh,
# scripts/arm64/tests.sh); scripts/test.sh, whose lanes gather other scripts' times, has its own.
#
#   STEP_PREFIX="arm64: " STEP_TITLE="arm64 lane" . scripts/lib/step-times.sh
#   step "what comes next"      ends the step in progress (its time noted), says and starts the next
#   step ""                     ends it and starts none
# It sets `work` (a fresh folder) and the EXIT trap that prints "--- TITLE, time per step" with
# each step's seconds, and removes the folder.
STEP_TIMES=()
step_name=""
step_started=$SECONDS
step() {
    [ -z "$step_name" ] || STEP_TIMES+=("$(printf '%5ds  %s%s' $((SECONDS - step_started)) "$STEP_PREFIX" "$step_name")")
    step_name=$1
    step_started=$SECONDS
    [ -z "$1" ] || echo "==> $STEP_PREFIX$1"
}
work=$(mktemp -d)
step_times_finish() {
    local status=$?
    step ""
    echo "--- $STEP_TITLE, time per step (total $((SECONDS / 60)) min $((SECONDS % 60)) s)"
    printf '%s\n' "${STEP_TIMES[@]}"
    rm -rf "$work"
    return $status
}
trap step_times_finish EXIT
