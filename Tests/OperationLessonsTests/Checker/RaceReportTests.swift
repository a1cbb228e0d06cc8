import Foundation
@testable import LessonChecks
import Testing

/// The race verdict says what Thread Sanitizer saw, in the learner's words:
/// read from a report as TSan wrote it: the first report of
/// `RecordRaceFixture --marks-downloading --scenario fast-scroll-slow-rows`,
/// of each stack its first five frames and those of the code under test, of
/// its operation and of the scenario's turn, paths under /x.
@Suite struct RaceReportTests {
    static let recordRace = """
            ==================
            WARNING: ThreadSanitizer: data race (pid=1899)
              Read of size 1 at 0x721000004630 by thread T4:
                #0 $s17RecordRaceFixture0A14ViewControllerC05tableD0_12cellForRowAt8TableKit0kD4CellCAF0kD0C_20FoundationEssentials9IndexPathVtF /x/Tests/Fixtures/RecordRace/RecordViewController.swift:107:23 (RecordRaceFixture+0x3753c0)
                #1 $s8TableKit0A14ViewControllerCAA0aC10DataSourceA2aDP05tableC0_12cellForRowAtAA0aC4CellCAA0aC0C_20FoundationEssentials9IndexPathVtFTW /<compiler-generated> (RecordRaceFixture+0x3c43d6)
                #2 $s8TableKit0A4ViewC11installCell33_2F3D08A66C676FBADB81EC9638829135LL2atySi_tF /x/Sources/TableKit/TableView.swift:163:40 (RecordRaceFixture+0x3bd3ad)
                #3 $s8TableKit0A4ViewC10layoutRows33_2F3D08A66C676FBADB81EC9638829135LLyyF /x/Sources/TableKit/TableView.swift:155:58 (RecordRaceFixture+0x3bcd1b)
                #4 $s8TableKit0A4ViewC16setContentOffsetyySdF /x/Sources/TableKit/TableView.swift:102:9 (RecordRaceFixture+0x3c2e6e)
                #13 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC8asTheAppyyyyXEF /x/Sources/LessonKit/Engine/ScenarioRunner.swift:187:9 (RecordRaceFixture+0x27733a)

              Previous write of size 1 at 0x721000004630 by thread T7:
                #0 $s17RecordRaceFixture17MarkingDownloaderC4mainyyF /x/Tests/Fixtures/RecordRace/RecordViewController.swift:141:22 (RecordRaceFixture+0x376006)
                #1 $s10Foundation14OperationQueueC8_executeyyAA0B0CF <null> (libFoundation.so+0x34112e)
                #2 __tsan::dispatch_callback_wrap(void*) /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_libdispatch.cpp:140:3 (RecordRaceFixture+0x1234bc)
                #3 _dispatch_continuation_pop crtstuff.c (libdispatch.so+0x2c087)

              Location is heap block of size 64 at 0x721000004600 allocated by thread T4:
                #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (RecordRaceFixture+0xa5b20)
                #1 swift_slowAlloc <null> (libswiftCore.so+0x46fa6e)
                #2 $s17RecordRaceFixture0A14ViewControllerC7recordsSayAA04IconA0CGvgAGyXEfU_AfA7AppInfoVXEfU_ /x/Tests/Fixtures/RecordRace/RecordViewController.swift:78:27 (RecordRaceFixture+0x36e021)
                #3 $sSlsE3mapySayqd__Gqd__7ElementQzqd_0_YKXEqd_0_YKs5ErrorRd_0_r0_lF /<compiler-generated> (RecordRaceFixture+0x12c99d)
                #4 $s17RecordRaceFixture0A14ViewControllerC7recordsSayAA04IconA0CGvgAGyXEfU_ /x/Tests/Fixtures/RecordRace/RecordViewController.swift:78:21 (RecordRaceFixture+0x36dd13)
                #5 $s17RecordRaceFixture0A14ViewControllerC7recordsSayAA04IconA0CGvg /x/Tests/Fixtures/RecordRace/RecordViewController.swift:74:38 (RecordRaceFixture+0x37492c)
                #6 $s17RecordRaceFixture0A14ViewControllerC05tableD0_21numberOfRowsInSectionSi8TableKit0lD0C_SitF /x/Tests/Fixtures/RecordRace/RecordViewController.swift:99:9 (RecordRaceFixture+0x374ffc)
                #12 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC8asTheAppyyyyXEF /x/Sources/LessonKit/Engine/ScenarioRunner.swift:187:9 (RecordRaceFixture+0x27733a)

              Thread T4 '-qos.overcommit' (tid=2135, running) created by thread T1 at:
                #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (RecordRaceFixture+0xa770a)
                #1 _dispatch_root_queue_poke_slow queue.c (libdispatch.so+0x32195)
                #2 dispatch_async /x/Sources/DispatchSeam/DispatchSeam.c:300:68 (RecordRaceFixture+0x1287b2)
                #3 $s8Dispatch0A5QueueC5async5group3qos5flags7executeyAA0A5GroupCSg_AA0A3QoSVAA0A13WorkItemFlagsVyyYbXBtF <null> (libswiftDispatch.so+0x1e2e0)
                #4 $s9LessonKit14ScenarioRunnerO3runyAA0C6ResultVAA0C5SetupVYaFZyScCyAFs5NeverOGXEfU_TA /<compiler-generated> (RecordRaceFixture+0x273a91)

              Thread T7 '-qos.overcommit' (tid=2185, running) created by thread T5 at:
                #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (RecordRaceFixture+0xa770a)
                #1 _dispatch_root_queue_poke_slow queue.c (libdispatch.so+0x32195)

            SUMMARY: ThreadSanitizer: data race /work/h2-words/Tests/Fixtures/RecordRace/RecordViewController.swift:107:23 in $s17RecordRaceFixture0A14ViewControllerC05tableD0_12cellForRowAt8TableKit0kD4CellCAF0kD0C_20FoundationEssentials9IndexPathVtF
            """

