import Foundation
import LessonKit

/// The one bug no in-process measure can see: shared state written from
/// download threads (step 4's cache dictionary). Thread Sanitizer sees it. The
/// code under test is built with Thread Sanitizer in its own code only (the
/// race build: the harness it links is not instrumented), played on a scenario
/// where many downloads end close together, and its standard error is read.
/// The harness's own synchronisation is out of TSan's sight (`UnseenSync`), so
/// what TSan sees ordering the app's threads is the app's own doing
/// (docs/architecture.md, "The race run").
public enum RaceCheck {
    /// Rows 10+ are slow and the user flicks over them: many downloads end on
    /// several threads, some at the same instant, which the clock lets go at
    /// once. Step 4's race shows as a report (or as the crash it causes, a
    /// dictionary written by two threads at once). Then rows whose downloads
    /// run leave the screen and come back within one gesture, so code that
    /// loads only while the table rests reads them too (`Scenario.flickThenPeek`).
    /// From an empty disk cache every time: the icons an earlier run (the run
    /// before, a learner's own) left on disk are shown without a download, and
    /// with nothing downloading while the main queue reads there is nothing to
    /// race (a clean verdict that measured nothing).
    public static let arguments = ["--scenario", "flick-then-peek", "--json", "--clear-cache"]

    /// The race run of an exercise whose checks play the learner's code in the
    /// workbench itself (exercise 10's operation, started by hand and on
    /// queues, cancelled): those checks, as `lessons check` plays them.
    public static func checkArguments(exercise: Int) -> [String] { ["--check", "\(exercise)"] }

    /// The fix for a race on an app's state: one queue touches it.
    public static let mainQueueRemedy =
        "Touch it from one queue only (hand the result to the main queue, and write it there)."

    /// The fix for a race on an operation's own state, which the queue reads from its threads whenever it likes:
    /// no one queue can own it.
    public static let operationRemedy =
        "An operation's flags are read by its queue's threads whenever they like: guard what they read, and every "
        + "write of it, with one lock."

    /// Exercise 10's row: its operation's own state, which a queue reads from its threads.
    public static let operationBug = BugText(
        name: "the operation's state is read and written on two threads, unguarded (a data race)",
        expected: "0 Thread Sanitizer reports, no crash",
        why:
            "A queue reads an operation's `isExecuting` and `isFinished` from its own threads, whenever it likes, "
            + "while the operation's download changes its state on another: a plain property read and written so is "
            + "a data race. Guard the state with a lock, as the library does.",
        hints: Hints(
            question:
                "Which threads read your operation's `isExecuting` and `isFinished`, and which one changes its state?",
            place: CodePlace(
                "private var state", in: "ImageDownloadOperation.swift", role: "where your operation keeps its state",
                presumes: CodePlace.Presumption(
                    ["isFinished", "isExecuting"], otherwise: "where your operation would keep its state")),
            api:
                "An `NSLock` the operation owns: every read of the state (`isExecuting`, `isFinished`) and every "
                + "change of it (`move(to:)`) takes it; the announcements are made outside it.",
            code: [
                .line(
                    "public override var isFinished: Bool { lock.withLock { state == .finished } }",
                    in: "ImageDownloadOperation.swift"),
                .line("lock.withLock { state = new }", in: "ImageDownloadOperation.swift"),
            ]),
        isSafeguard: true)

    /// What a race run judges: its row's text, and how its hint says to fix a race on anything but a cache.
    public struct Subject: Sendable {
        public let bug: BugText
        public let remedy: String
        /// Whether a race on an object other than the controller, between threads none of which is the main
        /// queue's (a loader the tasks share), is fixed as `remedy` says (an operation's own state), or by
        /// giving that object one owner.
        let remedyFitsEveryObject: Bool

        init(bug: BugText, remedy: String, remedyFitsEveryObject: Bool = false) {
            self.bug = bug
            self.remedy = remedy
            self.remedyFitsEveryObject = remedyFitsEveryObject
        }

        /// How to fix a race on `owner`'s memory, an object other than the table's controller, off the main queue.
        func remedy(of owner: String?) -> String {
            guard !remedyFitsEveryObject, let owner else { return remedy }
            return "Give `\(owner)`'s state one owner: make it an actor, or guard every read and write of it with one "
                + "lock, or touch it from one queue only."
        }

        /// An image list's state, the main queue's to touch.
        public static let imageList = Subject(bug: RaceCheck.bug, remedy: mainQueueRemedy)
        /// An operation's state, read by its queue's threads (exercise 10).
        public static let operation = Subject(bug: operationBug, remedy: operationRemedy, remedyFitsEveryObject: true)
    }

