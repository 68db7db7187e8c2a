// The runtime core (Sources/ControllerFSM/Core/) with the example machines of
// EmbeddedTurnstile.swift, as a Linux program in Embedded Swift: built for x86_64 and for
// aarch64 (scripts/check-arm64.sh), whose outputs must be the same byte for byte. It runs a
// fixed script through the nested gate (superstates, a guarded initial state, deep history) and
// a parallel machine (two regions, a row of the parallel state taken once, several targets),
// printing one line per step, then explores every configuration of the nested gate reachable in
// a few events and prints how many there are and a checksum of them in the order found.
import LibcShim

func put(_ text: String) {
    for byte in text.utf8 { _ = putchar(Int32(byte)) }
}

func number(_ value: Int) -> String {
    if value == 0 { return "0" }
    var digits: [UInt8] = []
    var rest = value < 0 ? -value : value
    while rest > 0 {
        digits.append(UInt8(48 + rest % 10))
        rest /= 10
    }
    return (value < 0 ? "-" : "") + String(decoding: digits.reversed(), as: UTF8.self)
}

func hex(_ value: UInt64) -> String {
    let symbols: [UInt8] = Array("0123456789abcdef".utf8)
    var digits: [UInt8] = []
    for shift in stride(from: 60, through: 0, by: -4) { digits.append(symbols[Int((value >> UInt64(shift)) & 0xF)]) }
    return String(decoding: digits, as: UTF8.self)
}

enum DoorState: Int, MachineSymbol {
    case doors, outer, outerShut, outerOpen, inner, innerShut, innerOpen, alarm
    var name: String {
        switch self {
        case .doors: "doors"
        case .outer: "outer"
        case .outerShut: "outerShut"
        case .outerOpen: "outerOpen"
        case .inner: "inner"
        case .innerShut: "innerShut"
        case .innerOpen: "innerOpen"
        case .alarm: "alarm"
        }
    }
}

enum DoorEvent: Int, MachineSymbol {
    case outerToggle, innerToggle, fire, reset
    var name: String {
        switch self {
        case .outerToggle: "outerToggle"
        case .innerToggle: "innerToggle"
        case .fire: "fire"
        case .reset: "reset"
        }
    }
}

func airlockDefinition() -> MachineDefinition<DoorState, DoorEvent, GateContext> {
    var definition = MachineDefinition<DoorState, DoorEvent, GateContext>(initial: .doors)
    definition.parallel(.doors) { s in s.on(.fire, to: .alarm) { c, _ in c.coins += 1 } }
    definition.state(.outer, in: .doors) { s in s.initial(.outerShut) }
    definition.state(.outerShut, in: .outer) { s in s.on(.outerToggle, to: .outerOpen) }
    definition.state(.outerOpen, in: .outer) { s in s.on(.outerToggle, to: .outerShut) }
    definition.state(.inner, in: .doors) { s in s.initial(.innerShut) }
    definition.state(.innerShut, in: .inner) { s in s.on(.innerToggle, to: .innerOpen) }
    definition.state(.innerOpen, in: .inner) { s in s.on(.innerToggle, to: .innerShut) }
    definition.state(.alarm) { s in s.on(.reset, to: [.outerOpen, .innerOpen]) }
    return definition
}

func line<State, Event>(_ step: Int, _ event: Event, _ outcome: DispatchOutcome, _ active: [State], _ context: GateContext)
where State: MachineSymbol, Event: MachineSymbol {
    let shown = outcome == .transitioned ? "transitioned" : outcome == .handledInternally ? "internal" : "ignored"
    var names = ""
    for (position, state) in active.enumerated() { names += (position > 0 ? "+" : "") + state.name }
    put("\(number(step)) \(event.name) \(shown) -> \(names) coins=\(number(context.coins)) credit=\(number(context.credit)) relay=\(context.relayReleased ? "1" : "0")\n")
}

/// What tells two configurations of the nested gate apart, packed in a word.
func key(_ machine: StateMachine<NestedState, NestedEvent, GateContext>) -> UInt64 {
    let remembered = machine.rememberedStates.first.flatMap { $0 }.map { UInt64($0.rawValue + 1) } ?? 0
    return UInt64(machine.state.rawValue) | remembered << 8 | UInt64(UInt8(truncatingIfNeeded: machine.context.credit)) << 16
        | UInt64(UInt8(truncatingIfNeeded: machine.context.coins)) << 24 | (machine.context.relayReleased ? 1 << 32 : 0)
}

@main
struct CoreOnLinux {
    static func main() {
        guard let nested = try? nestedDefinition().compile(), let airlock = try? airlockDefinition().compile() else {
            put("error: an example machine does not compile\n")
            exit(1)
        }
        put("nested gate\n")
        var gate = StateMachine(table: nested, context: GateContext(), queueCapacity: 4)
        gate.start()
        let script: [NestedEvent] = [.coin, .coin, .fire, .clear, .push, .freePass, .fire, .clear, .push, .coin, .push]
        for (step, event) in script.enumerated() {
            let outcome = gate.send(event, at: MachineInstant(nanoseconds: Int64(step + 1) * 1_000_000))
            line(step, event, outcome, gate.table.configuration(of: gate.state), gate.context)
        }
        put("airlock (parallel regions)\n")
        var doors = StateMachine(table: airlock, context: GateContext(), queueCapacity: 4)
        doors.start()
        let doorScript: [DoorEvent] = [.outerToggle, .innerToggle, .fire, .outerToggle, .reset, .innerToggle]
        for (step, event) in doorScript.enumerated() {
            let outcome = doors.send(event, at: MachineInstant(nanoseconds: Int64(step + 1) * 1_000_000))
            line(step, event, outcome, doors.activeStates, doors.context)
        }

        // Breadth first over every event, to a fixed depth; the order found is deterministic.
        var start = StateMachine(table: nested, context: GateContext(), queueCapacity: 4)
        start.start()
        var seen: [UInt64] = [key(start)]
        var frontier = [start]
        var checksum: UInt64 = 0xcbf2_9ce4_8422_2325
        for _ in 0..<6 {
            var next: [StateMachine<NestedState, NestedEvent, GateContext>] = []
            for machine in frontier {
                for event in NestedEvent.allCases {
                    var copy = machine
                    copy.send(event, at: MachineInstant(nanoseconds: 1))
                    let found = key(copy)
                    if !seen.contains(found) {
                        seen.append(found)
                        next.append(copy)
                        checksum = (checksum ^ found) &* 0x100_0000_01b3
                    }
                }
            }
            frontier = next
        }
        put("explored \(number(seen.count)) configurations, checksum \(hex(checksum))\n")
    }
}
