import Foundation
import LessonKit
import LessonSupport
import TableKit
import TerminalKit

/// The checks of the image-list exercises (2–7), read from the bug table
/// (`KnownBug.all`) and parameterised by where the runs come from: a controller
/// played in this process, a shared test run, or an executable in a child
/// process (for code that can crash).
///
/// Exercise N checks every bug fixed by step N or before it: step N's own
/// bugs are to be fixed, the earlier ones (and the bugs a hasty fix brings
/// in) to be kept fixed, so a learner who breaks step 5's fix while doing
/// step 7 is told.
public enum ImageListChecks {
    /// Plays a scenario against the code under test and returns its report.
    public typealias RunSource = @Sendable (Scenario) async throws -> Report

    /// `newProcesses`: how a story that relaunches the app is played, each launch a new process
    /// (`ScenarioSetup.newProcesses`); without it such a story stops at its relaunch.
    public static func inProcess(
        _ controller: any LessonController.Type, exercise: Int,
        newProcesses: (@Sendable (ScenarioSetup) async -> ScenarioResult)? = nil
    ) -> RunSource {
        { scenario in
            let entry = LessonCatalog.entry(exercise)
            var setup = ScenarioSetup(
                lesson: entry?.id ?? "\(exercise)", title: "exercise \(exercise)", controller: controller,
                scenario: scenario)
            setup.newProcesses = newProcesses
            return await ScenarioRunner.run(setup).report
        }
    }

    /// Each scenario played by `executable` (the workbench, as a learner runs
    /// it: `--scenario NAME --json`, after `arguments`) in a process of its own, with a Caches
    /// folder of its own: a crashed scenario is played again, and crashing
    /// again costs its own verdicts only (not measured, explained from its
    /// backtrace); the other scenarios are still played.
    /// The report comes on its own channel; what the program printed is
    /// `narrate`d under the scenario, a few lines of it.
    public static func inChildProcesses(
        _ executable: URL, arguments: [String] = [], root: URL, narrate: (@Sendable (String) -> Void)? = nil
    ) -> RunSource {
        { scenario in
            switch try await played(scenario, executable, arguments: arguments, root: root, narrate: narrate) {
            case .report(let report): return report
            case .ended(let run, let attempts):
                return try report(of: run, scenario, attempts: attempts, root: root, narrate: narrate)
            }
        }
    }

    /// How a scenario's processes ended: a report handed over before a crash, or the last run and how many were
    /// played.
    private enum Played {
        case report(Report)
        case ended(ChildProcess.Finished, attempts: Int)
    }

    /// Plays `scenario` in a process of its own, again after a crash (up to `crashAttempts`).
    private static func played(
        _ scenario: Scenario, _ executable: URL, arguments: [String], root: URL,
        narrate: (@Sendable (String) -> Void)?
    ) async throws -> Played {
        var attempt = 1
        repeat {
            let caches = try ScratchFolder.make("check-caches")
            defer { ScratchFolder.remove(caches) }
            var child = ChildProcess.scenario(executable, arguments + ["--scenario", scenario.name, "--json"])
            // A working directory of its own: the learner's code, run with full write access, never starts in
            // the package's folder, where a relative path would reach their sources.
            child.directory = caches
            child.environment["XDG_CACHE_HOME"] = caches.path
            child.environment[StuckRun.backtraceSetting] = "1"
            // A main queue that never comes back stops the story clock's own guard too: stopped from here,
            // asked first where it was.
            let run = try await child.finished(watchdog: CheckWatch.watchdog(scenario))
            if let narrate, let printed = printedExcerpt(run.output) { narrate(printed) }
            if let ranFor = run.stoppedAfter {
                let stopped = CheckWatch.stopped(scenario, after: ranFor, errors: run.errors)
                narrate?(stopped.said)
                throw RunFailure(stopped.phrase, unmeasured: true)
            }
            if let signal = run.signal, let data = run.report,
                let report = try? Report.read(data, from: reportSource(scenario))
            {
                // Stopped by the story clock, it asked for its own backtrace (`StuckRun`): said first, with where
                // the app was; the verdicts its stop affects are not measured.
                if let stuck = report.stuck {
                    narrate?(CheckWatch.stoppedByTheClock(scenario, stuck, errors: run.errors))
                    return .report(report)
                }
                // A report handed over before the crash: the story was over, and its verdicts stand.
                narrate?(CrashDiagnosis(errors: run.errors, signal: signal, root: root).afterTheStory)
                return .report(report)
            }
            // A race crashes some runs, not all: a crashed scenario is played again before its bugs are given up.
            guard run.signal != nil, attempt < crashAttempts else { return .ended(run, attempts: attempt) }
            narrate?("it crashed (signal \(run.signal ?? 0)): playing it again (\(attempt + 1) of \(crashAttempts))")
            attempt += 1
        } while true
    }

