import ControllerFSM
import ControllerFSMSim
import GPIOPortContract
import Testing

/// The simulated chip held to the GPIO port's contract: the same checks the VM runs against the
/// kernel's gpio-sim chip through libgpiod (`scripts/hil/`).
@Suite struct PortContractTests {
    @Test(arguments: PortContract.checks(for: SimContractBench.self).map(\.name))
    func simChipKeepsThePortContract(_ name: String) throws {
        let check = try #require(PortContract.checks(for: SimContractBench.self).first { $0.name == name })
        try check.run(SimContractBench())
    }
}

/// A fresh simulated chip laid out as the contract wants, in virtual time.
struct SimContractBench: ContractBench {
    let clock = ManualClock()
    let chip: SimChip

    init() {
        chip = SimChip(
            name: "simchip0", label: "port-contract",
            lines: (0..<PortContract.lineCount).map { SimLine("LINE\($0)") }, clock: clock)
    }

    func setWire(_ offset: GPIOLineOffset, high: Bool) {
        chip.scheduleLevel(line: offset, at: clock.now(), active: high)
        chip.advance(to: clock.now())
    }

    func wire(_ offset: GPIOLineOffset) -> Bool { chip.isHigh(offset) }

    func pass(_ duration: Duration) { chip.advance(to: clock.now() + duration) }
}
