/// Exhaustive exploration: every sequence of events up to a depth, run on the machine's real
/// transition code, with the user's invariants checked after every step.
///
/// A machine's state and context are values, so a configuration can be copied and each copy
/// sent a different event. Configurations are visited breadth-first and deduplicated by a key
/// the user gives (state, credit, which timers run — not counters that grow for ever), so a
/// violation is reported with the *shortest* event sequence that reaches it.
///
/// Outside `Core/`: it uses dictionaries and closures freely, and runs on a development machine,
/// not a microcontroller.
extension ObservedMachine {
    /// One step of an explored sequence: an event, or time passing to the next timer expiry.
    public enum ExplorationStep: CustomStringConvertible {
        case event(Event)
        /// Time moves to the earliest running timer's deadline, which expires.
        case timerExpiry

        public var description: String {
            switch self {
            case .event(let event): event.name
            case .timerExpiry: "(timer expires)"
            }
        }
    }

    /// What an exploration found.
    public struct ExplorationReport: CustomStringConvertible {
        /// Distinct configurations (by key) reached, the start included.
        public var configurations = 0
        /// Steps run (each on a copy of a configuration).
        public var stepsRun = 0
        /// How deep the search went: `depth`, or less when no new configuration remained.
        public var depthReached = 0
        /// The first invariant violation, on the shortest sequence found: the steps from the
        /// start and the invariant's message.
        public var violation: (steps: [ExplorationStep], message: String)?
        /// Whether the search ran out of new configurations before its depth: every one the
        /// steps reach was checked. `false` when the last level still found new ones (a part of
        /// the key that only grows): a passing search then says only that nothing broke within
        /// the depth, and a test relying on a whole search requires saturation.
        public var isSaturated = false
        /// When not saturated: how many new configurations the last level found.
        public var newAtLastLevel = 0

        public var description: String {
            var text = "\(configurations) configurations, \(stepsRun) steps, depth \(depthReached)"
            if violation == nil && !isSaturated {
                text += "; not saturated: \(newAtLastLevel) new configurations at depth \(depthReached)"
            }
            if let violation {
                text += "; violated after " + violation.steps.map(\.description).joined(separator: ", ")
                    + ": \(violation.message)"
            }
            return text
        }
    }

    /// Explores every sequence of up to `depth` steps from this (started) machine.
    ///
    /// - Parameters:
    ///   - depth: the longest sequence of steps tried.
    ///   - events: the events to try at each step (all of them, for a whole exploration).
    ///   - timerExpiries: also try letting time run to the next timer expiry at each step.
    ///   - key: what makes two configurations the same for the search; leave out what only
    ///     accumulates (counters), and check that with `invariant`.
    ///   - invariant: returns a message when a configuration is wrong, `nil` when it holds;
    ///     checked on the start and after every step.
    /// - Note: events are sent at the machine's current time; only timer steps move time. The
    ///   machine's trace, if it has one, records the exploration's dispatches: explore a
    ///   machine built without one.
    public func explore<Key: Hashable>(
        depth: Int, events: [Event], timerExpiries: Bool = true,
        key: (Self) -> Key, invariant: (Self) -> String?
    ) -> ExplorationReport {
        precondition(isStarted, "explore() needs a started machine: call start(at:) first")
        precondition(depth >= 0, "depth must be 0 or more, got \(depth)")
        var report = ExplorationReport()
        if let message = invariant(self) {
            report.violation = ([], message)
            report.configurations = 1
            return report
        }
        let steps = events.map(ExplorationStep.event) + (timerExpiries ? [.timerExpiry] : [])
        // Each frontier entry keeps the path that reached it, so a violation names its sequence.
        var seen: Set<Key> = [key(self)]
        report.configurations = 1
        guard depth > 0 else { return report }
        var frontier: [(machine: Self, path: [ExplorationStep])] = [(self, [])]
        for level in 1...depth {
            var next: [(machine: Self, path: [ExplorationStep])] = []
            for (machine, path) in frontier {
                for step in steps {
                    var copy = machine
                    switch step {
                    case .event(let event):
                        copy.send(event, at: MachineInstant(nanoseconds: copy.effects.currentTime))
                    case .timerExpiry:
                        guard let deadline = copy.nextDeadline else { continue }
                        copy.advance(to: deadline)
                    }
                    report.stepsRun += 1
                    if let message = invariant(copy) {
                        report.violation = (path + [step], message)
                        report.configurations = seen.count
                        report.depthReached = level
                        return report
                    }
                    if seen.insert(key(copy)).inserted { next.append((copy, path + [step])) }
                }
            }
            report.depthReached = level
            if next.isEmpty {
                report.isSaturated = true
                break
            }
            report.newAtLastLevel = next.count
            frontier = next
        }
        report.configurations = seen.count
        return report
    }
}