    /// The report of a scenario's last run, or why it has none.
    private static func report(
        of run: ChildProcess.Finished, _ scenario: Scenario, attempts: Int, root: URL,
        narrate: (@Sendable (String) -> Void)?
    ) throws -> Report {
        if let signal = run.signal {
            let diagnosis = CrashDiagnosis(errors: run.errors, signal: signal, root: root)
            let times = attempts == 1 ? "" : ", each of \(attempts) times"
            throw RunFailure("crashed (signal \(signal)\(times)): " + diagnosis.line, crash: diagnosis)
        }
        // A run the hang guard stopped still sends its report, then ends with status 1: said stopped, first.
        // A report this build cannot read measured nothing: said in its own words.
        let report = try run.report.map { data in
            do {
                return try Report.read(data, from: reportSource(scenario))
            } catch {
                throw RunFailure("\(error)", unmeasured: true)
            }
        }
        guard run.exited, let report, run.status == 0 || report.stuck != nil else {
            let errors = run.errors.suffix(300).trimmingCharacters(in: .whitespacesAndNewlines)
            throw RunFailure(
                "ended with status \(run.status) and no report" + (errors.isEmpty ? "" : ": " + errors),
                unmeasured: true)
        }
        if let stuck = report.stuck { narrate?(CheckWatch.stoppedByTheClock(scenario, stuck, errors: run.errors)) }
        return report
    }

    /// How a report that cannot be read is named in its error.
    private static func reportSource(_ scenario: Scenario) -> String { "the report of `\(scenario.name)`" }

    /// How many times a scenario whose run crashed is played before its bugs are not measured.
    static let crashAttempts = 2

    /// The most lines of a program's own output shown under its scenario.
    static let printedLines = 4

    /// "your program printed:" and its first lines, each made printable and
    /// cut to fit beside the narration's indent; nil when it printed nothing.
    static func printedExcerpt(_ output: String) -> String? {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
            .reversed().drop { $0.isEmpty }.reversed()
        guard !lines.isEmpty else { return nil }
        var shown = ["your program printed:"]
        shown += lines.prefix(printedLines).map { "  " + TerminalText.fitted($0, to: 72, padded: false) }
        if lines.count > printedLines { shown.append("  … and \(lines.count - printedLines) more lines") }
        return shown.joined(separator: "\n  ")
    }

    /// The step that fixes the data race `RaceCheck` sees in a Thread Sanitizer
    /// build (shared state written from download threads): its exercise checks
    /// it as a bug, and every later image-list exercise keeps it fixed.
    public static let raceFixedIn = LessonCatalog.dataRaceFixedIn

    /// The exercises this file checks: each step that fixes a bug of the table
    /// and starts from the image step just before it (step 10's exercise is
    /// its library's operation: `AsyncOperationChecks`).
    public static var exercises: [Int] {
        Set(KnownBug.all.map(\.fixedIn)).filter { LessonCatalog.entry($0 - 1)?.showsImageList == true }.sorted()
    }

    /// Exercise `exercise`'s bugs: its own first, then the ones to keep fixed.
    public static func bugs(exercise: Int) -> [KnownBug] {
        let checked = KnownBug.all.filter { $0.fixedIn <= exercise }
        return checked.filter { !isSafeguard($0, exercise: exercise) } + checked.filter { isSafeguard($0, exercise: exercise) }
    }

    /// A bug the exercise's starting code does not have: fixed by an earlier
    /// step, or one that only a hasty fix (or a trap the step avoids) brings in.
    public static func isSafeguard(_ bug: KnownBug, exercise: Int) -> Bool {
        bug.fixedIn < exercise || bug.origin != .stepBefore
    }

