#!/usr/bin/env bash
# Prints the folder of the Swift package that declares a controller's daemon as an executable
# product: this package (.) for turnstiled, Examples/ParkingBarrier for barrierd, any package
# under Examples/ for the next one; for a chart controller (chartd on a chart), its folder under
# Examples/Charts (Examples/Charts/door for doord). scripts/package-deb.sh and scripts/test-deb.sh
# find a product's boards, README and packaging/product.conf there.
#     scripts/product-package.sh barrierd        # Examples/ParkingBarrier
# Exits 1, saying so, when no package declares it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: $0 PRODUCT" >&2; exit 64; }
for manifest in Package.swift Examples/*/Package.swift; do
    if grep -Eq "\.executable\(name: *\"$1\"" "$manifest"; then
        dirname "$manifest"
        exit 0
    fi
done
# A chart controller (Examples/Charts/NAME): chartd on a chart, its packaging/product.conf naming it.
for conf in Examples/Charts/*/packaging/product.conf; do
    [ -f "$conf" ] || continue
    # shellcheck disable=SC1090 # a chart's own description: bash assignments
    if [ "$(. "$conf" && echo "$PRODUCT")" = "$1" ]; then
        dirname "$(dirname "$conf")"
        exit 0
    fi
done
echo "$0: no Package.swift here or under Examples/ declares .executable(name: \"$1\"), and no Examples/Charts/*/packaging/product.conf says PRODUCT=$1" >&2
exit 1
