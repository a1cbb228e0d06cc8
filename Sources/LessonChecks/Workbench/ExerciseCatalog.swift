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
    /// The code the exercise starts from (step N-1's, or for steps 8–11 the
    /// step's own code before its fix), relative to the package root.
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

/// Every exercise there is: steps 2–11 (step 1 has no bug to fix, it shows the problem).
public enum ExerciseCatalog {
    public static let all: [Exercise] =
        imageListExercises + [
            Exercise(
                number: 8, kind: .softwareUpdate, startFolder: "Sources/Exercise08Start",
                solutionFolder: "Sources/Lesson08Dependencies", bugs: [DependencyChecks.order, DependencyChecks.cycle],
                watchFlags: "", watchSays: "the update played with 8 seeds, then with the tutorial's cycle line on"),
            Exercise(
                number: 9, kind: .lotteryMachine, startFolder: "Sources/Exercise09Start",
                solutionFolder: "Sources/Lesson09LotteryMachine",
                bugs: [LotteryChecks.suspension, LotteryChecks.mainQueue], watchFlags: "",
                watchSays: "start, let it roll, pause, resume: what the digits do"),
            Exercise(
                number: 10, kind: .asyncOperation, startFolder: "Sources/Exercise10Start",
                solutionFolder: "Sources/WebImage",
                bugs: [
                    AsyncOperationChecks.finishes, AsyncOperationChecks.announces,
                    AsyncOperationChecks.cancelledBeforeStart,
                ],
                watchFlags: "",
                watchSays:
                    "4 downloads started by hand, 4 on a queue of 2 at once, one cancelled before it starts: what "
                    + "each said, and what was heard",
                // Step 10's text states this operation only as its fix (part 5 of "The fix"); step 7's says what
                // an asynchronous operation owes its queue. Its flags are read by a queue's threads while its
                // download writes them on others.
                problemSection: "the paragraph \"Linux and iOS\" of \"Going deeper\"",
                problemText: "Lessons/07-custom-operation.md", checksRaces: true),
            exercise11,
        ]

    static let imageListExercises: [Exercise] = ImageListChecks.exercises.compactMap { number in
        guard let before = LessonCatalog.entry(number - 1), let step = LessonCatalog.entry(number),
            let scenario = ImageListChecks.scenarios(exercise: number).first
        else { return nil }
        // The workbench plays the first scenario the checks play by default.
        return Exercise(
            number: number, kind: .imageList, startFolder: "Sources/\(before.target)",
            solutionFolder: "Sources/\(step.target)",
            bugs: ImageListChecks.bugs(exercise: number).map {
                $0.text.safeguard(ImageListChecks.isSafeguard($0, exercise: number))
            },
            watchFlags: "", watchSays: "\(scenario.name): \(scenario.summary)",
            checksRaces: number >= ImageListChecks.raceFixedIn)
    }

    /// Step 11's loader as a class, not an actor: every check of the bug table
    /// passes on it, as on step 11 (the story plays its tasks one at a time), so
    /// each of them is a fix to keep, and the bug to fix is the compiler's verdict.
    /// It does not start from step 10's code: that compiles in the Swift 6 mode
    /// as it is (its library's locks are promised safe by `@unchecked Sendable`).
    static let exercise11: Exercise = {
        let scenario = ImageListChecks.scenarios(exercise: 11)[0]
        return Exercise(
            number: 11, kind: .imageList, startFolder: "Sources/Exercise11Start",
            solutionFolder: "Sources/Lesson11SwiftConcurrency",
            bugs: [Swift6Check.bug] + ImageListChecks.bugs(exercise: 11).map { $0.text.safeguard(true) },
            watchFlags: "", watchSays: "\(scenario.name): \(scenario.summary)", problemSection: "item 5 of \"Try it\"",
            checksRaces: true)
    }()

    public static func exercise(_ number: Int) -> Exercise? {
        all.first { $0.number == number }
    }

    /// "2–4, 8, 9".
    public static var numbers: String { all.map { String($0.number) }.joined(separator: ", ") }
}
