extension Scenario {
    /// The scenario `turnstiled simulate` plays without `--script`: every state, every input,
    /// and the checks that say it went right. Inputs are taken about 13 ms after their pulse
    /// starts (3 ms of contact bounce, then 10 ms of debounce), so checks keep clear of that.
    public static let demoText = """
        # The built-in demo: every state and every input, checked as it goes.
        0.0    coin                         # locked -> unlocked, credit 1
        0.5    coin                         # credit 2; the relock timer restarts
        1.0    push                         # a passage, credit 1
        1.5    push                         # the last credit: locked again
        1.9    expect state locked
        1.9    expect counter passages 2
        2.0    push                         # a forced push: the alarm sounds for 0.5 s
        2.2    expect output alarm 1
        2.7    expect output alarm 0
        3.0    coin                         # unlocked, and nobody passes...
        8.5    expect state locked          # ...so the relock timeout expired the credit
        8.5    expect counter expiredCredits 1
        9.0    fault                        # the mechanism reports a failure: broken, alarm on
        9.2    expect output alarm 1
        9.5    coin                         # taken while broken: counted out of service
        10.0   repair                       # a service pulse: out of order for 5 s
        14.9   expect state outOfOrder
        15.2   expect state locked
        16.0   coin                         # unlocked with credit 1
        16.5   emergency on                 # fire alarm: arm released, the credit expires
        16.7   expect output lock 0
        17.0   push                         # a free passage
        17.5   emergency off                # back to locked
        18.0   push hold 31                 # the arm held: after 30 s it is a jam, a fault
        49.0   expect state broken
        50.0   repair
        55.5   expect state locked
        55.5   expect counter coins 5
        55.5   expect counter coinsOutOfService 1
        55.5   expect counter freePassages 1
        56     end
        """

    /// The demo, parsed against `vocabulary`.
    public static func demo(vocabulary: ScenarioVocabulary) -> Scenario {
        do {
            return try parse(demoText, file: "<demo>", vocabulary: vocabulary)
        } catch {
            fatalError("the built-in demo scenario does not parse: \(error)")
        }
    }
}
