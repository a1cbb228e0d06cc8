import Foundation
import Testing

@testable import LessonChecks

/// Where a hint sends a learner whose files lack the place's name, it names the place by its role: "where your
/// download ends". The role is said to code the exercise may hold, so it must be true of that code: every role
/// and its replacement in the table, said to each exercise's starting code and to the published controllers kept
/// here, is judged by what it claims, against that code's text.
@Suite struct HintRoleTests {
    /// What a role claims the code has, and how its text shows it: a role that speaks of a memory warning the
    /// controller hears is true only of code that overrides `didReceiveMemoryWarning`. Judged here, from the
    /// code, not from what the place presumes.
    struct Claim: Sendable {
        let words: String
        let unless: String?
        let holds: @Sendable (String) -> Bool
    }

    static func has(_ texts: String...) -> @Sendable (String) -> Bool {
        { code in texts.contains { code.contains($0) } }
    }

    static let claims: [Claim] = [
        Claim(words: "hears a memory warning", unless: "does not override", holds: has("didReceiveMemoryWarning")),
        Claim(words: "does not override yet", unless: nil, holds: { !has("didReceiveMemoryWarning")($0) }),
        Claim(words: "hears a drag end", unless: "does not have", holds: has("scrollViewDidEndDragging")),
        Claim(words: "which it does not have yet", unless: nil, holds: { !has("scrollViewDidEndDragging")($0) }),
        Claim(words: "handed to the main queue", unless: nil, holds: has("OperationQueue.main", "DispatchQueue.main", "MainActor")),
        Claim(words: "holds the image", unless: nil, holds: has("var image")),
        Claim(words: "keeps the icons", unless: "would", holds: has("cache", "Cache", "var image", ": Image]")),
        Claim(words: "icon it kept", unless: nil, holds: has("cache", "Cache", "var image", ": Image]")),
        Claim(words: "is kept", unless: "would", holds: has("cache", "Cache", "var image", ": Image]")),
        Claim(words: "names an icon's file", unless: "would", holds: has("write(to", "createFile(")),
        Claim(words: "finds a download under way", unless: nil, holds: has("operations[", "inFlight", "tasks[")),
        Claim(words: "says `isExecuting` and `isFinished`", unless: nil, holds: has("isFinished")),
        Claim(words: "does not override `isExecuting`", unless: nil, holds: { !has("isFinished")($0) }),
        Claim(words: "becomes finished", unless: nil, holds: has("isFinished")),
        Claim(words: "operation's `start()`", unless: nil, holds: has("func start(")),
        Claim(words: "does not override `start()`", unless: nil, holds: { !has("func start(")($0) }),
        Claim(words: "keeps its state", unless: "would", holds: has("isFinished", "isExecuting")),
        Claim(words: "memory cache", unless: nil, holds: has("cache", "Cache")),
    ]

    /// Roles that claim nothing a table's or an operation's code could lack: every image list makes cells, keeps
    /// each row's data, starts and ends its downloads; every operation downloads.
    static let trueOfAnyCode: Set<String> = [
        "the method that makes each row's cell", "where a row's cell gets its image",
        "where your code keeps each row's data", "where your download's icon reaches a cell",
        "where your code would keep the icons it downloaded", "where your download starts", "where your download ends",
        "where a row's cell asks for its icon", "where your code would name an icon's file",
        "where your download hands its icon over", "your table controller", "where your download fetches its icon",
        "where a row starts its icon's download, or finds one under way", "where your download's icon would be kept",
        "where your operation's download ends", "where your operation would keep its state",
        // Said where the compiler's verdict failed, which quotes that error.
        "where the compiler's first error points, in the Swift 6 language mode",
    ]

    /// The learner's code of one sample: a folder's Swift files, or one file.
    static func code(_ path: String) -> LearnerCode {
        let url = Rig.packageRoot.appendingPathComponent(path)
        guard url.pathExtension == "swift" else { return LearnerCode.read(url) }
        return LearnerCode(files: [url.lastPathComponent: (try? String(contentsOf: url, encoding: .utf8)) ?? ""])
    }

    /// The published controllers kept for acceptance, each a file of its own: a learner's code of any shape.
    static let published: [String] = {
        let folder = Rig.packageRoot.appendingPathComponent("Tests/OperationLessonsTests/Ported")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().filter { name in
            guard name.hasSuffix(".swift"), !name.hasSuffix("Tests.swift"),
                let text = try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            else { return false }
            return text.contains(": TableViewController")
        }.map { "Tests/OperationLessonsTests/Ported/" + $0 }
    }()

    /// Each exercise, with the code its hints may be said to: its starting code, and for an image list the
    /// published controllers; for exercise 10's operation, the published operations.
    static var samples: [(exercise: Exercise, code: [String])] {
        ExerciseCatalog.all.map { exercise in
            let others: [String] =
                switch exercise.kind {
                case .imageList: published
                case .asyncOperation:
                    ["Tests/Fixtures/BlogOperation/PortedAsyncOperation.swift", "Sources/WebImage"]
                default: []
                }
            return (exercise, [exercise.startFolder] + others)
        }
    }

    /// The places an exercise's hints may name: its bugs', and its race check's.
    static func places(_ exercise: Exercise) -> [CodePlace] {
        var places = exercise.bugs.map(\.hints.place)
        if exercise.checksRaces {
            places.append(exercise.kind == .asyncOperation ? RaceCheck.operationBug.hints.place : RaceCheck.bug.hints.place)
        }
        return places
    }

    @Test func everyRoleIsJudged() {
        for exercise in ExerciseCatalog.all {
            for role in Self.places(exercise).flatMap(\.roles) {
                let judged = Self.trueOfAnyCode.contains(role) || Self.claims.contains { role.contains($0.words) }
                #expect(judged, "exercise \(exercise.number): no judgement of the role \"\(role)\"")
            }
        }
    }

    @Test(arguments: ExerciseCatalog.all.map(\.number))
    func everyRoleSaidIsTrueOfTheCode(_ number: Int) throws {
        let (exercise, paths) = try #require(Self.samples.first { $0.exercise.number == number })
        for path in paths {
            let code = Self.code(path)
            try #require(!code.files.isEmpty, "no Swift file at \(path)")
            let text = code.files.values.joined(separator: "\n")
            for place in Self.places(exercise) {
                guard let said = place.said(in: code), !said.hasPrefix("`") else { continue }
                for claim in Self.claims where said.contains(claim.words) {
                    if let unless = claim.unless, said.contains(unless) { continue }
                    #expect(
                        claim.holds(text),
                        "exercise \(number): \"\(said)\" (for `\(place.name)`) is not true of \(path)")
                }
            }
        }
    }
}
