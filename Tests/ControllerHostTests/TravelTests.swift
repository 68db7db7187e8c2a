import ControllerFSM
import ControllerHost
import Testing

/// A part moved between two limit switches (a barrier's arm) in virtual time: travel, limit
/// switches, both motors, a jam.
@Suite("Travel between limits: the simulated part")
struct TravelTests {
    static func at(_ seconds: Double) -> MachineInstant { MachineInstant(nanoseconds: Int64(seconds * 1e9)) }

    @Test("it starts at rest, its rest switch active, unless told it starts at its end")
    func start() {
        let down = Travel(travelTime: .seconds(3))
        #expect(down.isAtRest && !down.isAtEnd && down.nextArrival == nil)
        let up = Travel(travelTime: .seconds(3), startsAtEnd: true)
        #expect(up.isAtEnd && !up.isAtRest)
    }

    @Test("the motor towards the end alone moves it there in the travel time: the rest switch opens at once, the end's closes at the end")
    func rises() {
        var plant = Travel(travelTime: .seconds(3))
        plant.drive(towardsEnd: true, towardsRest: false, at: Self.at(1))
        #expect(!plant.isAtRest && !plant.isAtEnd)
        #expect(plant.nextArrival == Self.at(4))
        plant.advance(to: Self.at(4) - .nanoseconds(1))
        #expect(!plant.isAtEnd)
        plant.advance(to: Self.at(4))
        #expect(plant.isAtEnd && !plant.isAtRest && plant.nextArrival == nil)
        plant.advance(to: Self.at(100))
        #expect(plant.isAtEnd && plant.position == plant.travel, "it stays at the top with the motor still on")
    }

    @Test("the motor towards the rest alone brings it back from wherever it is")
    func reversesMidway() {
        var plant = Travel(travelTime: .seconds(3))
        plant.drive(towardsEnd: true, towardsRest: false, at: .zero)
        plant.drive(towardsEnd: false, towardsRest: true, at: Self.at(1))
        #expect(plant.nextArrival == Self.at(2), "one second up, one second back")
        plant.advance(to: Self.at(2))
        #expect(plant.isAtRest && plant.position == 0)
    }

    @Test("leaving the end opens the end's switch at once")
    func leavesTop() {
        var plant = Travel(travelTime: .seconds(3), startsAtEnd: true)
        plant.drive(towardsEnd: false, towardsRest: true, at: Self.at(5))
        #expect(!plant.isAtEnd && plant.nextArrival == Self.at(8))
    }

    @Test("with both motors on, or neither, it stays where it is")
    func bothOrNeither() {
        for (up, down) in [(true, true), (false, false)] {
            var plant = Travel(travelTime: .seconds(3))
            plant.drive(towardsEnd: true, towardsRest: false, at: .zero)
            plant.drive(towardsEnd: up, towardsRest: down, at: Self.at(1.5))
            plant.advance(to: Self.at(10))
            #expect(plant.position == plant.travel / 2 && plant.nextArrival == nil && !plant.isAtEnd && !plant.isAtRest)
        }
    }

    @Test("stuck, it does not move whatever the motors do; freed, it moves on from where it stopped")
    func stuck() {
        var plant = Travel(travelTime: .seconds(4))
        plant.drive(towardsEnd: true, towardsRest: false, at: .zero)
        plant.setStuck(true, at: Self.at(1))
        plant.advance(to: Self.at(30))
        #expect(plant.nextArrival == nil && !plant.isAtEnd)
        plant.setStuck(false, at: Self.at(30))
        #expect(plant.nextArrival == Self.at(33))
        // Stuck at rest, the switch stays closed under the motor towards the end.
        var resting = Travel(travelTime: .seconds(3))
        resting.setStuck(true, at: .zero)
        resting.drive(towardsEnd: true, towardsRest: false, at: .zero)
        #expect(resting.isAtRest)
    }

    @Test("a travel time of its own is kept to the nanosecond")
    func travelTime() {
        var plant = Travel(travelTime: .milliseconds(2_500))
        plant.drive(towardsEnd: true, towardsRest: false, at: Self.at(0.25))
        #expect(plant.nextArrival == Self.at(2.75))
    }
}
