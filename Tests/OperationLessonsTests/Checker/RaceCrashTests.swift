import Foundation
@testable import LessonChecks
import Testing

/// A crash in the Thread Sanitizer run is no evidence of a race, nor of none:
/// the race is not measured, at the learner's line, unless TSan reported a
/// race before it. Read from what TSan wrote when it caught the crash itself
/// (a program of the learner's shape built with `swiftc -sanitize=thread`,
/// run with `SWIFT_BACKTRACE=enable=no` as the race run is; its registers
/// left out, paths under /x).
@Suite struct RaceCrashTests {
    /// The learner's file that crashed.
    static let code = LearnerCode(files: [
        "AppsViewController.swift": """
        import Foundation

        final class Holder { var value = 1 }

        func crash(_ how: String) {
            if how == "segv" {
                let pointer = UnsafeMutablePointer<Int>(bitPattern: 8)!
                pointer.pointee = 1
            } else {
                let nothing: Holder? = CommandLine.arguments.count > 5 ? Holder() : nil
                print(nothing!.value)
            }
        }

        crash(CommandLine.arguments[1])

        """
    ])

    /// A bad pointer written through: TSan catches the SIGSEGV and exits 66, its report's status.
    static let segmentationFault = """
        ThreadSanitizer:DEADLYSIGNAL
        ==22531==ERROR: ThreadSanitizer: SEGV on unknown address 0x000000000008 (pc 0x55a7555456b7 bp 0x7fff91d6a430 sp 0x7fff91d6a2c0 T22531)
        ==22531==The signal is caused by a WRITE memory access.
        ==22531==Hint: address points to the zero page.
            #0 $s7crashes5crashyySSF /x/Workbench/Sources/Workbench/AppsViewController.swift:8:25 (crashes+0xfc6b7)
            #1 main /x/Workbench/Sources/Workbench/AppsViewController.swift:15:1 (crashes+0xfcd6d)
            #2 __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16 (libc.so.6+0x27249)
            #3 __libc_start_main csu/../csu/libc-start.c:360:3 (libc.so.6+0x27304)
            #4 _start <null> (crashes+0x493a0)

        ThreadSanitizer can not provide additional info.
        SUMMARY: ThreadSanitizer: SEGV /x/Workbench/Sources/Workbench/AppsViewController.swift:8:25 in $s7crashes5crashyySSF
        ==22531==ABORTING
        """

    /// A force unwrap of nil, with `TSAN_OPTIONS=handle_sigill=1`: TSan catches the trap too, and names the line
    /// (without it the trap is a plain SIGILL, and no stack reaches the learner's code).
    static let forceUnwrap = """
        crashes/AppsViewController.swift:11: Fatal error: Unexpectedly found nil while unwrapping an Optional value
        Current stack trace:
        0    libswiftCore.so                    0x00007fa1d4b5f130 swift_reportError + 33
        4    crashes                            0x000055f6240527ea <unavailable> + 1034218
        ThreadSanitizer:DEADLYSIGNAL
        ==22665==ERROR: ThreadSanitizer: ILL on unknown address 0x7fa1d4b6df7f (pc 0x7fa1d4b6df7f bp 0x7ffc779795d0 sp 0x7ffc779795b0 T22665)
            #0 $ss17_assertionFailure__4file4line5flagss5NeverOs12StaticStringV_A2HSus6UInt32VtFySRys5UInt8VGXEfU_yAMXEfU_ Swift.o (libswiftCore.so+0x16df7f)
            #1 $ss17_assertionFailure__4file4line5flagss5NeverOs12StaticStringV_A2HSus6UInt32VtF <null> (libswiftCore.so+0x2f961e)
            #2 $s7crashes5crashyySSF /x/Workbench/Sources/Workbench/AppsViewController.swift:11:22 (crashes+0xfc7e9)
            #3 main /x/Workbench/Sources/Workbench/AppsViewController.swift:15:1 (crashes+0xfcd6d)
            #4 __libc_start_call_main csu/../sysdeps/nptl/libc_start_call_main.h:58:16 (libc.so.6+0x27249)

        ThreadSanitizer can not provide additional info.
        SUMMARY: ThreadSanitizer: ILL Swift.o in $ss17_assertionFailure__4file4line5flagss5NeverOs12StaticStringV_A2HSus6UInt32VtFySRys5UInt8VGXEfU_yAMXEfU_
        ==22665==ABORTING
        """

    /// Exit status 66 and no signal: a crash all the same, never ✓.
    @Test func aCrashTheSanitizerCaughtLeavesTheRaceUnmeasuredAtTheLearnersLine() {
        let verdict = RaceCheck.judge(errors: Self.segmentationFault, crashed: false, code: Self.code)
        #expect(!verdict.passed && !verdict.wasMeasured)
        #expect(
            verdict.measured
                == "not measured: your program crashed at Workbench/Sources/Workbench/AppsViewController.swift:8:25 "
                + "(the Thread Sanitizer run)")
        #expect(
            verdict.diagnosis
                == "at Workbench/Sources/Workbench/AppsViewController.swift:8:25 · a crash, on a line that is none of "
                + "the crashes the course knows: read the line above")
    }

    @Test func aForceUnwrapTheSanitizerCaughtIsSaidAsOne() {
        let verdict = RaceCheck.judge(errors: Self.forceUnwrap, crashed: false, code: Self.code)
        #expect(!verdict.passed && !verdict.wasMeasured)
        #expect(
            verdict.measured
                == "not measured: your program crashed at Workbench/Sources/Workbench/AppsViewController.swift:11:22 "
                + "(the Thread Sanitizer run)")
        #expect(
            verdict.diagnosis
                == "Fatal error: Unexpectedly found nil while unwrapping an Optional value · at "
                + "Workbench/Sources/Workbench/AppsViewController.swift:11:22 · a force unwrap (`!`) of a value that "
                + "was nil · try: Unwrap with `if let` or `guard let` instead of `!`.")
        #expect(verdict.hint == "Unwrap with `if let` or `guard let` instead of `!`.")
    }

    /// A race reported before the crash is measured: the race's verdict, and that the run crashed.
    @Test func aRaceReportedBeforeTheCrashIsTheVerdict() {
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Sources/Lesson04CacheDictionary"))
        let verdict = RaceCheck.judge(
            errors: RaceReportTests.cacheRace + "\n" + Self.segmentationFault, crashed: false, code: code)
        #expect(!verdict.passed && verdict.wasMeasured)
        #expect(
            verdict.measured
                == "1 Thread Sanitizer report (first: Sources/Lesson04CacheDictionary/AppsViewController.swift:51:39) "
                + "· the run crashed")
        #expect(verdict.hint == RaceReportTests.cacheHint)
    }
}
