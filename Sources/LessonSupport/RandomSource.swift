import Foundation
import HarnessSync
import SlowNetwork

/// The app's random numbers, the tutorials' `arc4random_uniform`: pass it to
/// `Int.random(in:using:)`. Seeded, so a seed replays the same numbers, and
/// shared by every copy, so any thread may draw from it. Whoever made it is
/// told of each draw on the drawing thread: that is how the harness sees when
/// the lottery machine rolled, without the machine keeping count.
public struct RandomSource: RandomNumberGenerator, Sendable {
    private let shared: Shared

    public init(seed: UInt64, onDraw: @escaping @Sendable () -> Void = {}) {
        shared = Shared(seed: seed, onDraw: onDraw)
    }

    public mutating func next() -> UInt64 {
        shared.next()
    }

    private final class Shared: @unchecked Sendable {
        private let lock = Locked(.seen)
        private var generator: SeededGenerator
        private let onDraw: @Sendable () -> Void

        init(seed: UInt64, onDraw: @escaping @Sendable () -> Void) {
            generator = SeededGenerator(seed: seed)
            self.onDraw = onDraw
        }

        func next() -> UInt64 {
            let number = lock.withLock { generator.next() }
            onDraw()
            return number
        }
    }
}
