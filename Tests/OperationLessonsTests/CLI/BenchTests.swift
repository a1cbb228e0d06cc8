import Foundation
import Testing

/// `lessons bench`: the table, and under it a sentence that reads it, its
/// figures the table's own.
@Suite struct BenchTests {
    @Test func theReadingSaysWhatTheTableMeasured() async throws {
        let run = try await Rig.runProduct("lessons", ["bench", "--units", "2000", "--rounds", "1"])
        #expect(run.status == 0, "\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n").map(String.init)
        func nanoseconds(_ path: String) throws -> Double {
            let row = try #require(lines.first { $0.hasPrefix(path) }, "no row for \(path)")
            return try #require(Double(row.dropFirst(32).split(separator: " ")[0]))
        }
        let operation = try nanoseconds("OperationQueue.addOperation")
        let ratio = operation / (try nanoseconds("DispatchQueue.async + group"))
        let reading = try #require(lines.last)
        #expect(reading.hasPrefix("Reading: an Operation costs "), "\(reading)")
        // Its figures are the table's, to the table's rounding (0.1 ns).
        let words = reading.split(separator: " ")
        let said = try #require(words.firstIndex(of: "costs").flatMap { Double(words[$0 + 1].dropLast()) })
        #expect(abs(said - ratio) <= 0.05 + ratio * 0.01, "\(reading)")
        let count = try #require(
            words.firstIndex(of: "Operations:").flatMap { Double(words[$0 - 1].filter(\.isNumber)) })
        #expect(abs(count - 0.5e9 / operation) <= 0.5e9 / operation * 0.01 + 1, "\(reading)")
        #expect(reading.contains("one 500 ms download"))
    }
}
