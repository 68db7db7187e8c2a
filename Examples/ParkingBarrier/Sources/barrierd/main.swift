import ControllerCommandLine
import ParkingBarrier

await ControllerCommand<ParkingBarrier>.runCommandLine()