    static let recordCode = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Tests/Fixtures/RecordRace"))

    /// What the race check says of the record race, its threads as TSan numbered them in the run.
    static func recordDiagnosis(mainQueue: some StringProtocol, download: some StringProtocol) -> String {
        "`record.state` (of an `IconRecord`) read on the main queue (\(mainQueue)) at "
            + "Tests/Fixtures/RecordRace/RecordViewController.swift:107:23 and written by \(download), in an "
            + "operation, at Tests/Fixtures/RecordRace/RecordViewController.swift:141:22, with nothing ordering the two"
    }

    static let recordHint =
        "On which queue does your code write `record.state`, and on which does it read it? Touch it from one queue "
        + "only (hand the result to the main queue, and write it there). Look at RecordViewController.swift:107:23 "
        + "(`RecordViewController.tableView(…)`) and RecordViewController.swift:141:22 (`MarkingDownloader.main(…)`)."

    /// The row's title when what raced is a record's `state`, not a cache.
    static let recordTitle = "a data race on `record.state` (of an `IconRecord`)"

    /// One row of the exercise's table (its name is the key the counts go by), titled by what raced.
    @Test func aModelRecordRaceNamesTheRecordsVariableAndBothLines() {
        let verdict = RaceCheck.judge(errors: Self.recordRace, crashed: false, code: Self.recordCode)
        #expect(!verdict.passed && verdict.wasMeasured)
        #expect(verdict.bug == RaceCheck.bug.name)
        #expect(verdict.shape == Self.recordTitle)
        #expect(verdict.diagnosis == Self.recordDiagnosis(mainQueue: "thread T4", download: "thread T7"))
        #expect(verdict.hint == Self.recordHint)
        #expect(
            [verdict.asSafeguard].renderedBugs == """
                ✗ broken    a data race on `record.state` (of an `IconRecord`)
                    measured: 1 Thread Sanitizer report (first: Tests/Fixtures/RecordRace/RecordViewController.swift:107:23)
                    expected: 0 Thread Sanitizer reports, no crash
                    seen:     \(Self.recordDiagnosis(mainQueue: "thread T4", download: "thread T7"))
                    hint:     \(Self.recordHint)
                """)
        #expect(
            [verdict.asSafeguard].summary(exercise: 6).hasPrefix(
                "Exercise 6 not solved yet: 0 of 2 bugs fixed; broken on the way: \(Self.recordTitle).")
        )
    }

    /// The first report of `RecordRaceFixture --counts-downloads --scenario
    /// fast-scroll-slow-rows` (4 reports in that run, all of this count): the
    /// download thread counts a plain `Int` of the controller while
    /// `cellForRowAt` reads it on the main queue. Cut as `recordRace` is.
    static let countRace = """
        ==================
        WARNING: ThreadSanitizer: data race (pid=16973)
          Read of size 8 at 0x7214000050e0 by thread T4:
            #0 $s17RecordRaceFixture08CountingA14ViewControllerC17downloadsUnderWaySivg /<compiler-generated> (RecordRaceFixture+0x370b4a)
            #1 $s17RecordRaceFixture08CountingA14ViewControllerC05tableE0_12cellForRowAt8TableKit0lE4CellCAF0lE0C_20FoundationEssentials9IndexPathVtF /x/Tests/Fixtures/RecordRace/CountingRecordViewController.swift:29:37 (RecordRaceFixture+0x370eb9)
            #2 $s8TableKit0A14ViewControllerCAA0aC10DataSourceA2aDP05tableC0_12cellForRowAtAA0aC4CellCAA0aC0C_20FoundationEssentials9IndexPathVtFTW /<compiler-generated> (RecordRaceFixture+0x3c9586)
            #3 $s8TableKit0A4ViewC11installCell33_2F3D08A66C676FBADB81EC9638829135LL2atySi_tF /x/Sources/TableKit/TableView.swift:163:40 (RecordRaceFixture+0x3c255d)
            #4 $s8TableKit0A4ViewC10layoutRows33_2F3D08A66C676FBADB81EC9638829135LLyyF /x/Sources/TableKit/TableView.swift:155:58 (RecordRaceFixture+0x3c1ecb)
            #7 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC5startyyFyyXEfU_ /x/Sources/LessonKit/Engine/ScenarioRunner.swift:176:17 (RecordRaceFixture+0x277cc0)
            #9 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC8asTheAppyyyyXEF /x/Sources/LessonKit/Engine/ScenarioRunner.swift:189:9 (RecordRaceFixture+0x27837a)
            #10 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC5startyyF /x/Sources/LessonKit/Engine/ScenarioRunner.swift:170:9 (RecordRaceFixture+0x295348)
            #11 $s9LessonKit14ScenarioRunnerO3runyAA0C6ResultVAA0C5SetupVYaFZyScCyAFs5NeverOGXEfU_yyYbScMYccfU_ /x/Sources/LessonKit/Engine/ScenarioRunner.swift:87:79 (RecordRaceFixture+0x274c59)

          Previous write of size 1 at 0x7214000050e0 by thread T5:
            #0 $s17RecordRaceFixture18CountingDownloaderC4mainyyF /x/Tests/Fixtures/RecordRace/CountingRecordViewController.swift:15:39 (RecordRaceFixture+0x3707dd)
            #1 $s10Foundation14OperationQueueC8_executeyyAA0B0CF <null> (libFoundation.so+0x34112e)
            #2 __tsan::dispatch_callback_wrap(void*) /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_libdispatch.cpp:140:3 (RecordRaceFixture+0x12446c)
            #3 _dispatch_continuation_pop crtstuff.c (libdispatch.so+0x2c087)

          Location is heap block of size 72 at 0x7214000050a0 allocated by thread T4:
            #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (RecordRaceFixture+0xa6ad0)
            #1 swift_slowAlloc <null> (libswiftCore.so+0x46fa6e)
            #2 $s17RecordRaceFixture0A14ViewControllerC13LessonSupport0fE0AadEP11environmentxAD0F11EnvironmentV_tcfCTW /<compiler-generated> (RecordRaceFixture+0x3741e0)
            #3 $s9LessonKit11LaunchedAppC6launchyyF /x/Sources/LessonKit/Engine/LaunchedApp.swift:35:31 (RecordRaceFixture+0x1d2c3e)
            #4 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC5startyyFyyXEfU_ /x/Sources/LessonKit/Engine/ScenarioRunner.swift:176:17 (RecordRaceFixture+0x277cc0)
            #6 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC8asTheAppyyyyXEF /x/Sources/LessonKit/Engine/ScenarioRunner.swift:189:9 (RecordRaceFixture+0x27837a)
            #7 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC5startyyF /x/Sources/LessonKit/Engine/ScenarioRunner.swift:170:9 (RecordRaceFixture+0x295348)
            #8 $s9LessonKit14ScenarioRunnerO3runyAA0C6ResultVAA0C5SetupVYaFZyScCyAFs5NeverOGXEfU_yyYbScMYccfU_ /x/Sources/LessonKit/Engine/ScenarioRunner.swift:87:79 (RecordRaceFixture+0x274c59)

          Thread T4 '-qos.overcommit' (tid=16993, running) created by thread T1 at:
            #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (RecordRaceFixture+0xa86ba)
            #1 _dispatch_root_queue_poke_slow queue.c (libdispatch.so+0x32195)

          Thread T5 '-qos.overcommit' (tid=16994, running) created by thread T4 at:
            #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (RecordRaceFixture+0xa86ba)
            #1 _dispatch_root_queue_poke_slow queue.c (libdispatch.so+0x32195)

        SUMMARY: ThreadSanitizer: data race /<compiler-generated> in $s17RecordRaceFixture08CountingA14ViewControllerC17downloadsUnderWaySivg
        """

    @Test func aRaceOnAPlainPropertyOfTheControllerIsSaidAsMeasured() {
        let verdict = RaceCheck.judge(errors: Self.countRace, crashed: false, code: Self.recordCode)
        #expect(!verdict.passed && verdict.wasMeasured)
        #expect(verdict.bug == RaceCheck.bug.name)
        // Its summary names the compiler-generated getter: the first line is the first frame in the code.
        #expect(
            verdict.measured
                == "1 Thread Sanitizer report (first: Tests/Fixtures/RecordRace/CountingRecordViewController.swift:29:37)")
        #expect(verdict.shape == "a data race on `downloadsUnderWay` (of a `CountingRecordViewController`)")
        #expect(
            verdict.diagnosis
                == "`downloadsUnderWay` (of a `CountingRecordViewController`) read on the main queue (thread T4) at "
                + "Tests/Fixtures/RecordRace/CountingRecordViewController.swift:29:37 and written by thread T5, in an "
                + "operation, at Tests/Fixtures/RecordRace/CountingRecordViewController.swift:15:39, with nothing "
                + "ordering the two")
        #expect(
            verdict.hint
                == "On which queue does your code write `downloadsUnderWay`, and on which does it read it? Touch it "
                + "from one queue only (hand the result to the main queue, and write it there). Look at "
                + "CountingRecordViewController.swift:29:37 (`CountingRecordViewController.tableView(…)`) and "
                + "CountingRecordViewController.swift:15:39 (`CountingDownloader.main(…)`).")
    }

    /// Step 4's first report: two download threads writing its cache at
    /// once. The cache is what the bug's own hint points at: that hint stays.
    static let cacheRace = """
            WARNING: ThreadSanitizer: Swift access race (pid=2082)
              Modifying access of Swift variable at 0x721400005040 by thread T58:
                #0 $s23Lesson04CacheDictionary18AppsViewControllerC05imageB0SDySS8TableKit5ImageCGvM /<compiler-generated> (Lesson04CacheDictionary+0x12d62c)
                #1 $s23Lesson04CacheDictionary18AppsViewControllerC05tableE0_12cellForRowAt8TableKit0lE4CellCAF0lE0C_20FoundationEssentials9IndexPathVtFyyYbcfU_ /x/Sources/Lesson04CacheDictionary/AppsViewController.swift:51:39 (Lesson04CacheDictionary+0x12a75a)
                #2 $s23Lesson04CacheDictionary18AppsViewControllerC05tableE0_12cellForRowAt8TableKit0lE4CellCAF0lE0C_20FoundationEssentials9IndexPathVtFyyYbcfU_TA /<compiler-generated> (Lesson04CacheDictionary+0x12ab5c)
                #3 $sIegh_ytIeghr_TRTA AffineTransform.swift.o (libFoundation.so+0x33da20)
                #4 __tsan::dispatch_callback_wrap(void*) /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_libdispatch.cpp:140:3 (Lesson04CacheDictionary+0x11ecec)

              Previous modifying access of Swift variable at 0x721400005040 by thread T16:
                #0 $s23Lesson04CacheDictionary18AppsViewControllerC05imageB0SDySS8TableKit5ImageCGvM /<compiler-generated> (Lesson04CacheDictionary+0x12d62c)
                #1 $s23Lesson04CacheDictionary18AppsViewControllerC05tableE0_12cellForRowAt8TableKit0lE4CellCAF0lE0C_20FoundationEssentials9IndexPathVtFyyYbcfU_ /x/Sources/Lesson04CacheDictionary/AppsViewController.swift:51:39 (Lesson04CacheDictionary+0x12a75a)
                #2 $s23Lesson04CacheDictionary18AppsViewControllerC05tableE0_12cellForRowAt8TableKit0lE4CellCAF0lE0C_20FoundationEssentials9IndexPathVtFyyYbcfU_TA /<compiler-generated> (Lesson04CacheDictionary+0x12ab5c)
                #3 $sIegh_ytIeghr_TRTA AffineTransform.swift.o (libFoundation.so+0x33da20)
                #4 __tsan::dispatch_callback_wrap(void*) /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_libdispatch.cpp:140:3 (Lesson04CacheDictionary+0x11ecec)

              Location is heap block of size 72 at 0x721400005000 allocated by thread T3:
                #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (Lesson04CacheDictionary+0xa1350)
                #1 swift_slowAlloc <null> (libswiftCore.so+0x46fa6e)
                #2 $s23Lesson04CacheDictionary18AppsViewControllerC13LessonSupport0gF0AadEP11environmentxAD0G11EnvironmentV_tcfCTW /<compiler-generated> (Lesson04CacheDictionary+0x12b3b0)
                #3 $s9LessonKit11LaunchedAppC6launchyyF /x/Sources/LessonKit/Engine/LaunchedApp.swift:35:31 (Lesson04CacheDictionary+0x1d4ece)
                #4 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC5startyyFyyXEfU_ /x/Sources/LessonKit/Engine/ScenarioRunner.swift:174:17 (Lesson04CacheDictionary+0x279ec0)
                #5 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC5startyyFyyXEfU_TA /<compiler-generated> (Lesson04CacheDictionary+0x27a14d)
                #6 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC8asTheAppyyyyXEF /x/Sources/LessonKit/Engine/ScenarioRunner.swift:187:9 (Lesson04CacheDictionary+0x27a57a)
                #7 $s9LessonKit9ActiveRun33_374AEBFFCA50DDCC92B97CCC1C555B5ALLC5startyyF /x/Sources/LessonKit/Engine/ScenarioRunner.swift:168:9 (Lesson04CacheDictionary+0x292d58)
                #8 $s9LessonKit14ScenarioRunnerO3runyAA0C6ResultVAA0C5SetupVYaFZyScCyAFs5NeverOGXEfU_yyYbScMYccfU_ /x/Sources/LessonKit/Engine/ScenarioRunner.swift:87:79 (Lesson04CacheDictionary+0x276ee9)
                #9 $s9LessonKit14ScenarioRunnerO3runyAA0C6ResultVAA0C5SetupVYaFZyScCyAFs5NeverOGXEfU_yyYbScMYccfU_TA /<compiler-generated> (Lesson04CacheDictionary+0x28fdf6)
                #10 $sIegh_IeyBh_TR /<compiler-generated> (Lesson04CacheDictionary+0x277052)
                #11 __tsan::invoke_and_release_block(void*) /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_libdispatch.cpp:155:3 (Lesson04CacheDictionary+0x11eea6)

              Thread T58 '-qos.overcommit' (tid=2141, running) created by thread T57 at:
                #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (Lesson04CacheDictionary+0xa2f3a)
                #1 _dispatch_root_queue_poke_slow queue.c (libdispatch.so+0x32195)

              Thread T16 '-qos.overcommit' (tid=2099, running) created by thread T15 at:
                #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (Lesson04CacheDictionary+0xa2f3a)
                #1 _dispatch_root_queue_poke_slow queue.c (libdispatch.so+0x32195)

              Thread T3 '-qos.overcommit' (tid=2086, running) created by thread T1 at:
                #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (Lesson04CacheDictionary+0xa2f3a)
                #1 _dispatch_root_queue_poke_slow queue.c (libdispatch.so+0x32195)
                #2 dispatch_async /x/Sources/DispatchSeam/DispatchSeam.c:300:68 (Lesson04CacheDictionary+0x123fe2)
                #3 $s8Dispatch0A5QueueC5async5group3qos5flags7executeyAA0A5GroupCSg_AA0A3QoSVAA0A13WorkItemFlagsVyyYbXBtF <null> (libswiftDispatch.so+0x1e2e0)
                #4 $s9LessonKit14ScenarioRunnerO3runyAA0C6ResultVAA0C5SetupVYaFZyScCyAFs5NeverOGXEfU_TA /<compiler-generated> (Lesson04CacheDictionary+0x276cd1)

            SUMMARY: ThreadSanitizer: Swift access race /<compiler-generated> in $s23Lesson04CacheDictionary18AppsViewControllerC05imageB0SDySS8TableKit5ImageCGvM
            """

    /// A dictionary the controller declares (`var imageCache: [String: Image]`), written by download threads:
    /// the bug's own shape, its own name and hint.
    @Test func stepFoursCacheKeepsTheBugsOwnHint() {
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Sources/Lesson04CacheDictionary"))
        let verdict = RaceCheck.judge(errors: Self.cacheRace, crashed: false, code: code)
        #expect(verdict.shape == nil && verdict.title == "the cache is written from download threads (a data race)")
        #expect(
            verdict.measured
                == "1 Thread Sanitizer report (first: Sources/Lesson04CacheDictionary/AppsViewController.swift:51:39)")
        #expect(
            verdict.diagnosis
                == "`imageCache` (of an `AppsViewController`) written by thread T58, in an operation, at "
                + "Sources/Lesson04CacheDictionary/AppsViewController.swift:51:39 and written by thread T16, in an "
                + "operation, at Sources/Lesson04CacheDictionary/AppsViewController.swift:51:39, with nothing ordering "
                + "the two")
        #expect(verdict.hint == Self.cacheHint)
    }

    /// The first report of step 4's race build (`OPERATION_LESSONS_RACE_BUILD=1`), whole, paths under /x: a
    /// download writes the cache (51:39) after the main queue read it in `cellForRowAt` (42:9), in a
    /// `reloadRows` the download handed to `OperationQueue.main`, outside the harness's turns: the Dispatch
    /// seam's frame (`seam_main_queue_work`) says it is the main queue's.
    static let cacheReadRace = """
        WARNING: ThreadSanitizer: Swift access race (pid=5070)
          Modifying access of Swift variable at 0x721400005040 by thread T6:
            #0 $s23Lesson04CacheDictionary18AppsViewControllerC05imageB0SDySS8TableKit5ImageCGvM /<compiler-generated> (Lesson04CacheDictionary+0x12bb8c)
            #1 $s23Lesson04CacheDictionary18AppsViewControllerC05tableE0_12cellForRowAt8TableKit0lE4CellCAF0lE0C_20FoundationEssentials9IndexPathVtFyyYbcfU_ /x/Sources/Lesson04CacheDictionary/AppsViewController.swift:51:39 (Lesson04CacheDictionary+0x128cba)
            #2 $s23Lesson04CacheDictionary18AppsViewControllerC05tableE0_12cellForRowAt8TableKit0lE4CellCAF0lE0C_20FoundationEssentials9IndexPathVtFyyYbcfU_TA /<compiler-generated> (Lesson04CacheDictionary+0x1290bc)
            #3 $sIegh_ytIeghr_TRTA AffineTransform.swift.o (libFoundation.so+0x33da20)
            #4 _dispatch_continuation_pop crtstuff.c (libdispatch.so+0x2c087)

          Previous read of size 8 at 0x721400005040 by thread T4:
            #0 $s23Lesson04CacheDictionary18AppsViewControllerC05imageB0SDySS8TableKit5ImageCGvg /<compiler-generated> (Lesson04CacheDictionary+0x12ba8a)
            #1 $s23Lesson04CacheDictionary18AppsViewControllerC05tableE0_12cellForRowAt8TableKit0lE4CellCAF0lE0C_20FoundationEssentials9IndexPathVtF /x/Sources/Lesson04CacheDictionary/AppsViewController.swift:42:9 (Lesson04CacheDictionary+0x12c293)
            #2 $s8TableKit0A14ViewControllerCAA0aC10DataSourceA2aDP05tableC0_12cellForRowAtAA0aC4CellCAA0aC0C_20FoundationEssentials9IndexPathVtFTW /<compiler-generated> (Lesson04CacheDictionary+0x2d5db0)
            #3 $s23Lesson04CacheDictionary18AppsViewControllerC05tableE0_12cellForRowAt8TableKit0lE4CellCAF0lE0C_20FoundationEssentials9IndexPathVtFyyYbcfU_yyYbcfU1_TA /<compiler-generated> (Lesson04CacheDictionary+0x12af05)
            #4 $sIegh_ytIeghr_TRTA AffineTransform.swift.o (libFoundation.so+0x33da20)
            #5 seam_main_queue_work /x/Sources/DispatchSeam/DispatchSeam.c:278:5 (Lesson04CacheDictionary+0x125830)
            #6 _dispatch_lane_serial_drain crtstuff.c (libdispatch.so+0x2f112)

          Location is heap block of size 72 at 0x721400005000 allocated by thread T4:
            #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (Lesson04CacheDictionary+0xa1060)
            #1 swift_slowAlloc <null> (libswiftCore.so+0x46fa6e)
            #2 $s23Lesson04CacheDictionary18AppsViewControllerC13LessonSupport0gF0AadEP11environmentxAD0G11EnvironmentV_tcfCTW /<compiler-generated> (Lesson04CacheDictionary+0x129910)
            #3 $s9LessonKit11LaunchedAppC6launchyyF /x/Sources/LessonKit/Engine/LaunchedApp.swift:35:31 (Lesson04CacheDictionary+0x195238)
            #4 _dispatch_lane_serial_drain crtstuff.c (libdispatch.so+0x2f112)

          Thread T6 '-qos.overcommit' (tid=5077, running) created by thread T5 at:
            #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (Lesson04CacheDictionary+0xa2c4a)
            #1 _dispatch_root_queue_poke_slow queue.c (libdispatch.so+0x32195)

          Thread T4 '-qos.overcommit' (tid=5075, running) created by thread T1 at:
            #0 pthread_create /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:1094:3 (Lesson04CacheDictionary+0xa2c4a)
            #1 _dispatch_root_queue_poke_slow queue.c (libdispatch.so+0x32195)
            #2 dispatch_async /x/Sources/DispatchSeam/DispatchSeam.c:317:68 (Lesson04CacheDictionary+0x123bbe)
            #3 _dispatch_continuation_pop crtstuff.c (libdispatch.so+0x2c087)

        SUMMARY: ThreadSanitizer: Swift access race /<compiler-generated> in $s23Lesson04CacheDictionary18AppsViewControllerC05imageB0SDySS8TableKit5ImageCGvM
        """

    /// TSan points the read in `if let image = imageCache[app.icon]` at its `if`: the name is what the binding
    /// reads, so both lines name the cache, and the bug's own hint stays. The read is the main queue's, though
    /// made in no turn.
    @Test func aReadInAConditionalBindingNamesWhatItReads() {
        let code = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Sources/Lesson04CacheDictionary"))
        let verdict = RaceCheck.judge(errors: Self.cacheReadRace, crashed: false, code: code)
        #expect(verdict.shape == nil)
        #expect(
            verdict.diagnosis
                == "`imageCache` (of an `AppsViewController`) written by thread T6, in an operation, at "
                + "Sources/Lesson04CacheDictionary/AppsViewController.swift:51:39 and read on the main queue (thread T4) at "
                + "Sources/Lesson04CacheDictionary/AppsViewController.swift:42:9, with nothing ordering the two")
        #expect(verdict.hint == Self.cacheHint)
        let guarded = LearnerCode(files: [
            "A.swift": "        guard let image = self?.pictures[app.icon] else { return }"
        ])
        #expect(RaceReport.touched(at: "Workbench/A.swift:1:9", in: guarded) == "pictures")
    }

    /// Step 4's download is a `BlockOperation`: in the race build TSan shows its block called from a thunk it
    /// misnames (`$sIegh_ytIeghr_TRTA AffineTransform.swift.o (libFoundation.so+0x33da20)`, frame #3 of the write
    /// in `cacheReadRace`), and that is an operation; a thunk of the same name in the app's own module, which
    /// any closure may go through (a block on a Dispatch queue, a `Thread`'s), is not.
    @Test func aBlockOperationsBlockIsInAnOperation() throws {
        let frames = Self.cacheReadRace.split(separator: "\n").map(String.init).filter { $0.contains("    #") }
        let thunk = try #require(frames.first { $0.contains("$sIegh_ytIeghr_TRTA") })
        #expect(RaceReport.runsAnOperation(thunk))
        let report = try #require(RaceReport(errors: Self.cacheReadRace, codeFolders: ["Sources/Lesson04"]))
        #expect(report.accesses.map(\.inOperation) == [true, true])
        // The symbols as `nm` lists them in step 4's race build and in libFoundation.
        let ownThunk = "    #3 $sIegh_ytIeghr_TRTA /<compiler-generated> (Lesson04CacheDictionary+0x29dfe0)"
        #expect(!RaceReport.runsAnOperation(ownThunk))
        #expect(!RaceReport.runsAnOperation("    #4 _dispatch_continuation_pop crtstuff.c (libdispatch.so+0x2c087)"))
        #expect(
            !RaceReport.runsAnOperation(
                "    #3 $s10Foundation6ThreadC4mainyyF <null> (libFoundation.so+0x3795f0)"))
    }

    /// The same report said of a controller whose `imageCache` is a type of
    /// its own: not a dictionary, so not the bug's shape, whatever its name.
    @Test func aCacheThatIsNoDictionaryIsSaidAsMeasured() throws {
        let step4 = Rig.packageRoot.appendingPathComponent("Sources/Lesson04CacheDictionary/AppsViewController.swift")
        let text = try String(contentsOf: step4, encoding: .utf8).replacingOccurrences(
            of: "var imageCache: [String: Image] = [:]", with: "var imageCache = ImageShelf()")
        let verdict = RaceCheck.judge(
            errors: Self.cacheRace, crashed: false, code: LearnerCode(files: ["AppsViewController.swift": text]))
        #expect(verdict.shape == "a data race on `imageCache` (of an `AppsViewController`)")
        #expect(verdict.hint.hasPrefix("On which threads does your code write `imageCache`?"))
    }

    /// The cache's own hint, said of step 4's code.
    static let cacheHint =
        "On which thread does your code write the image cache (and the pool)? On which does `cellForRowAt` read "
        + "them? Look at `self.imageCache[app.icon]` in AppsViewController.swift."

    /// Files that do not have TSan's lines: no name is guessed, the places and their role only.
    /// TSan points a write at its `=`: the name is what is assigned, past its
    /// subscript, not the first name on the line.
    @Test func aWriteAtItsEqualsSignNamesWhatIsAssigned() {
        let code = LearnerCode(files: [
            "AppsViewController.swift": "\n            if let image { self?.pictures[app.icon] = image }\n"
        ])
        #expect(RaceReport.touched(at: "Workbench/AppsViewController.swift:2:53", in: code) == "pictures")
        #expect(RaceReport.touched(at: "Workbench/AppsViewController.swift:2:22", in: code) == "image")
    }

    @Test func filesWithoutTheRacedLinesGetTheirPlacesOnly() {
        let code = LearnerCode(files: ["RecordViewController.swift": "final class Elsewhere {}\n"])
        let verdict = RaceCheck.judge(errors: Self.recordRace, crashed: false, code: code)
        #expect(verdict.diagnosis?.hasPrefix("memory read on the main queue (thread T4) at ") == true)
        #expect(
            verdict.hint
                == "On which queue does your code write what these lines touch, and on which does it read it? Touch "
                + "it from one queue only (hand the result to the main queue, and write it there). Look at "
                + "RecordViewController.swift:107:23 and RecordViewController.swift:141:22.")
    }

    /// Without the learner's files no name is guessed: the places only.
    @Test func withoutTheLearnersFilesOnlyThePlacesAreSaid() {
        let verdict = RaceCheck.judge(errors: Self.recordRace, crashed: false)
        #expect(
            verdict.diagnosis
                == "memory read on the main queue (thread T4) at "
                + "Tests/Fixtures/RecordRace/RecordViewController.swift:107:23 and written by thread T7, in an "
                + "operation, at Tests/Fixtures/RecordRace/RecordViewController.swift:141:22, with nothing ordering "
                + "the two")
    }

    /// A race run whose code downloaded nothing had no download thread to race with: "not measured", never ✓.
    @Test func aRaceRunThatDownloadedNothingIsNotMeasured() {
        let verdict = RaceCheck.judge(errors: "", crashed: false, requests: 0)
        #expect(!verdict.passed && !verdict.wasMeasured)
        #expect(verdict.measured == "not measured: the Thread Sanitizer run of flick-then-peek downloaded no icon")
        #expect(verdict.hint.hasPrefix("Does your code download the icons? Nothing ran on a download thread"))
        #expect(RaceCheck.judge(errors: "", crashed: false, requests: 25).passed)
        // A race TSan reported is one, whatever the run downloaded.
        let raced = RaceCheck.judge(errors: Self.recordRace, crashed: false, requests: 0, code: Self.recordCode)
        #expect(!raced.passed && raced.wasMeasured && raced.shape == Self.recordTitle)
    }

    /// A race run stopped as stuck (a learner's download that asks again for ever) measured nothing unless TSan
    /// reported a race first: "not measured", with why in one line, never ✗ on a made-up figure.
    @Test func aRaceRunThatNeverWentQuietIsNotMeasured() {
        let stuck = "Workbench: the run was stopped: 3 blocks or operations queued or running, not yet in the network"
        let why = RaceCheck.endedEarly(status: 1, errors: "warming up\n" + stuck)
        #expect(why == "your program never went quiet: the flick-then-peek run was stopped, its app still busy")
        let verdict = RaceCheck.unfinished(why, errors: stuck, code: Self.recordCode)
        #expect(!verdict.passed && !verdict.wasMeasured)
        #expect(verdict.measured == "not measured: " + why)
        #expect(!verdict.measured.contains("\n"))
        #expect(
            RaceCheck.endedEarly(status: 3, errors: "a\nlast words")
                == "the flick-then-peek run exited with status 3: last words")
        // A race TSan saw before the run was stopped is one.
        let raced = RaceCheck.unfinished(why, errors: Self.recordRace + "\n" + stuck, code: Self.recordCode)
        #expect(!raced.passed && raced.wasMeasured && raced.shape == Self.recordTitle)
    }

    /// A race to keep fixed that the starting code has, at its lines as they are (exercise 11's start: the loader
    /// class shared by tasks), was there from the start: never "broken on the way". The same race at a line the
    /// learner wrote is.
    @Test func aRaceTheStartingCodeHasIsNotBrokenOnTheWay() throws {
        let exercise = try #require(ExerciseCatalog.exercise(11))
        #expect(exercise.raceIsAFixToKeep)
        // Started from these very files: both lines raced are the start's.
        let asGiven = exercise.listed(
            race: RaceCheck.judge(errors: Self.recordRace, crashed: false, code: Self.recordCode, start: Self.recordCode))
        #expect(asGiven.failedAsStarted && asGiven.isSafeguard)
        #expect(asGiven.fromTheStart == true)
        #expect([asGiven].renderedBugs.hasPrefix("✗ as given  \(Self.recordTitle)"))
        let summary = [asGiven].summary(exercise: 11)
        #expect(!summary.contains("broken on the way"), "\(summary)")
        #expect(summary.contains("; there from the starting code: \(Self.recordTitle)."), "\(summary)")
        // Started from files without the write at line 141 (the learner added it): broken on the way.
        var files = Self.recordCode.files
        let written = "        record.state = .downloading"
        let start = try #require(files["RecordViewController.swift"])
        #expect(start.components(separatedBy: "\n").filter { $0 == written }.count == 1)
        files["RecordViewController.swift"] = start.replacingOccurrences(of: written + "\n", with: "")
        let worse = exercise.listed(
            race: RaceCheck.judge(
                errors: Self.recordRace, crashed: false, code: Self.recordCode, start: LearnerCode(files: files)))
        #expect(!worse.failedAsStarted && worse.isSafeguard && !worse.passed)
        #expect([worse].renderedBugs.hasPrefix("✗ broken    \(Self.recordTitle)"))
        #expect([worse].summary(exercise: 11).contains("; broken on the way: \(Self.recordTitle)."))
    }

    /// Exercise 11's loader promised `@unchecked Sendable`, race-built: TSan's reports come in the order the threads
    /// met, which differs run to run (3 of 6 runs began as below), and the first part of an async function has no
    /// line. The report read is the first that places both accesses at their lines, and "first:" is an access's
    /// place, never the line that allocated the loader (`AppsViewController.swift:30:18`, said before).
    static let asyncFirstPartRace = """
        WARNING: ThreadSanitizer: Swift access race (pid=19499)
          Modifying access of Swift variable at 0x721400007b00 by thread T3:
            #0 $s10Workbench210IconLoaderC5image3for8TableKit5ImageCSS_tYaKFTY0_ Workbench/Sources/Workbench/IconLoader.swift (Workbench2+0x4bad0d)
            #1 swift::runJobInEstablishedExecutorContext(swift::Job*) crtstuff.c (libswift_Concurrency.so+0x71e5f)
          Previous write of size 1 at 0x721400007b00 by thread T1:
            #0 $s10Workbench210IconLoaderC4join33_C506870BEB78E693853608034F6965D0LL_2as_ySS_SiScCy8TableKit5ImageCs5Error_pGtF Workbench/Sources/Workbench/IconLoader.swift:96:20 (Workbench2+0x4c5d6e)
          Location is heap block of size 80 at 0x721400007ad0 allocated by thread T4:
            #0 malloc /home/build-user/llvm-project/compiler-rt/lib/tsan/rtl/tsan_interceptors_posix.cpp:686:5 (Workbench2+0xb6650)
            #2 $s10Workbench218AppsViewControllerC11environmentAC13LessonSupport0F11EnvironmentV_tcfc Workbench/Sources/Workbench/AppsViewController.swift:30:18 (Workbench2+0x4b7b01)
        SUMMARY: ThreadSanitizer: Swift access race Workbench/Sources/Workbench/IconLoader.swift in $s10Workbench210IconLoaderC5image3for8TableKit5ImageCSS_tYaKFTY0_
        ==================
        WARNING: ThreadSanitizer: Swift access race (pid=19499)
          Read of size 8 at 0x721400007af8 by thread T3:
            #0 $s10Workbench210IconLoaderC4join33_C506870BEB78E693853608034F6965D0LL_2as_ySS_SiScCy8TableKit5ImageCs5Error_pGtF Workbench/Sources/Workbench/IconLoader.swift:95:21 (Workbench2+0x4c5b6d)
          Previous modifying access of Swift variable at 0x721400007af8 by thread T1:
            #0 $s10Workbench210IconLoaderC4join33_C506870BEB78E693853608034F6965D0LL_2as_ySS_SiScCy8TableKit5ImageCs5Error_pGtF Workbench/Sources/Workbench/IconLoader.swift:100:23 (Workbench2+0x4c612b)
          Location is heap block of size 80 at 0x721400007ad0 allocated by thread T4:
            #2 $s10Workbench218AppsViewControllerC11environmentAC13LessonSupport0F11EnvironmentV_tcfc Workbench/Sources/Workbench/AppsViewController.swift:30:18 (Workbench2+0x4b7b01)
        SUMMARY: ThreadSanitizer: Swift access race Workbench/Sources/Workbench/IconLoader.swift:95:21 in $s10Workbench210IconLoaderC4join33_C506870BEB78E693853608034F6965D0LL_2as_ySS_SiScCy8TableKit5ImageCs5Error_pGtF
        ==================
        """

    @Test func theReportReadIsTheFirstThatPlacesBothAccesses() throws {
        let folders = [WorkbenchDiagnostics.learnersCode]
        let report = try #require(RaceReport(errors: Self.asyncFirstPartRace, codeFolders: folders))
        #expect(
            report.accesses.map(\.place) == [
                "\(WorkbenchLayout.code)IconLoader.swift:95:21", "\(WorkbenchLayout.code)IconLoader.swift:100:23",
            ])
        #expect(
            RaceReport.firstPlace(errors: Self.asyncFirstPartRace, codeFolders: folders)
                == "\(WorkbenchLayout.code)IconLoader.swift:95:21")
        // With only the first report, its places are all there is: the access's file, still not the allocation.
        let first = try #require(Self.asyncFirstPartRace.components(separatedBy: "==================").first)
        #expect(
            RaceReport.firstPlace(errors: first, codeFolders: folders) == "\(WorkbenchLayout.code)IconLoader.swift")
    }
}

