import Foundation
import LessonKit
import LessonSupport

/// One exercise: fix step N's bug yourself, in the workbench, starting from
/// the code before the fix.
public struct Exercise: Sendable {
    /// What the workbench holds for it, which decides its `main.swift` and its checks.
    public enum Kind: String, Sendable {
        /// A table controller (`LessonController`), played on the step's scenarios.
        case imageList = "an image list"
        /// Step 8's software update, handed to the checks as `SoftwareUpdateControls`.
        case softwareUpdate = "a software update"
        /// Step 9's lottery machine, a `ScreenController`.
        case lotteryMachine = "a lottery machine"
        /// Step 10's asynchronous download operation (`AsyncOperationChecks.Make`).
        case asyncOperation = "an asynchronous operation"
    }

    public let number: Int
    public let kind: Kind
    /// The code the exercise starts from (the step before's, or a start of its own), relative to the package
    /// root.
    public let startFolder: String
    /// The step whose code solves it, relative to the package root.
    public let solutionFolder: String
    /// The bugs to fix, in the order the checks report them.
    public let bugs: [BugText]
    /// `Workbench` flags that show the bug best.
    public let watchFlags: String
    /// What the watch shows, in a line.
    public let watchSays: String
    /// Where the problem is stated (`lessons exercise` points there): a
    /// section of `problemText`, which never gives the fix away.
    public let problemSection: String
    /// The lesson text that states the problem: the step's own, unless the
    /// step's text holds only its fix (exercise 10's operation state).
    public let problemText: String?
    /// Whether a bug of it (a data race) is checked by a Thread Sanitizer
    /// build of the workbench (`RaceCheck`), besides the checks it plays in process.
    public let checksRaces: Bool

    public init(
        number: Int, kind: Kind, startFolder: String, solutionFolder: String, bugs: [BugText], watchFlags: String,
        watchSays: String, problemSection: String = "its first section", problemText: String? = nil,
        checksRaces: Bool = false
    ) {
        self.number = number
        self.kind = kind
        self.startFolder = startFolder
        self.solutionFolder = solutionFolder
        // The race is a bug to fix like the others: listed with them, before the safeguards.
        self.bugs =
            bugs.filter { !$0.isSafeguard }
            + (checksRaces && number == ImageListChecks.raceFixedIn ? [RaceCheck.bug] : [])
            + bugs.filter(\.isSafeguard)
            + (checksRaces && number > ImageListChecks.raceFixedIn
                ? [Self.raceSubject(of: kind).bug.safeguard(true)] : [])
        self.watchFlags = watchFlags
        self.watchSays = watchSays
        self.problemSection = problemSection
        self.problemText = problemText
        self.checksRaces = checksRaces
    }

    /// What its race run judges: an image list's state, or an operation's own (exercise 10).
    public var raceSubject: RaceCheck.Subject { Self.raceSubject(of: kind) }

    private static func raceSubject(of kind: Kind) -> RaceCheck.Subject {
        kind == .asyncOperation ? .operation : .imageList
    }

    /// Whether a bug of it is the Swift 6 compiler's verdict (`Swift6Check`),
    /// judged by a build of the workbench in that language mode.
    public var checksSwift6: Bool { bugs.contains { $0.name == Swift6Check.bug.name } }

    public var entry: LessonEntry {
        guard let entry = LessonCatalog.entry(number) else {
            preconditionFailure("step \(number) is not in the catalog")
        }
        return entry
    }

    /// "Lessons/03-model-held-cache.md (its first section is the problem)": where the task sends the learner.
    public var readForTheProblem: String { "\(problemText ?? entry.text) (\(problemSection) is the problem)" }

    public var watchCommand: String { WorkbenchLayout.run + (watchFlags.isEmpty ? "" : " " + watchFlags) }

