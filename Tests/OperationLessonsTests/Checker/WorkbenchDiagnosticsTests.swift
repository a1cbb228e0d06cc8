import Foundation
import LessonChecks
import Testing

/// What `lessons check` makes of what the compiler and a crashed workbench
/// wrote. The inputs are real: a `swift build` of a workbench with an unknown
/// type in a property, and `Workbench --check 2` crashing on an index out of
/// range in `cellForRowAt` (both in a copy of the package at /tmp/rob-pkg).
@Suite struct WorkbenchDiagnosticsTests {
    static let buildLog = #"""
        [0/1] Planning build
        Building for debugging...
        [0/2] Write swift-version-6A52383ED409C6A7.txt
        [2/4] Compiling Workbench AppsViewController.swift
        /tmp/rob-pkg/Sources/Workbench/AppsViewController.swift:11:25: error: cannot find type 'NoSuchImage' in scope
         9 |     let network: SlowNetwork
        10 |     let catalogURL: URL
        11 |     var cache: [String: NoSuchImage] = [:]
           |                         `- error: cannot find type 'NoSuchImage' in scope
        12 |\#u{20}
        13 |     /// The model, loaded the first time the table asks for it.
        error: emit-module command failed with exit code 1 (use -v to see invocation)
        [3/4] Emitting module Workbench
        /tmp/rob-pkg/Sources/Workbench/AppsViewController.swift:11:25: error: cannot find type 'NoSuchImage' in scope
         9 |     let network: SlowNetwork
        10 |     let catalogURL: URL
        11 |     var cache: [String: NoSuchImage] = [:]
           |                         `- error: cannot find type 'NoSuchImage' in scope
        12 |\#u{20}
        13 |     /// The model, loaded the first time the table asks for it.
        """#

    static let crash = #"""
        Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range
        swift-runtime: failed to suspend thread 12032 while processing a crash; backtraces will be missing information
        swift-runtime: failed to suspend thread 12032 while processing a crash; backtraces will be missing information

        *** Signal 4: Backtracing from 0x7f753236df7f... done ***

        *** Program crashed: Illegal instruction at 0x00007f753236df7f ***

        Platform: x86_64 Linux (Debian GNU/Linux 12 (bookworm))

        Thread 0 "Workbench":

          0      0x00007f7530e5a301 sigsuspend + 65 in libc.so.6
          1 [ra] 0x00007f7532097c29 _dispatch_sig_thread + 8 in libdispatch.so
        ...

        Thread 1 "oot.default-qos":

          0  0x00007f7530ea3f16 __futex_abstimed_wait_common + 198 in libc.so.6
        ...

        Thread 2 "-qos.overcommit":

          0      0x00007f7530f26f36 epoll_wait + 86 in libc.so.6
          1 [ra] 0x00007f7532096ff2 _dispatch_mgr_invoke + 129 in libdispatch.so
          2 [ra] 0x00007f7532096f5d _dispatch_mgr_thread + 108 in libdispatch.so
          3 [ra] 0x00007f753209a195 _dispatch_worker_thread + 676 in libdispatch.so
        ...

        Thread 3 "-qos.overcommit" crashed:

