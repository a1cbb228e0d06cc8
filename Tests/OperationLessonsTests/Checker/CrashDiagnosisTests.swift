import Foundation
import LessonChecks
import Testing

/// A crash is explained from where it happened and what the runtime said,
/// not from the bug the check expected.
@Suite struct CrashDiagnosisTests {
    /// Step 7 with the tutorials' `assign` delegate: leave while downloads run,
    /// and the first one to finish calls a controller that is gone.
    @Test func aCallThroughAnUnownedDelegateIsNamedAsSuch() async throws {
        let run = try await LessonProcess.run(
            "Lesson07CustomOperation", ["--assign-delegate", "--scenario", "leave-while-loading", "--json"])
        #expect(run.crashed)
        let diagnosis = CrashDiagnosis(errors: run.errors, signal: run.status, root: Rig.packageRoot)
        #expect(diagnosis.message?.contains("Attempted to read an unowned reference") == true)
        #expect(diagnosis.reading.contains("`assign` delegate"))
        #expect(diagnosis.hint?.contains("`weak`") == true)
        #expect(!diagnosis.reading.contains("data race"))
    }

    /// A segmentation fault on step 4's line that writes the cache from a
    /// download thread: a subscript, and the course's race.
    @Test func aCrashOnADictionaryWriteIsTheRaceStep5Fixes() throws {
        let line = try #require(Self.lineNumber(of: "self.imageCache[app.icon] = data", in: "Sources/Lesson04CacheDictionary/AppsViewController.swift"))
        let errors = """
            *** Program crashed: Bad pointer dereference at 0x0000000000000008 ***

            Thread 0 "main":
            0 0x00007f sigsuspend + 65 in libc.so.6

            Thread 3 crashed:

            0 0x00005 swift_retain + 10 in libswiftCore.so
            1 0x0000000000006 closure #1 in AppsViewController.tableView(_:cellForRowAt:) + 400 in Lesson04CacheDictionary at /x/Sources/Lesson04CacheDictionary/AppsViewController.swift:\(line):13
            """
        let diagnosis = CrashDiagnosis(errors: errors, signal: 11, root: Rig.packageRoot)
        #expect(diagnosis.message == nil)
        #expect(
            diagnosis.place
                == "Sources/Lesson04CacheDictionary/AppsViewController.swift:\(line):13 "
                + "(closure #1 in AppsViewController.tableView(_:cellForRowAt:))")
        #expect(diagnosis.reading.contains("data race step 5 fixes"))
    }

    /// A crash the course does not know is described, not guessed at.
    @Test func anUnknownCrashGetsNoGuess() {
        let errors =
            "Thread 2 crashed:\n0 0x0000001 main + 1 in Workbench at /x/Workbench/Sources/Workbench/Nowhere.swift:1:1\n"
        let diagnosis = CrashDiagnosis(errors: errors, signal: 4, root: Rig.packageRoot)
        #expect(diagnosis.hint == nil)
        #expect(diagnosis.reading.contains("none of the crashes the course knows"))
    }

    /// A crashed thread that never reached the learner's code is not shown
    /// as theirs: the harness's line is the suite's, and said so.
    @Test func aHarnessFrameIsNeverTheLearnersLine() {
        let errors = """
            *** Program crashed: Bad pointer dereference at 0x8 ***
            Thread 2 crashed:
            0 0x0000001 swift_retain + 10 in libswiftCore.so
            1 0x0000002 FrameRecorder.record() + 52 in Workbench at /x/Sources/LessonKit/FrameRecorder.swift:88:13
            """
        let diagnosis = CrashDiagnosis(errors: errors, signal: 11, root: Rig.packageRoot)
        #expect(diagnosis.place == nil)
        #expect(diagnosis.harnessPlace == "Sources/LessonKit/FrameRecorder.swift:88:13 (FrameRecorder.record())")
        #expect(diagnosis.summary.contains("where: not in your code"))
        #expect(diagnosis.reading.contains("the crashed thread never reached your code: it was in the suite's"))
        #expect(diagnosis.reading.contains("it is the suite's bug"))
    }

    /// A crash on top in the suite's code, called from the learner's: where
    /// it crashed is the suite's line, and what the runtime said of it is no
    /// advice for the learner's code.
    @Test func aHarnessFrameOnTopIsTheSuitesEvenBelowTheLearners() {
        let errors = """
            Fatal error: Index out of range
            *** Program crashed: System trap at 0x0000000000000001 ***
            Thread 0 "main" crashed:
            0 0x0000001 _assertionFailure(_:_:file:line:flags:) + 10 in libswiftCore.so
            1 0x0000002 TableView.reloadRows(at:) + 52 in Workbench at /x/Sources/TableKit/TableView.swift:88:13
            2 0x0000003 AppsViewController.downloadFinished(icon:image:at:) + 80 in Workbench at \
            /x/Workbench/Sources/Workbench/AppsViewController.swift:70:19
            """
        let diagnosis = CrashDiagnosis(errors: errors, signal: 5, root: Rig.packageRoot)
        #expect(diagnosis.harnessPlace == "Sources/TableKit/TableView.swift:88:13 (TableView.reloadRows(at:))")
        #expect(diagnosis.crashedAt == "your program crashed in the suite's code (Sources/TableKit/TableView.swift:88:13 (TableView.reloadRows(at:))), not in yours")
        #expect(
            diagnosis.reading
                == "it crashed in the suite's Sources/TableKit/TableView.swift:88:13 (TableView.reloadRows(at:)), "
                + "called from your Workbench/Sources/Workbench/AppsViewController.swift:70:19 "
                + "(AppsViewController.downloadFinished(icon:image:at:)). A data race in your code can corrupt what "
                + "the suite reads there; if your code shares nothing between threads, it is the suite's bug: "
                + "please report it")
        #expect(diagnosis.hint == nil)
        #expect(diagnosis.summary.contains("where: not in your code"))
    }

    static func lineNumber(of text: String, in file: String) -> Int? {
        let source = try? String(contentsOf: Rig.packageRoot.appendingPathComponent(file), encoding: .utf8)
        return source?.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(text) }
            .map { $0 + 1 }
    }
}