    /// What a race run played, in a sentence's words: its scenario, or its flags.
    public static func played(_ arguments: [String]) -> String {
        arguments.first == "--scenario" && arguments.count > 1 ? arguments[1] : arguments.joined(separator: " ")
    }

    /// How many runs a race-free verdict takes. TSan reports two accesses that
    /// nothing it sees orders, whether or not they met in time, and the
    /// harness's synchronisation is hidden from it: every race the course
    /// knows to show showed in every run measured; a second run is the margin
    /// for one that shows in most (docs/architecture.md, "The race run").
    public static let runs = 2

    /// Thread Sanitizer's exit status after a report (the run itself went on).
    public static let reportedStatus: Int32 = 66

    /// No Swift backtracer in a TSan-built run: TSan prints the crash's stack
    /// itself, and a backtracer that hung on a crashed TSan process kept the
    /// socket by which Foundation's `Process` learns the child ended (seen in CI).
    /// A Swift trap (a force unwrap of nil) is a SIGILL, which TSan leaves
    /// alone, and its line printed nowhere, unless told to catch it too.
    /// Swift tasks run on the pool's threads (`SwiftTaskActivity.onThePoolSetting`): exercise 11's loader, a class
    /// its tasks share, races there as on a device; played one at a time on the main queue, it never could.
    public static let environment = [
        "SWIFT_BACKTRACE": "enable=no", "TSAN_OPTIONS": "handle_sigill=1", SwiftTaskActivity.onThePoolSetting: "1",
    ]

    public static let bug = BugText(
        name: "the cache is written from download threads (a data race)",
        expected: "0 Thread Sanitizer reports, no crash",
        why:
            "A dictionary written by a download thread while the main queue reads it (or while another download "
            + "writes it) is a data race: Swift's dictionaries are not thread-safe, and two writes at once can "
            + "corrupt one and crash the app — some runs, not all. Touch shared state on one queue only.",
        hints: Hints(
            question:
                "On which thread does your code write the image cache (and the pool)? On which does "
                + "`cellForRowAt` read them?",
            place: CodePlace(
                "self.imageCache[app.icon]", in: "AppsViewController.swift", role: "where your download's icon is kept",
                presumes: CodePlace.Presumption(
                    CodePlace.Presumption.keptIcons, otherwise: "where your download's icon would be kept")),
            api:
                "Decode on the download thread, then hand the image to the main queue "
                + "(`OperationQueue.main.addOperation { … }`) and write the dictionaries there, where they are "
                + "read: touched from one queue only, they need no lock.",
            code: [
                .lines(
                    from: "OperationQueue.main.addOperation { [weak self] in", through: "}",
                    in: "AppsViewController.swift"),
                .lines(
                    from: "imageCache[icon] = image", through: "tableView.reloadRows(at: [indexPath])",
                    in: "AppsViewController.swift"),
            ]))

    /// TSan's word for a race on a Swift variable is "Swift access race"; on
    /// memory it does not know as a variable, "data race".
    public static func raceReports(in errors: String) -> [Substring] {
        errors.split(separator: "\n").filter {
            $0.contains("WARNING: ThreadSanitizer: data race")
                || $0.contains("WARNING: ThreadSanitizer: Swift access race")
        }
    }

    /// The verdict on a race run that did not end as a run ends (stopped, or an exit status of its own): a
    /// race TSan reported before is one; otherwise nothing was measured, and `why` says what happened.
    public static func unfinished(
        _ why: String, errors: String, code: LearnerCode? = nil, replaying played: [String] = arguments,
        of subject: Subject = .imageList
    ) -> CheckResult {
        guard raceReports(in: errors).isEmpty else {
            return judge(errors: errors, crashed: false, code: code, of: subject)
        }
        let bug = subject.bug
        let see = "\(WorkbenchLayout.run) " + played.joined(separator: " ")
        // A `--check` run exits with status 1 when the exercise is not solved yet: it played to its end.
        let unsolved = played.first == "--check" && why.contains("exited with status 1")
        return CheckResult(
            bug: bug.name, passed: false, measured: "not measured: \(why)", expected: bug.expected,
            hint: unsolved
                ? "The race run plays the exercise's own checks, and they failed (the rows above), so it ended with "
                    + "status 1 before the race could be judged on a run that passes them. See it: \(see)"
                : why.contains("stopped")
                    ? "Something in your code goes on working with nothing left to do (a loop that asks again, work "
                        + "that queues itself again), so the story could not end. See it: \(see)"
                    : "The race run did not end as a run ends, so nothing was measured. See it: \(see)",
            isSafeguard: bug.isSafeguard, notMeasured: true)
    }

