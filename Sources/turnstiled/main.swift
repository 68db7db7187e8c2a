import ControllerCommandLine
import Turnstile

await ControllerCommand<TurnstileApplication>.runCommandLine()