    /// The scenarios exercise `exercise` plays, each once, its own bugs' first.
    public static func scenarios(exercise: Int) -> [Scenario] {
        var seen: Set<String> = []
        return bugs(exercise: exercise).flatMap(\.scenarios).filter { seen.insert($0.name).inserted }
    }

    /// Plays each scenario the exercise needs once (through `run`) and judges
    /// every bug on the reports. A run that fails (a crash) fails the bugs that
    /// read it, and says why; the other scenarios are still played.
    public static func check(
        exercise: Int, narrate: (@Sendable (String) -> Void)? = nil, code: LearnerCode? = nil, run: RunSource
    ) async -> [CheckResult] {
        var reports: [String: Report] = [:]
        var failures: [String: RunFailure] = [:]
        for scenario in scenarios(exercise: exercise) {
            narrate?("playing \(scenario.name): \(scenario.summary)")
            do {
                reports[scenario.name] = try await run(scenario)
            } catch {
                failures[scenario.name] = error as? RunFailure ?? RunFailure("\(error)")
            }
        }
        let found = MeasuredCause.Found(reports.values.sorted { $0.run.scenario < $1.run.scenario })
        return MeasuredCause.onceEach(
            bugs(exercise: exercise).map { bug in
                judge(
                    bug, reports: reports, failures: failures, isSafeguard: isSafeguard(bug, exercise: exercise),
                    exercise: exercise, found: found, code: code)
            })
    }

    /// One bug of exercise `exercise` judged on reports already made, by scenario name.
    public static func check(_ bug: KnownBug, reports: [String: Report], exercise: Int) -> CheckResult {
        judge(
            bug, reports: reports, failures: [:], isSafeguard: isSafeguard(bug, exercise: exercise), exercise: exercise,
            found: MeasuredCause.Found(reports.values.sorted { $0.run.scenario < $1.run.scenario }))
    }

    /// One bug's verdict: its number gone and every condition of a fix held;
    /// its hint said of `code`, the learner's files, when given.
    /// Judged for exercise `exercise` (nil: any), whose table says which other bugs the evidence may be put down
    /// to, knowing the causes `found` in all of the exercise's runs.
    static func judge(
        _ bug: KnownBug, reports: [String: Report], failures: [String: RunFailure], isSafeguard: Bool,
        exercise: Int? = nil, found: MeasuredCause.Found = MeasuredCause.Found([]), code: LearnerCode? = nil
    ) -> CheckResult {
        if bug.origin == .hastyFix {
            return judgeOnEveryRun(bug, reports: reports, failures: failures, isSafeguard: isSafeguard, code: code)
        }
        if let failed = bug.scenarios.lazy.compactMap({ scenario in
            failures[scenario.name].map { (scenario, $0) }
        }).first {
            return judgeFailedRun(bug, on: failed.0, failed.1, isSafeguard: isSafeguard, code: code)
        }
        guard let report = reports[bug.scenario.name] else {
            return bug.text.result(
                passed: false, measured: "the \(bug.scenario.name) run was not played", isSafeguard: isSafeguard,
                code: code)
        }
        if let why = bug.whyNotMeasured(report) {
            return unmeasured(bug, "not measured: " + why, on: bug.scenario, isSafeguard)
        }
        if let (scenario, reason) = stopped(bug, reports) {
            // A run cut short measured what came before the cut, and a figure it never reached is not a bug's.
            return stoppedUnmeasured(bug, on: scenario, reason: reason, isSafeguard)
        }
        return judgeMeasured(
            bug, report, reports: reports, isSafeguard: isSafeguard, exercise: exercise, found: found, code: code)
    }

