import ControllerFSM
import ParkingBarrier
import Testing

/// The simulated arm in virtual time: travel, limit switches, both motors, a jam.
@Suite("Parking barrier: the simulated arm")
struct BarrierPlantTests {
    static func at(_ seconds: Double) -> MachineInstant { MachineInstant(nanoseconds: Int64(seconds * 1e9)) }

    @Test("it starts down, at rest on down_limit, unless told it starts up")
    func start() {
        let down = BarrierPlant()
        #expect(down.downLimit && !down.upLimit && down.nextArrival == nil)
        let up = BarrierPlant(startsUp: true)
        #expect(up.upLimit && !up.downLimit)
    }

    @Test("motor_up alone lifts it in travel_time: down_limit opens at once, up_limit closes at the top")
    func rises() {
        var plant = BarrierPlant()
        plant.drive(motorUp: true, motorDown: false, at: Self.at(1))
        #expect(!plant.downLimit && !plant.upLimit)
        #expect(plant.nextArrival == Self.at(4))
        plant.advance(to: Self.at(4) - .nanoseconds(1))
        #expect(!plant.upLimit)
        plant.advance(to: Self.at(4))
        #expect(plant.upLimit && !plant.downLimit && plant.nextArrival == nil)
        plant.advance(to: Self.at(100))
        #expect(plant.upLimit && plant.position == plant.travel, "it stays at the top with the motor still on")
    }

    @Test("motor_down alone lowers it from wherever it is")
    func reversesMidway() {
        var plant = BarrierPlant()
        plant.drive(motorUp: true, motorDown: false, at: .zero)
        plant.drive(motorUp: false, motorDown: true, at: Self.at(1))
        #expect(plant.nextArrival == Self.at(2), "one second up, one second back")
        plant.advance(to: Self.at(2))
        #expect(plant.downLimit && plant.position == 0)
    }

    @Test("leaving the top opens up_limit at once")
    func leavesTop() {
        var plant = BarrierPlant(startsUp: true)
        plant.drive(motorUp: false, motorDown: true, at: Self.at(5))
        #expect(!plant.upLimit && plant.nextArrival == Self.at(8))
    }

    @Test("with both motors on, or neither, it stays where it is")
    func bothOrNeither() {
        for (up, down) in [(true, true), (false, false)] {
            var plant = BarrierPlant()
            plant.drive(motorUp: true, motorDown: false, at: .zero)
            plant.drive(motorUp: up, motorDown: down, at: Self.at(1.5))
            plant.advance(to: Self.at(10))
            #expect(plant.position == plant.travel / 2 && plant.nextArrival == nil && !plant.upLimit && !plant.downLimit)
        }
    }

    @Test("stuck, it does not move whatever the motors do; freed, it moves on from where it stopped")
    func stuck() {
        var plant = BarrierPlant(travelTime: .seconds(4))
        plant.drive(motorUp: true, motorDown: false, at: .zero)
        plant.setStuck(true, at: Self.at(1))
        plant.advance(to: Self.at(30))
        #expect(plant.nextArrival == nil && !plant.upLimit)
        plant.setStuck(false, at: Self.at(30))
        #expect(plant.nextArrival == Self.at(33))
        // Stuck at rest, the switch stays closed under motor_up.
        var resting = BarrierPlant()
        resting.setStuck(true, at: .zero)
        resting.drive(motorUp: true, motorDown: false, at: .zero)
        #expect(resting.downLimit)
    }

    @Test("a travel time of its own is kept to the nanosecond")
    func travelTime() {
        var plant = BarrierPlant(travelTime: .milliseconds(2_500))
        plant.drive(motorUp: true, motorDown: false, at: Self.at(0.25))
        #expect(plant.nextArrival == Self.at(2.75))
    }
}
