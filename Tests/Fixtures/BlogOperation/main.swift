import Foundation
import LessonChecks

// The blogs' `AsyncOperation` (the test suite's PortedAsyncOperation.swift, linked
// here) played by exercise 10's checks, as the workbench plays a learner's operation.
// With FIXTURE_STARTS set (a FIFO's path), its first operation also starts a program in a session of its own
// that says its pid there and runs for minutes, as a learner's code may (ChildProcessTests).
let starts = ProcessInfo.processInfo.environment["FIXTURE_STARTS"]
let startOnce = NSLock()
var started = false
exit(
    await WorkbenchMain.run(exercise: 10) {
        if let starts, startOnce.withLock({ defer { started = true }; return !started }) {
            let program = Process()
            program.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
            program.arguments = ["sh", "-c", "echo $$ > '\(starts)'; echo started; exec sleep 300"]
            // Said started before the story goes on: a workbench that ends first still finds it running.
            let said = Pipe()
            program.standardOutput = said
            try? program.run()
            _ = said.fileHandleForReading.availableData
        }
        return BlogDownloadOperation(url: $0, network: $1, progress: $2, completion: $3)
    })
