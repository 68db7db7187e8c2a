/// Seconds as a `Duration`, exact to the nanosecond for the decimals scenarios use.
package func seconds(_ value: Double) -> Duration { .nanoseconds(Int64((value * 1e9).rounded())) }
