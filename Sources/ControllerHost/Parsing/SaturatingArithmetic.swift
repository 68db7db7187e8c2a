/// Arithmetic on numbers that came from outside the process (a broker's retained message, a
/// file, a socket, a stored row): held at the type's bounds instead of trapping. A number a
/// buggy or hostile peer sends can make a sum wrong, never kill the program that shows it;
/// where a wrong sum would mislead, the caller refuses the value by name instead.
extension FixedWidthInteger {
    /// `self + other`, held at `min`/`max` instead of overflowing.
    package func saturatingAdding(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other > 0 ? .max : .min
    }

    /// `self - other`, held at `min`/`max` instead of overflowing.
    package func saturatingSubtracting(_ other: Self) -> Self {
        let (difference, overflow) = subtractingReportingOverflow(other)
        guard overflow else { return difference }
        return other > 0 ? .min : .max
    }

    /// `self × other`, held at `min`/`max` instead of overflowing.
    package func saturatingMultiplied(by other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }
}

extension Sequence where Element: FixedWidthInteger {
    /// The sum, held at the element type's bounds instead of overflowing (or wrapping).
    package func saturatingSum() -> Element {
        reduce(0) { $0.saturatingAdding($1) }
    }
}
