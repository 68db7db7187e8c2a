# Sourced by the scripts that drive a product's checks through `controller-checks` (the
# ControllerChecks target): sets $controller_checks to the binary, taken from $CONTROLLER_CHECKS,
# else beside the daemon checked (the release build CI ships builds it there), else the debug
# build; exits 2 saying how to build it when none is there.
#
# It is a tool of the machine the checks run on, whatever the daemon's processor: beside an
# aarch64 daemon on an x86_64 machine stands the aarch64 controller-checks, which qemu-user would
# run 10-50 times slower (summing a binary's symbols took it 3 minutes); this machine's own
# release or debug build is taken instead.
#     find_controller_checks DAEMON
find_controller_checks() {
    local candidate
    controller_checks=${CONTROLLER_CHECKS:-}
    if [ -z "$controller_checks" ]; then
        for candidate in "$(dirname "$1")/controller-checks" ".build/$(uname -m)-unknown-linux-gnu/release/controller-checks" .build/debug/controller-checks; do
            [ -x "$candidate" ] || continue
            # readelf's Machine line: this machine's own programs only.
            case "$(uname -m):$(readelf -h "$candidate" 2>/dev/null | sed -n 's/^ *Machine: *//p')" in
                x86_64:*X86-64* | aarch64:*AArch64*) controller_checks=$candidate; break ;;
                x86_64:* | aarch64:*) ;;
                *) controller_checks=$candidate; break ;;
            esac
        done
    fi
    if [ -z "$controller_checks" ] || [ ! -x "$controller_checks" ]; then
        echo "error: controller-checks is not built for this machine: \`swift build --product controller-checks\` (or set CONTROLLER_CHECKS)" >&2
        exit 2
    fi
}
