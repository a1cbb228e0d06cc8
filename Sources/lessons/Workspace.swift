import Foundation
import LessonChecks
import LessonKit

/// The package folder as the exercises see it: the workbench, the code the
/// exercises start from, and the learner's progress and backups in
/// `.operationlessons/` (git-ignored).
struct Workspace {
    let root: URL

    var workbench: URL { root.appendingPathComponent("Sources/Workbench") }
    var stateFolder: URL { root.appendingPathComponent(".operationlessons") }
    var progressFile: URL { stateFolder.appendingPathComponent("progress.json") }
    /// The verdict of the last `lessons check`, which `hint` and `watch` read.
    var lastCheckFile: URL { stateFolder.appendingPathComponent("last-check.json") }

    /// `--root`, else the current folder if it is the package, else the
    /// package `lessons` was built in (`.build/<triple>/debug/lessons`).
    /// The package is known by its `Package.swift`, not by `Sources/Workbench`:
    /// a missing workbench is something `lessons exercise N` puts back.
    static func find(root: String?) throws -> Workspace {
        func isPackage(_ url: URL) -> Bool {
            let manifest = (try? String(contentsOf: url.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
            return manifest.contains("name: \"OperationLessons\"")
        }
        if let root {
            let url = URL(fileURLWithPath: root).standardizedFileURL
            guard isPackage(url) else { throw WorkspaceError("\(root) is not the OperationLessons package folder") }
            return Workspace(root: url)
        }
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        if isPackage(current) { return Workspace(root: current) }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
        while folder.path != "/" {
            if isPackage(folder) { return Workspace(root: folder) }
            folder.deleteLastPathComponent()
        }
        throw WorkspaceError("cannot find the package folder; run this from it (the folder with Package.swift)")
    }

    func relative(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        let prefix = root.standardizedFileURL.path + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    // MARK: progress

    /// The learner's progress. A progress file that cannot be understood is
    /// set aside (renamed, never overwritten) and said so: its solved list is
    /// the learner's to mend, and a save must not silently replace it.
    func progress() throws -> ExerciseProgress {
        guard FileManager.default.fileExists(atPath: progressFile.path) else { return ExerciseProgress() }
        // A FIFO would be waited on for ever, a folder is no progress: neither is opened.
        var info = stat()
        if stat(progressFile.path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            throw WorkspaceError(
                "\(relative(progressFile)) is not a regular file; move it away, and the exercises start again from "
                    + "none solved")
        }
        let data: Data
        do {
            data = try Data(contentsOf: progressFile)
        } catch {
            throw WorkspaceError("cannot read \(relative(progressFile)): \(SystemErrorText.describe(error))")
        }
        do {
            return try JSONDecoder().decode(ExerciseProgress.self, from: data)
        } catch {
            let kept = try unusedName(progressFile.path + ".damaged")
            do {
                try FileManager.default.moveItem(at: progressFile, to: kept)
            } catch {
                throw WorkspaceError(
                    "\(relative(progressFile)) is damaged, and cannot be set aside: \(SystemErrorText.describe(error))")
            }
            printError(
                "lessons: \(relative(progressFile)) is damaged (\(Self.decodingProblem(error, in: data))); it is kept as "
                    + "\(relative(kept)), and the exercises start again from none solved.")
            return ExerciseProgress()
        }
    }

    private static func decodingProblem(_ error: any Error, in data: Data) -> String {
        switch error {
        // The decoder calls a number too large for an Int "not valid JSON" too.
        case DecodingError.dataCorrupted where (try? JSONSerialization.jsonObject(with: data)) != nil:
            "JSON, but with a value out of range"
        case DecodingError.dataCorrupted: "not JSON"
        case DecodingError.keyNotFound(let key, _): "no '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context):
            "a wrong value at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'"
        default: "unreadable"
        }
    }

    func save(_ progress: ExerciseProgress) throws {
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(progress).write(to: progressFile, options: .atomic)
    }

    /// Makes `number` the exercise the learner is on.
    func start(_ number: Int) throws {
        var progress = try progress()
        progress.current = number
        progress.lastStepPlayed = nil
        try save(progress)
    }

    /// The learner played step `number` (`lessons run N`): `lessons next` plays the one after.
    func played(step number: Int) throws {
        var progress = try progress()
        progress.lastStepPlayed = number
        try save(progress)
    }

    // MARK: the last check

    /// The verdict of the last check, if it was a check of `exercise`.
    func lastCheck(of exercise: Int) -> LastCheck? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let data = try? Data(contentsOf: lastCheckFile),
            let check = try? decoder.decode(LastCheck.self, from: data), check.exercise == exercise
        else { return nil }
        return check
    }

    func save(_ check: LastCheck) throws {
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        try encoder.encode(check).write(to: lastCheckFile, options: .atomic)
    }

    /// A check is starting: the verdict of the code before it no longer says anything about the code now.
    func forgetLastCheck() {
        try? FileManager.default.removeItem(at: lastCheckFile)
    }

    /// The exercise the learner is on: the one the workbench holds, else the progress file's.
    func currentExercise() throws -> Int {
        if let held = workbenchState().exercise { return held }
        if let current = try progress().current { return current }
        throw UsageError("no exercise started yet: swift run lessons exercise 2")
    }

    /// `path`, or `path-2`, `path-3`… : the first name nothing has.
    func unusedName(_ path: String) throws -> URL {
        for suffix in [""] + (2...999).map({ "-\($0)" }) where !FileManager.default.fileExists(atPath: path + suffix) {
            return URL(fileURLWithPath: path + suffix)
        }
        throw WorkspaceError("\(path): 999 of them already; remove some")
    }

    // MARK: the workbench

    enum WorkbenchState {
        case untouched(Int)
        /// Exercise N's files, some changed (or gone), or things beside them
        /// that the exercise did not put there (paths relative to the workbench).
        case edited(Int, changed: [String], added: [String])
        /// Files whose `main.swift` names no exercise.
        case unknown
        case empty
        /// No `Sources/Workbench` at all.
        case missing

        var exercise: Int? {
            switch self {
            case .untouched(let number), .edited(let number, _, _): number
            case .unknown, .empty, .missing: nil
            }
        }

        var needsBackup: Bool {
            switch self {
            case .untouched, .empty, .missing: false
            case .edited, .unknown: true
            }
        }
    }

    func swiftFiles(in folder: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".swift") }.sorted()
    }