extension RaceReportTests {
    /// TSan sometimes gives the app's frames no line (exercise 11's untouched start, its loader's accesses in a
    /// task: "…/IconLoader.swift (Workbench+0x…)"). A race in a file the learner has not changed is the starting
    /// code's, not "broken on the way"; the file is one place to look at, said once.
    @Test func aRaceWithoutLinesInAFileAsStartedIsTheStartingCodes() throws {
        var lines = Self.recordRace.components(separatedBy: "\n")
        for index in lines.indices where lines[index].contains("#0 $s17RecordRaceFixture") {
            lines[index] = lines[index].replacing(#/\.swift:\d+:\d+ /#, with: ".swift ")
        }
        let unlined = lines.joined(separator: "\n")
        let exercise = try #require(ExerciseCatalog.exercise(11))
        let verdict = exercise.listed(
            race: RaceCheck.judge(errors: unlined, crashed: false, code: Self.recordCode, start: Self.recordCode))
        #expect(verdict.fromTheStart == true && verdict.failedAsStarted)
        #expect(!verdict.passed && verdict.wasMeasured)
        #expect(
            verdict.measured == "1 Thread Sanitizer report (first: Tests/Fixtures/RecordRace/RecordViewController.swift)")
        #expect(verdict.hint.hasSuffix(" Look at RecordViewController.swift."), "\(verdict.hint)")
        #expect(![verdict].summary(exercise: 11).contains("broken on the way"))
        // The same file changed by the learner: the race may be theirs.
        var files = Self.recordCode.files
        files["RecordViewController.swift"] = try #require(files["RecordViewController.swift"]) + "\n// changed\n"
        let changed = exercise.listed(
            race: RaceCheck.judge(
                errors: unlined, crashed: false, code: LearnerCode(files: files), start: Self.recordCode))
        #expect(changed.fromTheStart != true && !changed.failedAsStarted)
    }
}

