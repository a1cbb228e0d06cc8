import Foundation
import LessonChecks

// The blogs' `AsyncOperation` (the test suite's PortedAsyncOperation.swift, linked
// here) played by exercise 10's checks, as the workbench plays a learner's operation.
exit(await WorkbenchMain.run(exercise: 10) { BlogDownloadOperation(url: $0, network: $1, progress: $2, completion: $3) })
