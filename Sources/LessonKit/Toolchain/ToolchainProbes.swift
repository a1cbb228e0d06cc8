import DispatchSeam
import Foundation
import HostOS
import TaskSeam

/// The probes of `ToolchainContract`'s facts: each does what the seam relies
/// on and looks for it in what the seam saw. They run as the harness's own
/// work (`seam_leave_run`), so nothing they do counts in a run.
enum ToolchainProbes {
    /// How long a probe waits for a block or an operation that should run at once: long enough for a pool kept
    /// busy by a test process's other work to grow a thread or two (about one a second).
    private static let promptly = DispatchTimeInterval.seconds(10)

    static func interposition() -> ProbeResult {
        guard seam_is_installed() != 0 else {
            return .fails("dispatch_async_f is not the seam's (DispatchSeam not linked?)")
        }
        let before = seam_submissions_seen()
        let ran = DispatchSemaphore(value: 0)
        // A serial queue of its own: on the overcommitting pool, it gets a thread however busy the others are.
        asTheHarness { DispatchQueue(label: "toolchain probe").async { ran.signal() } }
        guard ran.wait(timeout: .now() + promptly) == .success else { return .fails("the block never ran") }
        let seen = seam_submissions_seen() - before
        return seen > 0
            ? .holds("the seam saw the block")
            : .fails("a DispatchQueue's block ran without the seam")
    }

    static func interceptorNames() -> ProbeResult {
        guard HostProcess.address(of: "__tsan_init") != nil else {
            return .notHere("not a race build (race-built steps probe it at start)")
        }
        let alias = HostProcess.address(of: "__interceptor_dispatch_async")
        guard let alias, alias == HostProcess.address(of: "___interceptor_dispatch_async") else {
            return .fails("__interceptor_dispatch_async is not the interceptor")
        }
        return .holds("__interceptor_ is ___interceptor_dispatch_async")
    }

    static func mainQueue() -> ProbeResult {
        let before = seam_main_queue_submissions_seen()
        asTheHarness { DispatchQueue.main.async {} }
        return seam_main_queue_submissions_seen() > before
            ? .holds("DispatchQueue.main is _dispatch_main_q")
            : .fails("DispatchQueue.main's block missed _dispatch_main_q")
    }

    static func overcommit() -> ProbeResult {
        let label = String(cString: seam_overcommitting_label())
        return label.hasSuffix(".overcommit") ? .holds(label) : .fails("the run's blocks go to \(label)")
    }

    static func blockABI() -> ProbeResult {
        let called = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
        defer { called.deallocate() }
        called.pointee = false
        let block: @convention(block) () -> Void = { called.pointee = true }
        seam_call_block(unsafeBitCast(block, to: UnsafeRawPointer.self))
        return called.pointee ? .holds("the closure ran") : .fails("a block called through its invoke did not run")
    }