          0              0x00007f753236df7f closure #1 in closure #1 in _assertionFailure(_:_:file:line:flags:) + 623 in libswiftCore.so
          1 [ra]         0x00007f75324f961f _assertionFailure(_:_:file:line:flags:) + 302 in libswiftCore.so
          2 [ra]         0x00007f7532aa1f65 specialized Array.subscript.getter + 84 in libswiftSwiftOnoneSupport.so
          3 [ra]         0x000055caec2c7a23 AppsViewController.tableView(_:cellForRowAt:) + 658 in Workbench at /tmp/rob-pkg/Workbench/Sources/Workbench/AppsViewController.swift:39:20
          4 [ra] [thunk] 0x000055caec2bbf51 protocol witness for TableViewDataSource.tableView(_:cellForRowAt:) in conformance TableViewController + 16 in Workbench at //<compiler-generated>
          5 [ra]         0x000055caec2b899b TableView.installCell(at:) + 426 in Workbench at /tmp/rob-pkg/Sources/TableKit/TableView.swift:130:40
          6 [ra]         0x000055caec2b87bb TableView.layoutRows() + 970 in Workbench at /tmp/rob-pkg/Sources/TableKit/TableView.swift:124:58
          7 [ra]         0x000055caec2bb125 TableView.reloadData() + 1044 in Workbench at /tmp/rob-pkg/Sources/TableKit/TableView.swift:74:9
          8 [ra]         0x000055caec23c09d ActiveRun.launchController() + 1020 in Workbench at /tmp/rob-pkg/Sources/LessonKit/ScenarioRunner.swift:192:30
          9 [ra]         0x000055caec24eea3 ActiveRun.start() + 434 in Workbench at /tmp/rob-pkg/Sources/LessonKit/ScenarioRunner.swift:173:9
         10 [ra]         0x000055caec239eb6 closure #1 in closure #1 in static ScenarioRunner.run(_:) + 341 in Workbench at /tmp/rob-pkg/Sources/LessonKit/ScenarioRunner.swift:73:79
        """#

    /// The module's interface and its code are compiled by two jobs, and both
    /// report an error in a declaration: the learner reads it once.
    @Test func eachCompilerErrorIsShownOnce() {
        let shown = WorkbenchDiagnostics.compilerErrors(Self.buildLog, root: URL(fileURLWithPath: "/tmp/rob-pkg"))
        #expect(
            shown == """
                Sources/Workbench/AppsViewController.swift:11:25: error: cannot find type 'NoSuchImage' in scope
                 9 |     let network: SlowNetwork
                10 |     let catalogURL: URL
                11 |     var cache: [String: NoSuchImage] = [:]
                   |                         `- error: cannot find type 'NoSuchImage' in scope
                12 |\u{20}
                13 |     /// The model, loaded the first time the table asks for it.
                """)
    }

    /// The runtime's own words ("Fatal error: …") come first, then the
    /// learner's line in the thread that crashed.
    @Test func aCrashSaysTheFatalErrorAndTheLearnersLine() {
        #expect(
            WorkbenchDiagnostics.crashSummary(Self.crash)
                == "Fatal error: Index out of range, in Workbench/Sources/Workbench/AppsViewController.swift:39:20 "
                + "(AppsViewController.tableView(_:cellForRowAt:))")
    }

    /// A real `swift build` of the workbench, made after a file was added to
    /// `Sources/TableKit` (and called from `TableView.swift`) since the
    /// workbench's last build: SwiftPM kept its old list of TableKit's files.
    /// Every error is in the suite's sources.
    static let staleBuildLog = #"""
        Building for debugging...
        [0/3] Write sources
        [1/3] Write swift-version-6A52383ED409C6A7.txt
        [3/5] Compiling TableKit TableView.swift
        /tmp/pkg/Sources/TableKit/TableView.swift:79:28: error: cannot find 'staleProbeTwo' in scope
         77 |     /// Forgets every visible cell and asks the data source again.
         78 |     public func reloadData() {
         79 |         _ = staleProbe() + staleProbeTwo()
            |                            `- error: cannot find 'staleProbeTwo' in scope
         80 |         MainQueue.check("TableView.reloadData called off the main queue", in: instruments)
         81 |         for row in visibleCells.keys.sorted() { recycleCell(at: row) }
        [4/5] Emitting module TableKit
        """#

    /// A build whose errors are all in the suite's own sources is the suite's
    /// failure, not the learner's: its first error is named for the sentence
    /// that says so. One error in the learner's files makes it theirs again.
    @Test func aBuildThatFailsOnlyInTheSuitesSourcesIsNotTheLearners() throws {
        let root = URL(fileURLWithPath: "/tmp/pkg")
        let error = try #require(WorkbenchDiagnostics.suitesOwnError(Self.staleBuildLog, root: root))
        #expect(error == "Sources/TableKit/TableView.swift:79:28: error: cannot find 'staleProbeTwo' in scope")
        #expect(
            WorkbenchDiagnostics.suiteFailedToBuild(firstError: error)
                == "The suite itself failed to build, twice, with no error in your files "
                + "(Sources/TableKit/TableView.swift:79: cannot find 'staleProbeTwo' in scope): that is the suite's "
                + "bug, not yours; please report it.")
        let learners =
            Self.staleBuildLog + "\n"
            + "/tmp/pkg/Workbench/Sources/Workbench/AppsViewController.swift:11:25: error: cannot find type 'X' in scope"
        #expect(WorkbenchDiagnostics.suitesOwnError(learners, root: root) == nil)
        // A failure that names no file (a link error) is nobody's to place: shown as it is.
        #expect(WorkbenchDiagnostics.suitesOwnError("error: link command failed with exit code 1", root: root) == nil)
    }
}
