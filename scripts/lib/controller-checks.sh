# Sourced by the scripts that drive a product's checks through `controller-checks` (the
# ControllerChecks target): sets $controller_checks to the binary, taken from $CONTROLLER_CHECKS,
# else beside the daemon checked (the release build CI ships builds it there), else the debug
# build; exits 2 saying how to build it when none is there.
#     find_controller_checks DAEMON
find_controller_checks() {
    controller_checks=${CONTROLLER_CHECKS:-$(dirname "$1")/controller-checks}
    [ -x "$controller_checks" ] || controller_checks=.build/debug/controller-checks
    if [ ! -x "$controller_checks" ]; then
        echo "error: controller-checks is not built: \`swift build --product controller-checks\` (or set CONTROLLER_CHECKS)" >&2
        exit 2
    fi
}
