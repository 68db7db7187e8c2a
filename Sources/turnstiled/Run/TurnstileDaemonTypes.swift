import ControllerDaemon
import Turnstile

// The runtime's daemon types for the turnstile, by the names this command used before they
// were generic over the application.

typealias DaemonCommand = ControllerDaemon.DaemonCommand<TurnstileApplication>
typealias CommandInbox = DaemonInbox<TurnstileApplication>
typealias DaemonParts = ControllerDaemon.DaemonParts<TurnstileApplication>
typealias ControlRequest = ControllerDaemon.ControlRequest<TurnstileApplication>
typealias ControlRequestLine = ControllerDaemon.ControlRequestLine<TurnstileApplication>
typealias ControlClient = ControllerDaemon.ControlClient<TurnstileApplication>
typealias FlightRecorder = ControllerDaemon.FlightRecorder<TurnstileApplication>
