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

    /// `--root`, else the current folder if it is the package, else the
    /// package `lessons` was built in (`.build/<triple>/debug/lessons`).
    static func find(root: String?) throws -> Workspace {
        func isPackage(_ url: URL) -> Bool {
            FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path)
                && FileManager.default.fileExists(atPath: url.appendingPathComponent("Sources/Workbench").path)
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

    var progress: ExerciseProgress {
        guard let data = try? Data(contentsOf: progressFile),
            let progress = try? JSONDecoder().decode(ExerciseProgress.self, from: data)
        else { return ExerciseProgress() }
        return progress
    }

    func save(_ progress: ExerciseProgress) throws {
        try FileManager.default.createDirectory(at: stateFolder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(progress).write(to: progressFile, options: .atomic)
    }

    /// Makes `number` the exercise the learner is on.
    func start(_ number: Int) throws {
        var progress = progress
        progress.current = number
        try save(progress)
    }

    /// The exercise the learner is on: the one the workbench holds, else the progress file's.
    func currentExercise() throws(UsageError) -> Int {
        if let held = workbenchState().exercise { return held }
        if let current = progress.current { return current }
        throw UsageError("no exercise started yet: swift run lessons exercise 2")
    }

    // MARK: the workbench

    enum WorkbenchState {
        case untouched(Int)
        case edited(Int, files: [String])
        /// Files whose `main.swift` names no exercise.
        case unknown
        case empty

        var exercise: Int? {
            switch self {
            case .untouched(let number), .edited(let number, _): number
            case .unknown, .empty: nil
            }
        }

        var needsBackup: Bool {
            switch self {
            case .untouched, .empty: false
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

    func workbenchState() -> WorkbenchState {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: workbench.path)) ?? []
        guard !names.isEmpty else { return .empty }
        guard let main = try? String(contentsOf: workbench.appendingPathComponent("main.swift"), encoding: .utf8),
            let number = Exercise.number(inWorkbenchMain: main), let exercise = ExerciseCatalog.exercise(number)
        else { return .unknown }
        let start = root.appendingPathComponent(exercise.startFolder)
        var changed: [String] = []
        for name in Set(names).union(codeFiles(of: exercise.startFolder)).subtracting(["main.swift"]).sorted() {
            let mine = try? Data(contentsOf: workbench.appendingPathComponent(name))
            let theirs = try? Data(contentsOf: start.appendingPathComponent(name))
            if mine != theirs { changed.append(name) }
        }
        if main != exercise.workbenchMain { changed.append("main.swift") }
        return changed.isEmpty ? .untouched(number) : .edited(number, files: changed)
    }

    func backupFolder(for state: WorkbenchState) -> URL {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let label = state.exercise.map { "exercise-\($0)" } ?? "workbench"
        return stateFolder.appendingPathComponent("backups/\(formatter.string(from: Date()))-\(label)")
    }

    func backUpWorkbench(to folder: URL) throws {
        try FileManager.default.createDirectory(
            at: folder.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: workbench, to: folder)
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
        for name in (try? manager.contentsOfDirectory(atPath: workbench.path)) ?? [] {
            try manager.removeItem(at: workbench.appendingPathComponent(name))
        }
        try manager.createDirectory(at: workbench, withIntermediateDirectories: true)
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

    var summary: String { "\(solved.count)/\(ExerciseCatalog.all.count) solved" }

    /// The first exercise not solved yet.
    var next: Int? { ExerciseCatalog.all.map(\.number).first { !solved.contains($0) } }
}

struct WorkspaceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