    /// A bug only a hasty fix brings in, judged on every run played: a touch off the main queue anywhere counts.
    private static func judgeOnEveryRun(
        _ bug: KnownBug, reports: [String: Report], failures: [String: RunFailure], isSafeguard: Bool,
        code: LearnerCode?
    ) -> CheckResult {
        guard !reports.isEmpty else {
            let why = failures.sorted { $0.key < $1.key }.first.map { "the \($0.key) run \($0.value)" }
            let scenario = failures.keys.sorted().first ?? bug.scenario.name
            return CheckResult(
                bug: bug.name, passed: false,
                measured: "not measured: no run gave a report" + (why.map { " (\($0))" } ?? ""),
                expected: bug.text.expected,
                hint: "Does your code end the program (`exit`) or crash before the scenario is over? Play it as "
                    + "the check does: \(WorkbenchLayout.run) --scenario \(scenario)",
                isSafeguard: isSafeguard, notMeasured: true)
        }
        let total = reports.values.compactMap { bug.measure.value($0) }.reduce(0, +)
        let unreported = failures.isEmpty ? "" : " (in the \(reports.count) runs that gave a report; \(failures.count) gave none)"
        // What a run cut short did before the cut is evidence; that it did nothing is not.
        if !bug.presence.isPresent(total),
            let (name, stuck) = reports.sorted(by: { $0.key < $1.key }).lazy.compactMap({ run in
                run.value.stuck.map { (run.key, $0) }
            }).first, let scenario = Scenario.named(name)
        {
            return stoppedUnmeasured(bug, on: scenario, reason: String(stuck.prefix { $0 != "\n" }), isSafeguard)
        }
        return bug.text.result(
            passed: !bug.presence.isPresent(total), measured: bug.measure.text(total) + unreported,
            isSafeguard: isSafeguard, code: code)
    }

    /// A bug one of whose runs failed: a crash leaves nothing to judge, so the bug is not measured, and the verdict
    /// says where it crashed.
    private static func judgeFailedRun(
        _ bug: KnownBug, on scenario: Scenario, _ failure: RunFailure, isSafeguard: Bool, code: LearnerCode?
    ) -> CheckResult {
        guard let crash = failure.crash else {
            // A run that ended early or was stopped measured nothing: neither fixed nor broken.
            guard failure.unmeasured else {
                return bug.text.result(
                    passed: false, measured: "the \(scenario.name) run \(failure)", isSafeguard: isSafeguard,
                    code: code)
            }
            return unmeasured(
                bug, "not measured: the \(scenario.name) run \(failure)", on: scenario, isSafeguard,
                hint: "Does your code end the program (`exit`), or keep the main queue busy for ever? See it: "
                    + "\(WorkbenchLayout.run) --scenario \(scenario.name)")
        }
        return unmeasured(
            bug, "not measured: \(crash.crashedAt) (the \(scenario.name) run)", on: scenario, isSafeguard,
            diagnosis: [crash.message, crash.reading].compactMap { $0 }.joined(separator: " · "), hint: crash.hint)
    }

    /// A bug whose runs all measured: its number gone and every condition held, or what the failure points at.
    private static func judgeMeasured(
        _ bug: KnownBug, _ report: Report, reports: [String: Report], isSafeguard: Bool, exercise: Int?,
        found: MeasuredCause.Found, code: LearnerCode?
    ) -> CheckResult {
        let verdict = bug.verdict(report)
        var measured = [bug.measure.says(report)]
        var failed: [(condition: Condition, report: Report)] = []
        for condition in bug.conditions {
            guard let report = reports[condition.scenario.name] else { continue }
            // A figure of another run than the bug's own says which: "8/8 rows … at the end" of a fast scroll
            // that ended with 6 would be false.
            let elsewhere = condition.scenario.name == bug.scenario.name ? "" : " on \(condition.scenario.name)"
            measured.append(condition.says(report) + elsewhere)
            if !condition.holds(report) { failed.append((condition, report)) }
        }
        let gone = if case .gone = verdict { true } else { false }
        guard !(gone && failed.isEmpty) else {
            return bug.text.result(
                passed: true, measured: measured.joined(separator: " · "), isSafeguard: isSafeguard, code: code)
        }
        // The evidence is the bug's own run where its number shows it, else the runs of the conditions that failed.
        let evidence = verdict.isPresent ? [report] + failed.map(\.report) : failed.map(\.report)
        guard
            let cause = diagnosed(
                bug, evidence: evidence, verdict: verdict, failed: failed.map(\.condition), exercise: exercise,
                found: found, code: code)
        else {
            let seen = bug.name == MeasuredCause.sharedFiles ? MeasuredCause.sharedFiles(in: report) : nil
            return CheckResult(
                bug: bug.name, passed: false, measured: measured.joined(separator: " · "), expected: bug.text.expected,
                hint: bug.text.hints.nudge(in: code), isSafeguard: isSafeguard, diagnosis: seen)
        }
        return CheckResult(
            bug: bug.name, passed: false, measured: measured.joined(separator: " · "), expected: bug.text.expected,
            hint: cause.hint, isSafeguard: isSafeguard, diagnosis: cause.seen, shape: cause.title)
    }

