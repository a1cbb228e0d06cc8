import Foundation
import HostOS

/// How much other work competes for the cores: the threads ready to run,
/// averaged over the last minute, as `uptime` prints it (`getloadavg`).
public enum LoadAverage {
    public static func lastMinute() -> Double? {
        HostMachine.loadAverageLastMinute()
    }
}
