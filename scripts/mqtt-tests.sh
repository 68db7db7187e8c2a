#!/usr/bin/env bash
# Builds and runs the MQTT client's tests (Tests/ControllerMQTTTests) alone: `swift test` in this
# package would build every test target. A throwaway package (default /tmp/mqtt-harness) holds
# symbolic links to the few targets they need (CLinux, ControllerFSM, CMosquitto, ControllerMQTT,
# the broker fixture, the tests) and to scripts/, so it builds exactly what the package builds for them, with no
# other dependency to resolve. Everything runs under `nice -n 19`.
#
# usage: scripts/mqtt-tests.sh [HARNESS_DIR] [-- SWIFT_TEST_ARGUMENTS...]
#   e.g. scripts/mqtt-tests.sh -- --filter BrokerTests
# The broker's tests need mosquitto, openssl and libmosquitto1 (apt-get install -y mosquitto
# libmosquitto1 openssl); without them they are skipped, unless CONTROLLER_MQTT_REQUIRE_BROKER=1.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
harness=/tmp/mqtt-harness
if [ $# -gt 0 ] && [ "$1" != "--" ]; then harness=$1; shift; fi
[ "${1:-}" = "--" ] && shift

mkdir -p "$harness/Sources" "$harness/Tests"
for target in CLinux ControllerFSM CMosquitto ControllerMQTT; do
    ln -sfn "$root/Sources/$target" "$harness/Sources/$target"
done
ln -sfn "$root/Tests/ControllerMQTTTests" "$harness/Tests/ControllerMQTTTests"
ln -sfn "$root/Tests/MQTTBrokerFixture" "$harness/Tests/MQTTBrokerFixture"
ln -sfn "$root/scripts" "$harness/scripts"
cat >"$harness/Package.swift" <<'MANIFEST'
// swift-tools-version:6.1
// Written by scripts/mqtt-tests.sh: the MQTT client's targets as the package declares them.
import PackageDescription

let package = Package(
    name: "MQTTHarness",
    targets: [
        .target(name: "CLinux"),
        .target(name: "ControllerFSM", dependencies: ["CLinux"]),
        .target(name: "CMosquitto", linkerSettings: [.linkedLibrary("dl")]),
        .target(name: "ControllerMQTT", dependencies: ["ControllerFSM", "CMosquitto"]),
        .target(name: "MQTTBrokerFixture", dependencies: ["ControllerMQTT"], path: "Tests/MQTTBrokerFixture"),
        .testTarget(name: "ControllerMQTTTests", dependencies: ["ControllerMQTT", "MQTTBrokerFixture"]),
    ],
    swiftLanguageModes: [.v6]
)
MANIFEST

cd "$harness"
nice -n 19 swift build --build-tests
nice -n 19 swift test --skip-build "$@"