extension RaceReportTests {
    /// Exercise 11's start with `@unchecked Sendable`, its two accesses both in `IconLoader.join` on the pool's
    /// threads: the hint names them there, in the loader, and asks nothing of a `cellForRowAt` that reads no
    /// cache (before: "On which does `cellForRowAt` read them?" and "Look at `imageCache`…", the reference's shape).
    @Test func aLoadersRaceIsHintedWhereItsAccessesAre() throws {
        let start = LearnerCode.read(Rig.packageRoot.appendingPathComponent("Sources/Exercise11Start"))
        var files = start.files
        let loader = try #require(files["IconLoader.swift"])
        files["IconLoader.swift"] = loader.replacingOccurrences(
            of: "final class IconLoader {", with: "final class IconLoader: @unchecked Sendable {")
        let code = LearnerCode(files: files)
        let verdict = RaceCheck.judge(errors: Self.asyncFirstPartRace, crashed: false, code: code, start: start)
        #expect(!verdict.passed && verdict.wasMeasured)
        #expect(verdict.shape == "a data race on `downloads` (of an `IconLoader`)", "\(verdict.shape ?? "no shape")")
        #expect(!verdict.hint.contains("cellForRowAt"), "\(verdict.hint)")
        #expect(
            verdict.hint
                == "On which queue does your code write `downloads`, and on which does it read it? Give `IconLoader`'s "
                + "state one owner: make it an actor, or guard every read and write of it with one lock, or touch it "
                + "from one queue only. Look at IconLoader.swift:95:21 (`IconLoader.join(…)`) and "
                + "IconLoader.swift:100:23 (`IconLoader.join(…)`).")
    }

    /// What a learner's line is part of, read from the braces of their file: a member of a type, a computed
    /// property, a nested type's member, a closure inside a function (its function), a line outside any type.
    @Test func aLineIsNamedByTheTypeAndMemberItIsIn() {
        let text = """
            import Foundation
            final class Loader {
                var memory: [String: Int] = [:]
                var count: Int { memory.count }
                func load(_ url: String) {
                    queue.async { self.memory[url] = 1 }
                }
                struct Entry {
                    init(id: Int) { print(id) }
                }
            }
            """
        let outline = CodeOutline(text)
        #expect(outline.part(atLine: 1) == nil)
        #expect(outline.part(atLine: 3) == "`Loader`")
        #expect(outline.part(atLine: 4) == "`Loader.count`")
        #expect(outline.part(atLine: 6) == "`Loader.load(…)`")
        #expect(outline.part(atLine: 9) == "`Entry.init(…)`")
        #expect(outline.part(atLine: 10) == "`Entry`")
        #expect(outline.part(atLine: 11) == "`Loader`")
    }
}
