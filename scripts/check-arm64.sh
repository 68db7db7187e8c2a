#!/usr/bin/env bash
# The runtime core on arm64. Compiles Sources/ControllerFSM/Core/ with the example machines
# (Examples/Embedded/: a nested gate with deep history, a parallel airlock) and a small Linux
# program around them (Examples/Embedded/Linux/CoreOnLinux.swift) in Embedded Swift twice: for
# x86_64 Linux, and for aarch64 Linux — the toolchain's aarch64-none-none-elf Embedded standard
# library, linked with its ld.lld against Debian's cross C library (libc6-dev-arm64-cross,
# libgcc-12-dev-arm64-cross) — then runs the aarch64 binary under qemu-aarch64-static and
# requires its output (a scripted run, line by line, and an exploration's count and checksum)
# to be the same bytes as the x86_64 binary's.
#
# What this shows and what it does not: the core's semantics on the ARM instruction set and a
# 64-bit ARM ABI, glibc 2.36 (Debian 12). The whole daemon is not built for arm64 here (no
# aarch64 Swift SDK); see docs/operations.md, "Architectures, exactly".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/lib/packages.sh
. scripts/lib/packages.sh
packages_ensure arm64

swiftc=${SWIFTC:-swiftc}
toolchain=$(dirname "$(command -v "$swiftc")")
embedded=$toolchain/../lib/swift/embedded
cross=/usr/aarch64-linux-gnu/lib
gcc_cross=/usr/lib/gcc-cross/aarch64-linux-gnu/12
for needed in "$toolchain/ld.lld" "$toolchain/clang" "$embedded/aarch64-none-none-elf/libswiftUnicodeDataTables.a" "$cross/crt1.o" "$gcc_cross/crtbegin.o"; do
    [ -e "$needed" ] || { echo "error: $needed is missing (the Swift toolchain's, or packages libc6-dev-arm64-cross and libgcc-12-dev-arm64-cross)" >&2; exit 1; }
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

sources=(Sources/ControllerFSM/Core/*.swift Examples/Embedded/EmbeddedTurnstile.swift Examples/Embedded/Linux/CoreOnLinux.swift)
flags=(-enable-experimental-feature Embedded -wmo -parse-as-library -Osize -module-name CoreOnLinux
       -I Examples/Embedded/Linux/LibcShim)

"$swiftc" "${flags[@]}" -target x86_64-unknown-linux-gnu "${sources[@]}" -c -o "$out/core-x86_64.o"
"$toolchain/clang" "$out/core-x86_64.o" "$embedded/x86_64-unknown-linux-gnu/libswiftUnicodeDataTables.a" -lm -o "$out/core-x86_64"

"$swiftc" "${flags[@]}" -target aarch64-none-none-elf "${sources[@]}" -c -o "$out/core-aarch64.o"
"$toolchain/ld.lld" -o "$out/core-aarch64" --dynamic-linker /lib/ld-linux-aarch64.so.1 \
    "$cross/crt1.o" "$cross/crti.o" "$gcc_cross/crtbegin.o" "$out/core-aarch64.o" \
    "$embedded/aarch64-none-none-elf/libswiftUnicodeDataTables.a" \
    -L"$cross" -L"$gcc_cross" -lc -lm -lgcc "$gcc_cross/crtend.o" "$cross/crtn.o"

"$out/core-x86_64" >"$out/x86_64.txt"
qemu-aarch64-static -L /usr/aarch64-linux-gnu "$out/core-aarch64" >"$out/aarch64.txt"
if ! cmp -s "$out/x86_64.txt" "$out/aarch64.txt"; then
    echo "error: the aarch64 build's output differs from the x86_64 build's:" >&2
    diff "$out/x86_64.txt" "$out/aarch64.txt" >&2 || true
    exit 1
fi
[ -s "$out/x86_64.txt" ] || { echo "error: the program printed nothing" >&2; exit 1; }
tail -n 1 "$out/aarch64.txt"
strip -o "$out/core-aarch64.stripped" "$out/core-aarch64" 2>/dev/null || cp "$out/core-aarch64" "$out/core-aarch64.stripped"
echo "arm64 check: $(wc -l <"$out/aarch64.txt") lines the same on aarch64 (qemu) and x86_64; the aarch64 binary $(wc -c <"$out/core-aarch64") bytes ($(file -b "$out/core-aarch64" | cut -d, -f1-2))"
