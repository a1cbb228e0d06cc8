import Foundation

/// A dependency cycle, named: "download → unzip → install → download".
///
/// `Operation` has no such check: a cycle is accepted, every operation in it
/// waits for another forever (`isReady` stays false), and nothing complains —
/// `waitUntilAllOperationsAreFinished()` just never returns. So we look
/// before we enqueue.
struct DependencyCycleError: Error, CustomStringConvertible {
    /// The operations in "must finish before" order, the first repeated at the end.
    let names: [String]

    var description: String {
        "dependency cycle: \(names.joined(separator: " → ")) (each waits for the one before it, so none can start)"
    }
}

enum DependencyCheck {
    /// The first cycle reachable from `operations` through their
    /// dependencies, in "must finish before" order with the first operation
    /// repeated at the end (A → B → C → A: B depends on A, C on B, A on C);
    /// nil when there is none.
    ///
    /// A depth-first walk: an operation met again while it is still on the
    /// path being walked closes a cycle.
    static func cycle(among operations: [Operation]) -> [Operation]? {
        var finished = Set<ObjectIdentifier>()
        var path: [Operation] = []

        func walk(_ operation: Operation) -> [Operation]? {
            if let index = path.firstIndex(where: { $0 === operation }) {
                // path[index...] each waits for the next; reverse for "finishes before".
                return Array((path[index...] + [operation]).reversed())
            }
            guard !finished.contains(ObjectIdentifier(operation)) else { return nil }
            path.append(operation)
            for dependency in operation.dependencies {
                if let cycle = walk(dependency) { return cycle }
            }
            path.removeLast()
            finished.insert(ObjectIdentifier(operation))
            return nil
        }

        for operation in operations {
            if let cycle = walk(operation) { return rotated(cycle, toStartAtFirstOf: operations) }
        }
        return nil
    }

    /// Throws `DependencyCycleError` naming the cycle, if there is one.
    static func checkForCycles(_ operations: [Operation]) throws {
        guard let cycle = cycle(among: operations) else { return }
        throw DependencyCycleError(names: cycle.map { $0.name ?? "unnamed operation" })
    }

    /// The same cycle, starting at whichever of its operations the caller listed first.
    private static func rotated(_ cycle: [Operation], toStartAtFirstOf operations: [Operation]) -> [Operation] {
        let ring = Array(cycle.dropLast())
        guard
            let start = operations.lazy.compactMap({ listed in ring.firstIndex { $0 === listed } }).first
        else { return cycle }
        let turned = Array(ring[start...] + ring[..<start])
        return turned + [turned[0]]
    }
}

extension OperationQueue {
    /// `addOperations(_:waitUntilFinished:)` that refuses a dependency cycle
    /// instead of hanging on it.
    func addOperationsCheckingForCycles(_ operations: [Operation], waitUntilFinished: Bool) throws {
        try DependencyCheck.checkForCycles(operations)
        addOperations(operations, waitUntilFinished: waitUntilFinished)
    }
}

extension SoftwareUpdate {
    /// The tutorial's commented-out line switched on: the download also waits
    /// for the install. Step 8's fix checks first and enqueues nothing.
    func startCheckingForCycles(withCycle: Bool) throws -> [Operation] {
        let (download, unzip, install) = makeOperations()
        unzip.addDependency(download)
        install.addDependency(unzip)
        if withCycle { download.addDependency(install) }
        // The operations go to two queues, so check them all before either queue sees one.
        try DependencyCheck.checkForCycles([download, unzip, install])
        OperationQueue.main.addOperation(install)
        try backgroundQueue.addOperationsCheckingForCycles([download, unzip], waitUntilFinished: false)
        return [download, unzip, install]
    }

    /// The bug: the same cycle enqueued without looking.
    func startWithUncheckedCycle() -> [Operation] {
        let (download, unzip, install) = makeOperations()
        unzip.addDependency(download)
        install.addDependency(unzip)
        download.addDependency(install)
        OperationQueue.main.addOperation(install)
        backgroundQueue.addOperations([download, unzip], waitUntilFinished: false)
        return [download, unzip, install]
    }
}
