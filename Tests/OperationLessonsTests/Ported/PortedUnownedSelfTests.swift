import Foundation
import Testing

@testable import LessonChecks

/// A learner's `[unowned self]` crashes when the controller leaves while a
/// download runs; the runtime's backtrace of the crashed thread stops in
/// libc, so only the learner's files can say which `unowned` it was. Said
/// of a closure's capture, not of the tutorials' `assign` delegate, which
/// that code does not have.
@Suite struct PortedUnownedSelfTests {
    /// What the workbench wrote when it crashed on `leave-while-loading`, cut
    /// to the lines that are read.
    static let errors = """
        Fatal error: Attempted to read an unowned reference but object 0x7f4b8c003350 was already destroyed

        *** Program crashed: Aborted at 0x0000000000006b98 ***

        Thread 5 "-qos.overcommit" crashed:

          0  0x00007f4b9b6cfeec __pthread_kill_implementation + 268 in libc.so.6
        ...
        """

    @Test func anUnownedSelfCaptureIsNotCalledADelegate() {
        let code = PortedTutorialTests.code("PortedUnownedSelf.swift")
        let diagnosis = CrashDiagnosis(errors: Self.errors, signal: 6, code: code)
        #expect(diagnosis.place == nil && diagnosis.harnessPlace == nil)
        #expect(diagnosis.reading.hasPrefix("a closure's `[unowned self]` used after the controller was freed"))
        #expect(diagnosis.hint?.hasPrefix("Capture `[weak self]` instead") == true)
        #expect(!diagnosis.line.contains("delegate"))
    }

    @Test func anUnownedPropertyIsStillTheAssignDelegate() {
        let code = LearnerCode(files: ["A.swift": "private unowned var assigned: (any DownloadOperationDelegate)?"])
        let diagnosis = CrashDiagnosis(errors: Self.errors, signal: 6, code: code)
        #expect(diagnosis.reading.contains("`assign` delegate") && diagnosis.hint?.contains("delegate `weak`") == true)
    }
}