    static func atomicWriteRenames() -> ProbeResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "operationlessons-probe-\(HostProcess.id)-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = seam_renames_seen()
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("probe".utf8).write(to: folder.appendingPathComponent("probe"), options: .atomic)
        } catch {
            return .fails("could not write in \(folder.path): \(error.localizedDescription)")
        }
        return seam_renames_seen() > before
            ? .holds("the write ended in rename")
            : .fails("an atomic write bypassed this program's rename")
    }

    static func diskReads() -> ProbeResult {
        let manager = FileManager.default
        let folder = manager.temporaryDirectory.appendingPathComponent(
            "operationlessons-probe-\(getpid())-\(UUID().uuidString)")
        defer { try? manager.removeItem(at: folder) }
        let files = ["images/probe", "later/probe"].map(folder.appendingPathComponent)
        do {
            try manager.createDirectory(at: folder.appendingPathComponent("images"), withIntermediateDirectories: true)
            try Data("probe".utf8).write(to: files[0])
            let watch = DiskReadWatch(folder: folder)
            // A subfolder made once the watch runs, as a library makes its own at its first write.
            try manager.createDirectory(at: folder.appendingPathComponent("later"), withIntermediateDirectories: true)
            try Data("probe".utf8).write(to: files[1])
            watch.drain()
            for file in files { _ = try Data(contentsOf: file) }
            let seen = watch.readFiles?.map { "\($0.file) \($0.reads)" } ?? []
            let said = seen.isEmpty ? "nothing" : seen.joined(separator: ", ")
            return seen == ["images/probe 1", "later/probe 1"]
                ? .holds("each read was seen once, in a subfolder there at the start and in one made after")
                : .fails("two reads in subfolders were seen as \(said)")
        } catch {
            return .fails("could not write in \(folder.path): \(error.localizedDescription)")
        }
    }

    static func taskHook() -> ProbeResult {
        guard SwiftTaskActivity.isInstalled else {
            return .fails("no swift_task_enqueueGlobal_hook or swift_job_run")
        }
        let before = task_seam_jobs_seen()
        asTheHarness { Task.detached {} }
        return task_seam_jobs_seen() > before
            ? .holds("the hook saw the task")
            : .fails("the hook is exported but not called for a new task")
    }

    static func taskHookAlone() -> ProbeResult {
        guard SwiftTaskActivity.isInstalled else { return .fails("the hook is not installed") }
        return task_seam_replaced_another_hook() == 0
            ? .holds("the hook was empty")
            : .fails("another hook was set; the seam does not chain to it")
    }

    static func operationQueue() -> ProbeResult {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let before = seam_submissions_seen()
        let ran = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var current: OperationQueue?
        asTheHarness {
            queue.addOperation {
                current = OperationQueue.current
                ran.signal()
            }
        }
        guard ran.wait(timeout: .now() + promptly) == .success else { return .fails("the operation never ran") }
        guard seam_submissions_seen() > before else {
            return .fails("an operation ran without a block the seam saw")
        }
        return current === queue
            ? .holds("a Dispatch block; OperationQueue.current its queue")
            : .fails("OperationQueue.current was not the operation's queue")
    }

    static func launchSeed() -> ProbeResult {
        var seed0: UInt64 = 0
        var deterministic: Int32 = 0
        guard seam_launch_seed_read(&seed0, &deterministic) != 0 else {
            return .fails("_swift_stdlib_Hashing_parameters is not exported")
        }
        let asked = ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"].map { !$0.isEmpty } ?? false
        guard (deterministic != 0) == asked else {
            return .fails("its deterministic flag is \(deterministic != 0) where SWIFT_DETERMINISTIC_HASHING says \(asked)")
        }
        let launch = seam_launch_number()
        guard deterministic == 0 || seed0 == seam_launch_seed_expected(launch) else {
            return .fails("launch \(launch) hashes with another seed than its own")
        }
        return .holds(deterministic != 0 ? "launch \(launch)'s seed, deterministic" : "exported")
    }

    static func poolGrowth() -> ProbeResult {
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let plain = startedAtOnce(Array(repeating: DispatchQueue.global(qos: .utility), count: count))
        // A serial queue of its own per block: libdispatch puts serial queues on the overcommitting pool.
        let overcommitting = startedAtOnce((0..<count).map { DispatchQueue(label: "probe \($0)", qos: .utility) })
        let found = "plain pool: \(plain) of \(count) at once; overcommitting: \(overcommitting)"
        return plain < count && overcommitting == count ? .holds(found) : .fails(found)
    }

    /// How many blocks, one for each queue, that block until released start within 0.3 s.
    private static func startedAtOnce(_ queues: [DispatchQueue]) -> Int {
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        asTheHarness {
            for queue in queues {
                queue.async {
                    started.signal()
                    release.wait()
                }
            }
        }
        var seen = 0
        let deadline = DispatchTime.now() + .milliseconds(300)
        while seen < queues.count, started.wait(timeout: deadline) == .success { seen += 1 }
        for _ in queues { release.signal() }
        return seen
    }

    /// Runs `body` as the harness's work: what it submits is never a run's.
    private static func asTheHarness(_ body: () -> Void) {
        let saved = seam_leave_run()
        body()
        seam_restore(saved)
    }
}
