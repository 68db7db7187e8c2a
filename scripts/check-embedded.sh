#!/usr/bin/env bash
# Compiles the runtime core (Sources/ControllerFSM/Core/, alone) with a concrete example machine
# in Embedded Swift mode, for a Cortex-M0 and a 32-bit RISC-V microcontroller. This keeps the core
# free of existentials, untyped throws, reflection and Foundation.
set -euo pipefail
cd "$(dirname "$0")/.."
swiftc=${SWIFTC:-swiftc}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for target in armv6m-none-none-eabi riscv32-none-none-eabi; do
    "$swiftc" -enable-experimental-feature Embedded -wmo -parse-as-library -Osize \
        -target "$target" -module-name EmbeddedCheck \
        Sources/ControllerFSM/Core/*.swift Examples/Embedded/EmbeddedTurnstile.swift \
        -c -o "$out/core-$target.o"
    echo "embedded check: Core/ + example machine build for $target ($(wc -c < "$out/core-$target.o") bytes of object code)"
done
