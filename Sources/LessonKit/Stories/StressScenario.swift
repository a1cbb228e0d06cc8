import SlowNetwork

extension Scenario {
    /// A random but reproducible script for stress runs: drags and flings to
    /// random rows, pauses, memory warnings and offline spells, ending online
    /// and settled so that every visible row can be checked for its own icon.
    public static func stress(seed: UInt64, rows: Int, events: Int) -> Scenario {
        var random = SeededGenerator(seed: seed)
        func pick(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
        }
        var steps: [Step] = [.settle(timeout: 3)]
        var offline = false
        for _ in 0..<events {
            let row = Double(Int(pick(0...Double(max(0, rows - 1)))))
            switch random.next() % 10 {
            case 0..<4: steps.append(.drag(toRow: row, seconds: pick(0.3...1.5)))
            case 4..<7: steps.append(.fling(toRow: row, seconds: pick(0.5...1.5)))
            case 7: steps.append(.memoryWarning)
            case 8:
                steps.append(offline ? .goOnline : .goOffline)
                offline.toggle()
            default: steps.append(.pause(seconds: pick(0.2...1)))
            }
        }
        steps += [.goOnline, .settle(timeout: 15)]
        return Scenario(
            name: "stress-\(seed)",
            summary: "\(events) random gestures and events over \(rows) rows (seed \(seed)), ending online and settled",
            steps: steps)
    }
}
