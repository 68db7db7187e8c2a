import ControllerCommandLine
import ParkingBarrier

ControllerCommand<ParkingBarrier>.runCommandLine()
