import ControllerHost

extension ParkingBarrier {
    /// The scenario `barrierd simulate` plays without `--script`: every state, on the simulated
    /// arm (its limit switches are the plant's, 3 s from rest to the top) with the default
    /// `[barrier]` timings, checked as it goes. 49 s of virtual time.
    public static func demoScenario(for _: Board<ParkingBarrier>) -> String {
        """
        # The built-in demo: every state of the parking barrier, the arm moved by the simulated plant.
        0       pulse request           # closed -> opening: motor_up lifts the arm
        1       expect state opening
        1       expect output motor_up 1
        3.5     expect state open       # up_limit reached: green
        3.5     expect output green 1
        5       set loop on             # a vehicle over the loop holds the barrier open
        7       set loop off            # ... and leaves: a passage; closing after close_delay
        8.5     expect state closing
        8.5     expect output motor_down 1
        9       set photocell on        # something in the beam: the arm goes back up
        9.5     set photocell off
        9.5     expect state opening
        9.5     expect output motor_down 0
        11      expect state open       # nobody drives through: the opening expires after hold_open
        31      expect state closing
        34      expect state closed
        35      event fault             # the mechanism reports a failure: the alarm sounds
        35.5    expect state fault
        35.5    expect output alarm 1
        36      pulse request           # refused while at fault
        37      set emergency on        # fire alarm: the arm lifts for evacuation
        38      expect state emergency
        38      expect output motor_up 1
        40.5    expect output motor_up 0
        41      set emergency off       # the alarm ends: still at fault
        41.5    expect state fault
        42      pulse service           # repaired: the arm is already up, so open
        42.5    expect state open
        43      set loop on
        44      set loop off
        45.5    expect state closing
        48.5    expect state closed
        48.5    expect output red 1
        48.5    expect counter requests 1
        48.5    expect counter refusedRequests 1
        48.5    expect counter passages 2
        48.5    expect counter expiredOpenings 1
        48.5    expect counter reversals 1
        48.5    expect counter faults 1
        48.5    expect counter repairs 1
        49      end

        """
    }
}