    /// A bug whose run the hang guard stopped: not measured, with the stop's first line.
    static func stoppedUnmeasured(_ bug: KnownBug, on scenario: Scenario, reason: String, _ isSafeguard: Bool)
        -> CheckResult
    {
        unmeasured(
            bug,
            "not measured: your program never went quiet: the \(scenario.name) run was stopped "
                + "(\(reason.trimmingCharacters(in: .whitespaces)))",
            on: scenario, isSafeguard,
            hint: "Something in your code goes on working with nothing left to do (a loop that asks again, work "
                + "that queues itself again, a block that sleeps), so the story could not end. See it: "
                + "\(WorkbenchLayout.run) --scenario \(scenario.name)")
    }

    /// The first of the bug's runs that the hang guard stopped, and why, in its first line.
    static func stopped(_ bug: KnownBug, _ reports: [String: Report]) -> (Scenario, String)? {
        for scenario in bug.scenarios {
            guard let stuck = reports[scenario.name]?.stuck else { continue }
            return (scenario, String(stuck.prefix { $0 != "\n" }).trimmingCharacters(in: .whitespaces))
        }
        return nil
    }

    /// A bug whose run gave nothing to judge: neither fixed nor broken, with why, and how to see the run.
    /// A crash's verdict says what the crash was (`diagnosis`) and, when the course knows it, what to do (`hint`).
    static func unmeasured(
        _ bug: KnownBug, _ why: String, on scenario: Scenario, _ isSafeguard: Bool, diagnosis: String? = nil,
        hint: String? = nil
    ) -> CheckResult {
        CheckResult(
            bug: bug.name, passed: false, measured: why, expected: bug.text.expected,
            hint: hint
                ?? "Nothing to judge yet: it is measured once your code gets that far. See what it does there: "
                + "\(WorkbenchLayout.run) --scenario \(scenario.name)",
            isSafeguard: isSafeguard, diagnosis: diagnosis, notMeasured: true)
    }

    /// What a failed check's evidence points at when it is not this bug's
    /// own shape: another bug whose shape the runs have (said as that bug,
    /// and as a later step's where the exercise has not come to it), a cause
    /// no bug of the table has (said as measured), or, when nothing fits,
    /// the figures that failed. Nil: the evidence is this bug's own.
    static func diagnosed(
        _ bug: KnownBug, evidence: [Report], verdict: Verdict, failed: [Condition], exercise: Int?,
        found: MeasuredCause.Found, code: LearnerCode?
    ) -> MeasuredCause? {
        // A queue that starts nothing after a drag leaves any row it stopped without its icon, whatever that row's
        // download did before: its own shape (a failed download never asked again) is this one's too.
        if let stopped = found.stoppedAfterADrag, let report = evidence.first(where: \.downloadsStopAfterADrag) {
            return stopped.seen(in: report)
        }
        // Files on disk that the relaunched app does not find: not memory lost, names that change from process to
        // process. Before the bug's own shape, whose hint (keep the icons on disk) the learner has already followed.
        if let lost = evidence.lazy.compactMap(filesNotFoundAfterARelaunch).first { return lost }
        let ownShape = bug.shape.map { shape in evidence.contains(where: shape.holds) } ?? verdict.isPresent
        if ownShape { return nil }
        return anotherBugsShape(bug, evidence: evidence, exercise: exercise, found: found, code: code)
            ?? causeNoBugHas(evidence)
            ?? nothingFits(bug, evidence: evidence, verdict: verdict, failed: failed)
    }

