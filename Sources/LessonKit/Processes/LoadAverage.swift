import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// How much other work competes for the cores: the threads ready to run,
/// averaged over the last minute, as `uptime` prints it (`getloadavg`).
public enum LoadAverage {
    public static func lastMinute() -> Double? {
        var loads = [0.0]
        return getloadavg(&loads, 1) == 1 ? loads[0] : nil
    }
}
