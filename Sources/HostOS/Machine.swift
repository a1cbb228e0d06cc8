import Glibc

/// The machine the harness runs on, as a whole.
public enum HostMachine {
    /// The threads ready to run, averaged over the last minute, as `uptime` prints it (`getloadavg`); nil if unknown.
    public static func loadAverageLastMinute() -> Double? {
        var loads = [0.0]
        return getloadavg(&loads, 1) == 1 ? loads[0] : nil
    }
}