    /// Another bug of the table whose shape the evidence has: said as that bug, and as a later step's where the
    /// exercise has not come to it.
    private static func anotherBugsShape(
        _ bug: KnownBug, evidence: [Report], exercise: Int?, found: MeasuredCause.Found, code: LearnerCode?
    ) -> MeasuredCause? {
        func later(_ other: KnownBug) -> Bool { exercise.map { other.fixedIn > $0 } ?? false }
        func nudge(_ other: KnownBug) -> String {
            other.text.hints.nudge(in: code)
                + (later(other) ? " (Step \(other.fixedIn) is where the course comes to this bug.)" : "")
        }
        if let shared = found.sharedFiles, bug.name != MeasuredCause.sharedFiles,
            let report = evidence.first(where: { $0.wrongImageFrames > 0 }),
            let sharedBug = KnownBug.named(MeasuredCause.sharedFiles)
        {
            // Rows showing another row's icon in a check whose runs showed icons sharing a file: that file.
            return MeasuredCause(
                title: sharedBug.name,
                seen: report.run.scenario == shared.scenario
                    ? shared.sentence
                    : (MeasuredCause.whoseIcons(in: report)
                        ?? "\(counted(report.wrongImageFrames, "frame")) with another row's icon")
                        + " on \(report.run.scenario); "
                        + "on \(shared.scenario), " + shared.sentence,
                hint: nudge(sharedBug))
        }
        // The bugs of the steps up to the exercise before a later step's.
        for other in KnownBug.all.filter({ !later($0) }) + KnownBug.all.filter(later) where other.name != bug.name {
            guard let shape = other.shape, let report = evidence.first(where: shape.holds) else { continue }
            return MeasuredCause(title: other.name, seen: shape.says(report), hint: nudge(other))
        }
        return nil
    }

    /// A cause no bug of the table has, said as measured.
    private static func causeNoBugHas(_ evidence: [Report]) -> MeasuredCause? {
        if let report = evidence.first(where: \.retriedWithoutTheTable) {
            // No known bug asks again from inside the download: said as measured, icon by icon.
            return MeasuredCause(
                title: "a failed download asks again by itself", seen: retriedSentence(report), hint: retriedHint)
        }
        if let report = evidence.first(where: \.rowsShownAgainAskedForNothing) {
            // No known bug leaves the rows the warning stopped without a download when they come back.
            return MeasuredCause(
                title: "rows shown again after the warning ask for no icon",
                seen: "after the memory warning, \(counted(report.visibleRowsAtEnd - report.ownIconsAtEnd, "row")) "
                    + "scrolled away and back kept their placeholder, and no download was asked for after it",
                hint: "The rows whose downloads the warning stopped came back, and your code asked for none of their "
                    + "icons. When a row is shown again, what does your code find for an icon whose download was "
                    + "cancelled?")
        }
        if let cause = evidence.lazy.compactMap(MeasuredCause.stillLoading).first {
            // No known bug spends the queue on rows scrolled away until the story ends: said as measured.
            return cause
        }
        if let report = evidence.first(where: { $0.duplicateRequests == 0 && $0.repeatNoWarningExplains != nil }),
            let again = report.repeatNoWarningExplains
        {
            // No known bug downloads an icon again after its first download ended: said as measured.
            return MeasuredCause(
                title: "an icon downloaded again, never two at once",
                seen: "\(counted(report.requests, "request")) for \(counted(report.uniqueURLs, "icon")), never two of "
                    + "one icon at once: \(again.sentence)",
                hint: hint(again))
        }
        return nil
    }

    /// Nothing fits: the title is what failed, not the bug's name.
    private static func nothingFits(
        _ bug: KnownBug, evidence: [Report], verdict: Verdict, failed: [Condition]
    ) -> MeasuredCause {
        let said = verdict.isPresent ? [] : failed.compactMap { condition in
            evidence.first { $0.run.scenario == condition.scenario.name }.map(condition.says)
        }
        // The run to compare is the one that failed: the bug's own, or the first failed condition's.
        let scenario = verdict.isPresent ? bug.scenario.name : failed.first?.scenario.name ?? bug.scenario.name
        return MeasuredCause(
            title: said.isEmpty ? bug.name : said.joined(separator: " · "),
            seen: "none of the course's bugs has this shape: the numbers above are what was measured",
            hint: "Compare what your code does on this scenario with the step's own: `\(WorkbenchLayout.run) --scenario "
                + "\(scenario)` beside `swift run lessons run \(bug.fixedIn) --scenario \(scenario)`.")
    }

