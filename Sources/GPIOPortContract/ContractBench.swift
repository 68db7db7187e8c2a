import ControllerFSM

/// A GPIO chip on a test bench: the chip under test, and the world around its lines.
///
/// The port contract runs against two benches: the simulated chip in virtual time, and the
/// kernel's `gpio-sim` chip (through libgpiod) in real time inside the hardware-in-the-loop VM.
/// The bench's chip has at least ``PortContract/lineCount`` lines, line `k` named `LINEk`, and
/// every input line's outside device is wired active-high (the wire is high when it is active).
public protocol ContractBench: SendableMetatype {
    associatedtype Chip: GPIOChip

    var chip: Chip { get }

    /// Sets the wire level of an input line, as the device on it would (gpio-sim: its `pull`).
    func setWire(_ offset: GPIOLineOffset, high: Bool)

    /// The wire level the chip drives on an output line (gpio-sim: its `value`).
    func wire(_ offset: GPIOLineOffset) -> Bool

    /// Lets `duration` pass (virtual time, or real time on the kernel's chip); edges that
    /// happen meanwhile reach the chip's requests.
    func pass(_ duration: Duration)
}

/// A contract check that did not hold.
public struct ContractFailure: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