    /// Why a race run ended with `status`, in one line: a story stopped as stuck says so on its last line.
    public static func endedEarly(status: Int32, errors: String, played arguments: [String] = arguments) -> String {
        let stopped = errors.split(separator: "\n").last { $0.contains("the run was stopped") }
        guard stopped == nil else {
            return "your program never went quiet: the \(played(arguments)) run was stopped, its app still busy"
        }
        let last = errors.split(separator: "\n").last.map { ": " + $0.prefix(160) } ?? ""
        return "the \(played(arguments)) run exited with status \(status)\(last)"
    }

    /// The verdict on one TSan-built run: its standard error, whether a signal
    /// ended it, whether it played its scenario to the report, and how many
    /// requests that report counts. A run that ended early without a race
    /// played too little to be clean, and one that downloaded nothing had no
    /// download thread to race with: not measured.
    /// Its hint is said of `code`, the learner's files, when given; when TSan
    /// gave the two places of a race, the verdict says what raced there, and
    /// unless that is this bug's shape (a dictionary of theirs written off the
    /// main queue) the row is titled by what raced and its hint follows it, with the fix `subject` says.
    /// `start`, the exercise's starting code when the race is a fix to keep: a race at lines it has as they are
    /// was there from the start.
    public static func judge(
        errors: String, crashed signalled: Bool, reported: Bool = true, requests: Int? = nil, code: LearnerCode? = nil,
        start: LearnerCode? = nil, of subject: Subject = .imageList
    ) -> CheckResult {
        let bug = subject.bug
        // TSan catches a segmentation fault itself and exits with its report's status: a crash all the same.
        let crashed = signalled || errors.contains(CrashDiagnosis.caughtBySanitizer)
        let reports = raceReports(in: errors)
        let appsCode = [WorkbenchDiagnostics.learnersCode] + WorkbenchDiagnostics.stepsCode
        var measured = counted(reports.count, "Thread Sanitizer report")
        if !reports.isEmpty, let place = RaceReport.firstPlace(errors: errors, codeFolders: appsCode) {
            measured += " (first: \(place))"
        }
        if crashed { measured += " · the run crashed" }
        if let race = RaceReport(errors: errors, codeFolders: appsCode) {
            // One row of the exercise's table whatever raced, so that every count stays one: its title and hint
            // say what TSan measured when that is not the cache.
            // The cache's own question presumes the controller's dictionary, read in `cellForRowAt`: a helper
            // object's (a loader's) is said as measured, its two accesses named where they are. Raced by two
            // threads neither of which is the main queue's, a helper object wants an owner of its own.
            let inTheController = race.racedInTheController(in: code)
            let cache = race.racedOnADictionary(in: code) && inTheController
            let remedy =
                inTheController || race.touchedOnTheMainQueue
                ? subject.remedy : subject.remedy(of: race.ownerType(in: code))
            return CheckResult(
                bug: bug.name, passed: false, measured: measured, expected: bug.expected,
                hint: cache ? bug.hints.nudge(in: code) : race.hint(in: code, remedy: remedy),
                isSafeguard: bug.isSafeguard,
                diagnosis: race.sentence(in: code), shape: cache ? nil : race.title(in: code),
                fromTheStart: start.map { race.racesAsIn($0, from: code) } ?? false)
        }
        if crashed && reports.isEmpty {
            // A crash is no evidence of a race, nor of none: where it crashed, and what that line does.
            let crash = CrashDiagnosis(errors: errors, signal: nil, code: code)
            return CheckResult(
                bug: bug.name, passed: false, measured: "not measured: \(crash.crashedAt) (the Thread Sanitizer run)",
                expected: bug.expected,
                hint: crash.hint
                    ?? (crash.harnessPlace == nil
                        ? "What does the line it crashed at touch that another thread may change at the same time?"
                        : "It crashed in the suite's code: if yours shares nothing between threads, please report it."),
                isSafeguard: bug.isSafeguard, diagnosis: crash.line, notMeasured: true)
        }
        if reports.isEmpty && !crashed && !reported {
            return notMeasured(
                "ended without a report", hint: "Does your code end the program (`exit`) before the scenario is over?")
        }
        if reports.isEmpty && !crashed && requests == 0 {
            return notMeasured(
                "downloaded no icon",
                hint: "Does your code download the icons? Nothing ran on a download thread, so nothing could race.")
        }
        return bug.result(passed: reports.isEmpty && !crashed, measured: measured, code: code)
    }

    /// A clean run that could not have raced: what the run did, and the question to ask of the code, then how to
    /// play the run by hand.
    private static func notMeasured(_ what: String, hint: String) -> CheckResult {
        CheckResult(
            bug: bug.name, passed: false, measured: "not measured: the Thread Sanitizer run of \(arguments[1]) \(what)",
            expected: bug.expected,
            hint: hint + " Play it as the check does: \(WorkbenchLayout.run) " + arguments.joined(separator: " "),
            isSafeguard: bug.isSafeguard, notMeasured: true)
    }
}
