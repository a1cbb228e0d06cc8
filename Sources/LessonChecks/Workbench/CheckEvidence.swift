import Foundation

/// What a check's ✓ stands on: a verdict on every bug the workbench judges, written by the program this check
/// built, from the learner's files as the build read them. A run that ends without one (an `exit` in the
/// learner's code, a `main.swift` that no longer plays the checks) or files changed under the check measured
/// nothing: each bug is "not measured", with the reason, and the exercise is never recorded solved.
public enum CheckEvidence {
    /// The bugs `Workbench --check N` judges itself: all of the exercise's but those `lessons check` judges with
    /// builds of its own (the Swift 6 compile, the Thread Sanitizer run).
    public static func judgedByTheWorkbench(_ exercise: Exercise) -> [BugText] {
        let builtElsewhere = [Swift6Check.bug.name, exercise.raceSubject.bug.name]
        return exercise.bugs.filter { !builtElsewhere.contains($0.name) }
    }

    /// Why the workbench's run (ended with `status`, leaving `results`, nil when it wrote no verdict) is no
    /// evidence for `exercise`, in a phrase; nil when it is.
    public static func missing(in results: [CheckResult]?, status: Int32, exercise: Exercise) -> String? {
        guard let results else {
            return "the workbench ended (status \(status)) without writing a verdict: the checks did not run to "
                + "their end"
        }
        let wanted = judgedByTheWorkbench(exercise).map(\.name)
        let judged = results.map(\.bug)
        guard judged == wanted else {
            let left = wanted.filter { !judged.contains($0) }
            return "the workbench's verdict leaves out "
                + (left.isEmpty ? "the exercise's bugs, in order" : left.joined(separator: ", "))
        }
        if status == 0 && !results.allPassed {
            return "the workbench exited with status 0 on a verdict that is not solved"
        }
        return nil
    }

    /// Every bug the workbench judges, not measured because of `why`; `hint` says what to look at.
    public static func unmeasured(_ exercise: Exercise, because why: String, hint: String) -> [CheckResult] {
        judgedByTheWorkbench(exercise).map {
            $0.result(passed: false, measured: "").unmeasured(because: why, hint: hint)
        }
    }

    /// The hint for a run that ended without its verdict.
    public static func endedEarlyHint(_ exercise: Exercise) -> String {
        "Does your code end the program (`exit`, `fatalError`) before the checks are over, or does your main.swift "
            + "still hand your code to them? Play it as the check does: \(WorkbenchLayout.run) --check "
            + "\(exercise.number)"
    }

    /// The executable products that `swift package describe --type json` lists, by name; nil when `json` is not
    /// such a description.
    public static func executableProducts(describedAs json: Data) -> [String]? {
        guard let package = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any],
            let products = package["products"] as? [[String: Any]]
        else { return nil }
        return products.compactMap { product in
            guard let kind = product["type"] as? [String: Any], kind.keys.contains("executable") else { return nil }
            return product["name"] as? String
        }
    }
}

extension CheckResult {
    /// The same bug, not measured because of `why`: what was measured no longer counts.
    public func unmeasured(because why: String, hint: String) -> CheckResult {
        CheckResult(
            bug: bug, passed: false, measured: "not measured: \(why)", expected: expected, hint: hint,
            isSafeguard: isSafeguard, notMeasured: true)
    }
}

/// The workbench package's files as one moment saw them: its manifest and sources, not its build folders (hidden,
/// `.build…`). A check takes one before its build and one at its end: a verdict is of one version of the files.
public struct WorkbenchSnapshot: Equatable, Sendable {
    /// Each file's bytes by its path in the package; nil for one that is not a regular file (never opened: a
    /// FIFO would wait for a writer).
    private let files: [String: Data?]

    public init(package: URL) {
        var files: [String: Data?] = [:]
        let base = package.standardizedFileURL.path + "/"
        let found = FileManager.default.enumerator(
            at: package, includingPropertiesForKeys: [.isRegularFileKey, .isDirectoryKey],
            options: [.skipsHiddenFiles])
        while let url = found?.nextObject() as? URL {
            let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .isDirectoryKey])
            if values?.isDirectory == true { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(base.count))
            files[path] = values?.isRegularFile == true ? (try? Data(contentsOf: url)) ?? Data() : .some(nil)
        }
        self.files = files
    }

    /// The files added, removed or changed since `earlier`, by path, sorted.
    public func changed(since earlier: WorkbenchSnapshot) -> [String] {
        Set(files.keys).union(earlier.files.keys).filter { files[$0] != earlier.files[$0] }.sorted()
    }
}
