#!/bin/sh
# The GPIO port contract (Sources/GPIOPortContract) against libgpiod on the kernel's gpio-sim
# chip, for each libgpiod generation: the same checks the test suite runs against SimChip.
. /hil/guest/lib.sh
. /hil/guest/turnstiled.sh

for gen in $GENERATIONS; do
    chip_create contract port-contract 8 "LINE0 LINE1 LINE2 LINE3 LINE4 LINE5 LINE6 LINE7" >/dev/null ||
        { fail "$gen/contract" "cannot create the chip"; continue; }
    /hil/bin/$gen/gpio-contract port-contract >/tmp/contract.out 2>&1
    while read -r verdict name rest; do
        case $verdict in
            PASS) pass "$gen/contract/$name" ;;
            FAIL) fail "$gen/contract/${name%:}" "$rest" ;;
            *) info "$verdict $name $rest" ;;
        esac
    done </tmp/contract.out
    grep -q . /tmp/contract.out || fail "$gen/contract" "gpio-contract printed nothing"
    chip_destroy contract
done