    /// A relaunch that found files in the caches folder, yet asked again for icons an earlier launch had
    /// downloaded and wrote files of new names: the relaunched process looks for them under other names (a name
    /// made from `hashValue`, which Swift seeds anew in every process). Code that downloads again what it found
    /// writes the same names over (`--disk-hit-downloads`): no new file.
    static func filesNotFoundAfterARelaunch(in report: Report) -> MeasuredCause? {
        for launch in report.run.launches.dropFirst()
        where launch.diskCacheFiles > 0 && report.diskCacheFiles > launch.diskCacheFiles {
            let askedAgain = report.iconRequests.icons.filter { icon in
                icon.downloads.contains { $0.outcome == "ok" && ($0.endMs ?? .infinity) <= launch.atMs }
                    && icon.downloads.contains { $0.startMs >= launch.atMs }
            }
            guard !askedAgain.isEmpty else { continue }
            return MeasuredCause(
                title: "the relaunched app does not find the files it wrote",
                seen: "on \(report.run.scenario), the launch at \(Int(launch.atMs.rounded())) ms found "
                    + "\(counted(launch.diskCacheFiles, "file")) in the Caches folder, yet asked again for "
                    + "\(counted(askedAgain.count, "icon")) an earlier launch had downloaded; "
                    + "\(counted(report.diskCacheFiles, "file")) on disk at the end for \(counted(report.uniqueURLs, "icon"))",
                hint: "Your icons are on disk, but a relaunch is a new process, and it looks for them under other "
                    + "names. Is each file's name the same in every process? Swift seeds `hashValue` anew in each "
                    + "one: name the file from a hash of the URL that is the same in every run (FNV-1a is a few "
                    + "lines), written in hex.")
        }
        return nil
    }

    /// "759 requests for 3 icons (rows 0, 1 and 2, up to 253 times each), 756 failed, while the table asked
    /// for 18 cells: …": the icons asked again, and whether the app ever went quiet.
    static func retriedSentence(_ report: Report) -> String {
        let asked = report.iconRequests.icons.filter { $0.downloads.count > 2 }
        let rows = asked.compactMap(\.row).map(String.init)
        let named =
            rows.isEmpty
            ? "" : " (row\(rows.count == 1 ? "" : "s") " + listed(Array(rows.prefix(4)), more: rows.count - 4)
                + ", up to \(asked.map(\.downloads.count).max() ?? 0) times each)"
        let quiet =
            report.clock.stuck == nil
            ? ""
            : "; it never went quiet: \(report.iconRequests.inFlightAtEnd) "
                + "still asking when the story ended, and the run was stopped"
        return "\(counted(report.requests, "request")) for \(counted(report.uniqueURLs, "icon"))\(named), "
            + "\(report.failedRequests) failed, while the table asked for \(counted(report.cellRequests, "cell")): "
            + "each failed download was asked for again at once by the download itself, not by a reloaded row"
            + quiet
    }

    /// "0, 1 and 2", "0, 1, 2, 3 and 5 more".
    static func listed(_ items: [String], more: Int) -> String {
        if more > 0 { return items.joined(separator: ", ") + " and \(more) more" }
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + (items.last ?? "")
    }

    static let retriedHint =
        "Your download asks again as soon as it fails, and never stops: offline every try fails, so it tries for "
        + "ever and holds its thread. Where does your download decide to try again? (Let a failed download end "
        + "with no image; its row asks again when it is shown again.)"

    /// What to ask of code that downloaded an icon again, by how its earlier download ended.
    static func hint(_ again: IconRequests.Repeat) -> String {
        let row = again.icon.row.map { "row \($0)" } ?? "its row"
        let capitalizedRow = row.prefix(1).uppercased() + row.dropFirst()
        switch (again.earlier.outcome, again.earlier.shown) {
        case ("cancelled", _):
            return "Your code cancelled \(row)'s download while it ran, then asked for the icon again. Is a download "
                + "under way worth cancelling for a row that may come back? (Cancel the waiting ones; let a running "
                + "one finish and keep what it brings.)"
        case ("ok", false):
            return "\(capitalizedRow)'s first download brought its icon, yet no row showed it and your code asked for "
                + "it again. Where did that icon go? (A download cancelled while it runs still fetches to the end: "
                + "what it brings can be kept, not thrown away.)"
        case ("ok", true):
            return "\(capitalizedRow) showed its icon, and your code downloaded it again later. Where does your code "
                + "keep an icon it has downloaded, and does it look there first?"
        default:
            return "\(capitalizedRow)'s first download failed and the icon was asked for again. Did it fail on "
                + "purpose? Compare with the step's own run of this scenario."
        }
    }
}

extension Double {
    /// "412 ms".
    var ms: String { String(format: "%.0f ms", self) }
}
