import ControllerCommandLine
import Turnstile

ControllerCommand<TurnstileApplication>.runCommandLine()