    /// The workbench's `main.swift` for this exercise: it names the exercise,
    /// so `lessons check` knows what the workbench holds.
    public var workbenchMain: String {
        let call: String
        switch kind {
        case .imageList:
            call = "exit(await WorkbenchMain.run(exercise: \(number), controller: AppsViewController.self))"
        case .softwareUpdate:
            call = """
                exit(
                    await WorkbenchMain.run(exercise: \(number)) { world in
                        let update = SoftwareUpdate(
                            network: world.network, log: world.log, clock: world.clock, unzipSeconds: world.unzipSeconds)
                        return SoftwareUpdateControls(
                            start: update.start(withDependencies:),
                            startCheckingForCycles: update.startCheckingForCycles(withCycle:), statusLabel: update.statusLabel)
                    })
                """
        case .lotteryMachine:
            call = "exit(await WorkbenchMain.run(exercise: \(number), machine: LotteryViewController.self))"
        case .asyncOperation:
            call =
                "exit(await WorkbenchMain.run(exercise: \(number)) { "
                + "ImageDownloadOperation(url: $0, network: $1, progress: $2, completion: $3) })"
        }
        return """
            // The workbench of exercise \(number) (\(entry.title)), written by `swift run lessons exercise \(number)`.
            // `\(WorkbenchLayout.run)` runs your code like a lesson (`--help` for the flags);
            // `swift run lessons check` builds it and checks it.
            import Foundation
            import LessonChecks

            \(call)

            """
    }

    /// Which exercise a workbench `main.swift` was written for, if any.
    public static func number(inWorkbenchMain text: String) -> Int? {
        guard let range = text.range(of: "WorkbenchMain.run(exercise: ") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}

/// Every exercise there is, as the course manifest lists them (`LessonKit/Steps/course.json`).
public enum ExerciseCatalog {
    public static let all: [Exercise] = CourseManifest.shared.exercises.map(exercise(from:))

    /// The bugs of the checks that the manifest names by key, besides the bug table's.
    static let namedBugs: [String: BugText] = [
        "dependency-order": DependencyChecks.order, "dependency-cycle": DependencyChecks.cycle,
        "lottery-suspension": LotteryChecks.suspension, "lottery-main-queue": LotteryChecks.mainQueue,
        "operation-finishes": AsyncOperationChecks.finishes, "operation-announces": AsyncOperationChecks.announces,
        "operation-cancelled-before-start": AsyncOperationChecks.cancelledBeforeStart, "swift6": Swift6Check.bug,
    ]

    /// An exercise of the manifest. An image list also checks the bug table's bugs that its step and the steps
    /// before it fix, and its workbench plays the first scenario the checks play by default.
    static func exercise(from entry: ExerciseEntry) -> Exercise {
        guard let kind = Exercise.Kind(rawValue: entry.kind) else {
            preconditionFailure("course.json: exercise \(entry.number) is of no kind the checks know: \(entry.kind)")
        }
        let named = (entry.bugs ?? []).map { key in
            guard let bug = namedBugs[key] else {
                preconditionFailure("course.json: exercise \(entry.number) names a bug no check has: \(key)")
            }
            return bug
        }
        var bugs = named
        var watchSays = entry.watchSays ?? ""
        if kind == .imageList {
            bugs += ImageListChecks.bugs(exercise: entry.number).map {
                $0.text.safeguard(ImageListChecks.isSafeguard($0, exercise: entry.number))
            }
            if let scenario = ImageListChecks.scenarios(exercise: entry.number).first {
                watchSays = "\(scenario.name): \(scenario.summary)"
            }
        }
        return Exercise(
            number: entry.number, kind: kind, startFolder: "Sources/\(entry.start)",
            solutionFolder: "Sources/\(entry.solution)", bugs: bugs, watchFlags: entry.watchFlags ?? "",
            watchSays: watchSays, problemSection: entry.problemSection ?? "its first section",
            problemText: entry.problemText, checksRaces: entry.checksRaces ?? false)
    }

    public static func exercise(_ number: Int) -> Exercise? {
        all.first { $0.number == number }
    }

    /// "2–4, 8, 9".
    public static var numbers: String { all.map { String($0.number) }.joined(separator: ", ") }
}

extension Exercise {
    /// The step whose code fixes `bug`: this exercise's, or for an earlier fix kept, the earlier step's.
    public func fixingStep(_ bug: BugText) -> Int {
        if let known = KnownBug.named(bug.name) { return known.fixedIn }
        if bug.name == RaceCheck.bug.name { return ImageListChecks.raceFixedIn }
        return number
    }

    /// The folders of a step's code under the package at `root`, where its hints' code is read: its own and its
    /// libraries'.
    public static func codeFolders(ofStep number: Int, root: URL) -> [URL] {
        guard let entry = LessonCatalog.entry(number) else { return [] }
        return ([entry.target] + entry.libraries).map { root.appendingPathComponent("Sources/\($0)") }
    }
}
