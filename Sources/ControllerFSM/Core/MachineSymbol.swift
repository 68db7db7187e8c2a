/// A state or an event of a machine: one of the user's own enums.
///
/// Declare it with `Int` raw values in declaration order (the default for `enum X: Int`), so the
/// runtime can index its transition table by `rawValue` in O(1):
///
/// ```swift
/// enum Door: Int, MachineSymbol { case open, closed }
/// ```
///
/// `name` is what traces, diagrams and error messages show. On Linux it defaults to the case name;
/// Embedded Swift has no reflection, so there the enum provides it.
public protocol MachineSymbol: CaseIterable, Equatable, Sendable, RawRepresentable where RawValue == Int {
    var name: String { get }
}

extension MachineSymbol {
    /// The symbol's position in the table; `rawValue`, checked against `allCases` when the table
    /// is compiled.
    @inlinable
    var index: Int { rawValue }
}
