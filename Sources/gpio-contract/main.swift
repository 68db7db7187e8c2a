// The GPIO port contract against a real chip, through libgpiod: run by the hardware-in-the-loop
// harness inside the VM on a gpio-sim chip laid out as PortContract wants (LINE0 … LINE7).
//
//     gpio-contract [CHIP]     CHIP: a label, name or path (default: label "port-contract")
//
// Prints one `PASS name` or `FAIL name: reason` line per check; exits 1 if any failed.
import ControllerFSM
import ControllerFSMGpiod
import GPIOPortContract

#if canImport(Glibc)
import Glibc
#endif

let selector = GPIOChipSelector(parsing: CommandLine.arguments.dropFirst().first ?? "port-contract")
let bench: GpiodContractBench
do {
    bench = try GpiodContractBench(chip: GpiodChip.open(selector))
} catch {
    print("FAIL open-chip: \(error)")
    exit(1)
}
var failures = 0
for check in PortContract.checks(for: GpiodContractBench.self) {
    do {
        try check.run(bench)
        print("PASS \(check.name)")
    } catch {
        failures += 1
        print("FAIL \(check.name): \(error)")
    }
}
exit(failures == 0 ? 0 : 1)
