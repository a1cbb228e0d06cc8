/// A moment of a run's story, or a stretch of it, in nanoseconds: the time
/// every report figure is measured in. Whole nanoseconds, so that the same
/// sums give the same instants in every run (a frame every 1/60 s lands on
/// the same nanosecond as a 500 ms download that ends with it).
public struct StoryTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static let zero = StoryTime(nanoseconds: 0)

    public static func seconds(_ seconds: Double) -> StoryTime {
        StoryTime(nanoseconds: Int64((seconds * 1e9).rounded()))
    }

    public static func milliseconds(_ milliseconds: Double) -> StoryTime {
        StoryTime(nanoseconds: Int64((milliseconds * 1e6).rounded()))
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }
    public var milliseconds: Double { Double(nanoseconds) / 1e6 }

    public static func < (lhs: StoryTime, rhs: StoryTime) -> Bool { lhs.nanoseconds < rhs.nanoseconds }
    public static func + (lhs: StoryTime, rhs: StoryTime) -> StoryTime {
        StoryTime(nanoseconds: lhs.nanoseconds + rhs.nanoseconds)
    }
    public static func - (lhs: StoryTime, rhs: StoryTime) -> StoryTime {
        StoryTime(nanoseconds: lhs.nanoseconds - rhs.nanoseconds)
    }

    public var description: String { "\(milliseconds) ms" }
}
