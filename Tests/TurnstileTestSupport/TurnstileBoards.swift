/// The smallest board the loader accepts: the three required roles and nothing else.
package let minimalBoard = """
    [board]
    name = "bench"
    backend = "libgpiod"
    chip = "gpiochip0"

    [inputs.coin]
    line = 0
    [inputs.push]
    line = 1
    [outputs.lock]
    line = 2

    """

/// The board files the repository ships for the turnstile, in boards/.
package let shippedBoards = ["sim", "generic", "raspberry-pi-1-3", "raspberry-pi-4", "raspberry-pi-5", "hil-gpio-sim"]