    /// A step's code as an exercise sees it: its Swift files but `main.swift`
    /// and the variants it offers (`--naive-pool`'s
    /// `NaivePoolViewController.swift`…), which show the step's mistakes and
    /// are no part of the app to fix.
    func codeFiles(of folder: String) -> [String] {
        let url = root.appendingPathComponent(folder)
        let files = swiftFiles(in: url)
        let text = files.compactMap { try? String(contentsOf: url.appendingPathComponent($0), encoding: .utf8) }
        let variants = Set(Exercise.variantControllers(in: text.joined(separator: "\n")).map { $0 + ".swift" })
        return files.filter { $0 != "main.swift" && !variants.contains($0) }
    }

    /// Everything in the workbench at any depth, as paths relative to it
    /// (a folder ends with "/"), hidden files included.
    func workbenchContents() -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: workbench.path) else { return [] }
        var paths: [String] = []
        while let path = walker.nextObject() as? String {
            let isFolder = (walker.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory
            paths.append(isFolder ? path + "/" : path)
        }
        return paths.sorted()
    }

    /// What the workbench holds. Untouched means exactly what `install` put
    /// there: the exercise's files, byte for byte, and nothing else at any depth.
    func workbenchState() -> WorkbenchState {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: workbench.path, isDirectory: &isFolder), isFolder.boolValue else {
            return .missing
        }
        let contents = workbenchContents()
        guard !contents.isEmpty else { return .empty }
        guard let main = try? String(contentsOf: workbench.appendingPathComponent("main.swift"), encoding: .utf8),
            let number = Exercise.number(inWorkbenchMain: main), let exercise = ExerciseCatalog.exercise(number)
        else { return .unknown }
        let start = root.appendingPathComponent(exercise.startFolder)
        let installed = Set(codeFiles(of: exercise.startFolder))
        var changed: [String] = []
        for name in installed.sorted() {
            let mine = try? Data(contentsOf: workbench.appendingPathComponent(name))
            let theirs = try? Data(contentsOf: start.appendingPathComponent(name))
            if mine == nil || mine != theirs { changed.append(name) }
        }
        if main != exercise.workbenchMain { changed.append("main.swift") }
        let added = contents.filter { !installed.contains($0) && $0 != "main.swift" }
        return changed.isEmpty && added.isEmpty ? .untouched(number) : .edited(number, changed: changed, added: added)
    }

    /// Where a backup of the workbench would go now: `.operationlessons/backups/<time>-<what>`,
    /// with `-2`, `-3`… when that name is taken (two resets in one second).
    func backupFolder(for state: WorkbenchState) throws -> URL {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let label = state.exercise.map { "exercise-\($0)" } ?? "workbench"
        return try unusedName(
            stateFolder.appendingPathComponent("backups/\(formatter.string(from: Date()))-\(label)").path)
    }

    /// Copies everything in the workbench to a new backup folder and returns it.
    func backUpWorkbench(for state: WorkbenchState) throws -> URL {
        let manager = FileManager.default
        try manager.createDirectory(
            at: stateFolder.appendingPathComponent("backups"), withIntermediateDirectories: true)
        // Claim the name by making the folder: a name another reset took
        // a moment ago fails here, and the next one is tried.
        var folder = try backupFolder(for: state)
        while true {
            do {
                try manager.createDirectory(at: folder, withIntermediateDirectories: false)
                break
            } catch  where manager.fileExists(atPath: folder.path) {
                folder = try backupFolder(for: state)
            }
        }
        for name in try manager.contentsOfDirectory(atPath: workbench.path) {
            try manager.copyItem(at: workbench.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        return folder
    }

    /// The files an exercise is about: its starting code's, and for an image
    /// list also those the step adds (`main.swift` and variants aside).
    func exerciseFiles(_ exercise: Exercise) throws -> [String] {
        let start = codeFiles(of: exercise.startFolder)
        guard !start.isEmpty else { throw WorkspaceError("\(exercise.startFolder) holds no Swift file") }
        var names = Set(start)
        if exercise.kind == .imageList { names.formUnion(codeFiles(of: exercise.solutionFolder)) }
        return names.sorted()
    }

    /// Empties the workbench and puts the exercise's starting code and `main.swift` there.
    func install(_ exercise: Exercise) throws {
        let start = root.appendingPathComponent(exercise.startFolder)
        let files = codeFiles(of: exercise.startFolder)
        guard !files.isEmpty else { throw WorkspaceError("\(exercise.startFolder) holds no Swift file") }
        let manager = FileManager.default
        try manager.createDirectory(at: workbench, withIntermediateDirectories: true)
        for name in try manager.contentsOfDirectory(atPath: workbench.path) {
            try manager.removeItem(at: workbench.appendingPathComponent(name))
        }
        for name in files {
            try manager.copyItem(at: start.appendingPathComponent(name), to: workbench.appendingPathComponent(name))
        }
        try exercise.workbenchMain.write(
            to: workbench.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
    }
}

/// What the learner has done: the exercise they are on and those they solved.
struct ExerciseProgress: Codable, Equatable {
    var current: Int?
    var solved: Set<Int> = []
    /// The step last played with `lessons run N`, when that came after the
    /// last exercise started: `lessons next` then plays the step after it.
    var lastStepPlayed: Int?
    /// How far `lessons hint` has gone (1 to `Hints.levels`), by exercise number.
    var hintLevels: [String: Int]?

    func hintLevel(_ exercise: Int) -> Int { hintLevels?[String(exercise)] ?? 1 }

    mutating func setHintLevel(_ level: Int, for exercise: Int) {
        hintLevels = (hintLevels ?? [:]).merging([String(exercise): level]) { $1 }
    }

    /// Only the exercises there are: a hand-edited file may list `-5` or `100`.
    var summary: String {
        let exercises = Set(ExerciseCatalog.all.map(\.number))
        return "\(solved.intersection(exercises).count)/\(exercises.count) solved"
    }

    /// The first exercise not solved yet.
    var next: Int? { ExerciseCatalog.all.map(\.number).first { !solved.contains($0) } }
}

/// A check's verdict, kept in `.operationlessons/last-check.json`: the exercise, when, and each bug's result.
struct LastCheck: Codable {
    let exercise: Int
    let date: Date
    let results: [CheckResult]
}

struct WorkspaceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
