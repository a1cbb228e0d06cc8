import Foundation
import LessonKit

/// What to play, from the command line: `--variant broken|fixed|both` and
/// `--part chain,cycle,…` or `--scenario chain` (default: everything).
struct TourPlan {
    enum Variant: String, CaseIterable {
        case broken, fixed, both
    }

    static let allParts = [
        "chain", "cancel", "cycle", "priority", "qos", "completion", "wait", "start", "blocks", "limit",
    ]
    /// Played only when named: it ends the program.
    static let namedOnly = ["start-unready"]

    static var flags: [Flag<LessonOptions>] {
        [
            .step(
                "--variant", .choice(Variant.allCases.map(\.rawValue)),
                help: "broken (no dependencies, unchecked cycle), fixed, or both (default)"),
            .step(
                "--part", .list("LIST"),
                help: "only these parts, comma-separated: " + allParts.joined(separator: ", ")
                    + " (and start-unready, which ends the program)"),
        ]
    }

    let variant: Variant
    let parts: [String]

    init(options: LessonOptions) throws(UsageError) {
        // The flag table took only a variant's name.
        variant = options.extra["variant"].flatMap(Variant.init(rawValue:)) ?? .both
        // `--scenario NAME` plays one part, as `--part NAME` does: the name the tools replay a story by.
        if options.scenario != nil && options.extra["part"] != nil {
            throw UsageError("--scenario names one part: give it or --part, not both")
        }
        let parts = (options.scenario ?? options.extra["part"] ?? Self.allParts.joined(separator: ","))
            .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        if let unknown = parts.first(where: { !(Self.allParts + Self.namedOnly).contains($0) }) {
            throw UsageError(
                "--part: unknown part '\(unknown)' (parts: \((Self.allParts + Self.namedOnly).joined(separator: ", ")))"
            )
        }
        self.parts = parts
    }

    var showsBroken: Bool { variant != .fixed }
    var showsFixed: Bool { variant != .broken }
}
