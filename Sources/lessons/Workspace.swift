import Foundation
import HarnessSync
import LessonChecks
import LessonKit

/// The package folder as the exercises see it: the workbench, the code the
/// exercises start from, and the learner's progress and backups in
/// `.operationlessons/` (git-ignored).
struct Workspace {
    let root: URL

    /// The workbench's package, which only `lessons check` (and the learner's `swift run`) builds.
    var workbenchPackage: URL { root.appendingPathComponent(WorkbenchLayout.package) }
    /// The learner's code.
    var workbench: URL { root.appendingPathComponent(WorkbenchLayout.code) }
    var stateFolder: URL { root.appendingPathComponent(".operationlessons") }
    var progressFile: URL { stateFolder.appendingPathComponent("progress.json") }
    /// The verdict of the last `lessons check`, which `hint` and `watch` read.
    var lastCheckFile: URL { stateFolder.appendingPathComponent("last-check.json") }
    /// Held by a command while it changes the workbench or the progress file.
    var lockFile: URL { stateFolder.appendingPathComponent("lock") }
    var backupsFolder: URL { stateFolder.appendingPathComponent("backups") }
    /// The learner's files as the last check built them (`CheckedSources`).
    var checkedSourcesFolder: URL { stateFolder.appendingPathComponent("checked-sources") }

    /// `--root`, else the current folder if it is the package, else the
    /// package `lessons` was built in (`.build/<triple>/debug/lessons`).
    /// The package is known by its `Package.swift`, not by its workbench:
    /// a missing workbench is something `lessons exercise N` puts back.
    static func find(root: String?) throws -> Workspace {
        func isPackage(_ url: URL) -> Bool {
            let manifest = (try? String(contentsOf: url.appendingPathComponent("Package.swift"), encoding: .utf8)) ?? ""
            // The package's own name, not the workbench's dependency on it (`.package(name: "OperationLessons", …)`).
            return manifest.contains(/Package\(\s*name:\s*"OperationLessons"/)
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

    /// The learner's progress. A progress file that cannot be understood (not
    /// JSON, a number too large, a FIFO in its place) is set aside (renamed,
    /// never overwritten) and said so: its solved list is the learner's to
    /// mend, and a save must not silently replace it. Exercise numbers that
    /// name no exercise are left out, and said so.
    func progress() throws -> ExerciseProgress {
        let data: Data
        do {
            guard let read = try FileRead.regularFile(progressFile) else { return ExerciseProgress() }
            data = read
        } catch .notAFile(let kind) {
            return try setAside(because: "is \(kind), not a file")
        } catch .unreadable(let reason) {
            throw WorkspaceError(
                "cannot read \(relative(progressFile)) (\(reason)); make it readable (chmod u+rw \(relative(progressFile)))"
                    + " and run this again")
        }
        do {
            return try JSONDecoder().decode(ExerciseProgress.self, from: data).checked(file: relative(progressFile))
        } catch {
            return try setAside(because: "is damaged (\(Self.decodingProblem(error, data)))")
        }
    }

    /// Renames a progress file that cannot be used to `progress.json.damaged` and starts from none solved.
    private func setAside(because problem: String) throws -> ExerciseProgress {
        let kept = try unusedName(progressFile.path + ".damaged")
        do {
            try FileManager.default.moveItem(at: progressFile, to: kept)
        } catch {
            throw WorkspaceError(
                "\(relative(progressFile)) \(problem), and cannot be set aside (\(SystemErrorText.describe(error)));"
                    + " move it away yourself and run this again")
        }
        printError(
            "lessons: \(relative(progressFile)) \(problem); it is kept as \(relative(kept)), and the exercises start"
                + " again from none solved.")
        return ExerciseProgress()
    }

    private static func decodingProblem(_ error: any Error, _ data: Data) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { key in key.intValue.map(String.init) ?? key.stringValue }.joined(separator: ".")
        }
        switch error {
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            return "a number too large, or not a whole number, at '\(path(context.codingPath))'"
        case DecodingError.dataCorrupted:
            // The decoder calls any number no Int can be "not valid JSON"; JSONSerialization tells them apart.
            do {
                _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
                return "a number too large, or not a whole number"
            } catch {
                let said = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? ""
                guard let number = said.firstMatch(of: /^Number (\S+) is not representable/) else { return "not JSON" }
                return "a number too large: \(number.1)"
            }
        case DecodingError.keyNotFound(let key, _): return "no '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context): return "a wrong value at '\(path(context.codingPath))'"
        default: return "unreadable"
        }
    }

    func save(_ progress: ExerciseProgress) throws {
        try write(progress, to: progressFile) { problem in
            "cannot write \(relative(progressFile)) (\(problem)); it is as it was before this command"
        }
    }

    /// Writes `value` as JSON into the state folder, whole or not at all; `failure` says what a write that failed
    /// with `problem` means for the learner.
    private func write(
        _ value: some Encodable, to file: URL, failure: (_ problem: String) -> String
    ) throws {
        try makeFolder(stateFolder)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        do {
            try encoder.encode(value).write(to: file, options: .atomic)
        } catch {
            throw WorkspaceError(failure(SystemErrorText.describe(error)))
        }
    }

    /// Reads, changes and writes the progress, holding the lock: two commands
    /// at once never write over each other's change.
    @discardableResult
    func updateProgress(_ change: (inout ExerciseProgress) -> Void) throws -> ExerciseProgress {
        try locked {
            var progress = try progress()
            change(&progress)
            try save(progress)
            return progress
        }
    }

    /// Makes `number` the exercise the learner is on.
    func start(_ number: Int) throws {
        try updateProgress {
            $0.current = number
            $0.lastStepPlayed = nil
        }
    }

    /// The learner played step `number` (`lessons run N`, `lessons play N`): before any exercise, `lessons next`
    /// plays the one after.
    func played(step number: Int) throws {
        try updateProgress { $0.lastStepPlayed = number }
    }

    // MARK: the last check

    /// The verdict of the last check, if it was a check of `exercise`.
    func lastCheck(of exercise: Int) -> LastCheck? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let data = try? FileRead.regularFile(lastCheckFile),
            let check = try? decoder.decode(LastCheck.self, from: data), check.exercise == exercise
        else { return nil }
        return check
    }

    func save(_ check: LastCheck) throws {
        try write(check, to: lastCheckFile) { problem in
            "cannot keep the verdict in \(relative(lastCheckFile)) (\(problem)); lessons hint will not know what this"
                + " check saw"
        }
    }

    /// A check is starting: the verdict of the code before it no longer says anything about the code now.
    func forgetLastCheck() {
        try? FileManager.default.removeItem(at: lastCheckFile)
    }

    /// The exercise the learner is on: the one the workbench holds, else the progress file's.
    func currentExercise() throws -> Int {
        if let held = workbenchState().exercise { return held }
        if let current = try progress().current { return current }
        throw UsageError("no exercise started yet: swift run lessons exercise \(ExerciseCatalog.all[0].number)")
    }

    /// `path`, or `path-2`, `path-3`… : the first name nothing has.
    func unusedName(_ path: String) throws -> URL {
        for suffix in [""] + (2...999).map({ "-\($0)" }) where !FileManager.default.fileExists(atPath: path + suffix) {
            return URL(fileURLWithPath: path + suffix)
        }
        throw WorkspaceError("\(path): 999 of them already; remove some")
    }

    /// Makes `folder` and those above it, or says in a sentence why it cannot be.
    func makeFolder(_ folder: URL) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) {
            guard isFolder.boolValue else {
                throw WorkspaceError(
                    "\(relative(folder)) is a file, not a folder: move it away (mv \(relative(folder))"
                        + " \(relative(folder)).old) and run this again")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw WorkspaceError("cannot make the folder \(relative(folder)): \(SystemErrorText.describe(error))")
        }
    }

    // MARK: one command at a time

    /// How deep this process is in `locked`, and the lock file's descriptor
    /// while it is: a command holding the lock may call code that takes it.
    private static let held = Locked((depth: 0, descriptor: Int32(-1)), .seen)

    /// Runs `body` holding `.operationlessons/lock` (`flock`, let go however
    /// the process ends), so that two commands never change the workbench or
    /// the progress file at once: the second waits for the first, and says so.
    func locked<T>(_ body: () throws -> T) throws -> T {
        let nested = Self.held.withLock { held in
            if held.depth > 0 { held.depth += 1 }
            return held.depth > 0
        }
        if !nested {
            try makeFolder(stateFolder)
            let descriptor = open(lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
            guard descriptor >= 0 else {
                throw WorkspaceError(
                    "cannot open the lock file \(relative(lockFile)) (\(String(cString: strerror(errno))));"
                        + " remove it (rm -r \(relative(lockFile))) and run this again")
            }
            if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                printError("lessons: another lessons command is changing the workbench; waiting for it to finish…")
                while flock(descriptor, LOCK_EX) != 0 {
                    guard errno == EINTR else {
                        let reason = String(cString: strerror(errno))
                        close(descriptor)
                        throw WorkspaceError("cannot lock \(relative(lockFile)) (\(reason))")
                    }
                }
            }
            Self.held.withLock { $0 = (1, descriptor) }
        }
        defer {
            let descriptor = Self.held.withLock { held -> Int32 in
                held.depth -= 1
                return held.depth == 0 ? held.descriptor : -1
            }
            if descriptor >= 0 { close(descriptor) }
        }
        return try body()
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
        /// No `Workbench/Sources/Workbench` at all.
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

    /// A step's code as an exercise sees it: its Swift files but `main.swift`. (Its variants, which show the
    /// step's mistakes and are no part of the app to fix, sit in `Sources/Variants/<step>`.)
    func codeFiles(of folder: String) -> [String] {
        swiftFiles(in: root.appendingPathComponent(folder)).filter { $0 != "main.swift" }
    }

    /// Everything in `folder` at any depth, as paths relative to it
    /// (a folder ends with "/"), hidden files included; `folder` itself may be
    /// a symbolic link (the learner keeps their code elsewhere), which is followed.
    func contents(of folder: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.resolvingSymlinksInPath().path) else {
            return []
        }
        var paths: [String] = []
        while let path = walker.nextObject() as? String {
            let isFolder = (walker.fileAttributes?[.type] as? FileAttributeType) == .typeDirectory
            paths.append(isFolder ? path + "/" : path)
        }
        return paths.sorted()
    }

    /// The FIFOs, devices and sockets in the workbench (links followed), by
    /// path relative to the package: a compiler reading one would wait for ever.
    func entriesNoBuildCanRead() -> [(path: String, kind: String)] {
        contents(of: workbench).compactMap { path in
            var info = stat()
            guard stat(workbench.appendingPathComponent(path).path, &info) == 0 else { return nil }
            let type = info.st_mode & S_IFMT
            guard type != S_IFREG && type != S_IFDIR else { return nil }
            return (relative(workbench.appendingPathComponent(path)), FileRead.kind(info.st_mode))
        }
    }

    /// Where the workbench's code folder is a symbolic link, what it points to:
    /// followed to read the code, never written through by an exercise nor
    /// removed; an exercise moves the link itself to the backup.
    func workbenchLink() -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: workbench.path)
    }

    /// What the workbench holds. Untouched means exactly what `install` put
    /// there: the exercise's files, byte for byte, and nothing else at any depth.
    func workbenchState() -> WorkbenchState {
        var info = stat()
        guard lstat(workbench.path, &info) == 0 else { return .missing }
        var isFolder: ObjCBool = false
        // A file, FIFO or link in its place is the learner's too: kept like code no exercise wrote.
        guard FileManager.default.fileExists(atPath: workbench.path, isDirectory: &isFolder), isFolder.boolValue else {
            return .unknown
        }
        let contents = contents(of: workbench)
        guard !contents.isEmpty else { return .empty }
        // Read only if a regular file: a FIFO in its place would make the read wait for ever.
        guard let data = try? FileRead.regularFile(workbench.appendingPathComponent("main.swift")),
            let main = String(data: data, encoding: .utf8),
            let number = Exercise.number(inWorkbenchMain: main), let exercise = ExerciseCatalog.exercise(number)
        else { return .unknown }
        let start = root.appendingPathComponent(exercise.startFolder)
        let installed = Set(codeFiles(of: exercise.startFolder))
        var changed: [String] = []
        for name in installed.sorted() {
            let mine = try? FileRead.regularFile(workbench.appendingPathComponent(name))
            let theirs = try? FileRead.regularFile(start.appendingPathComponent(name))
            if mine == nil || mine != theirs { changed.append(name) }
        }
        if main != exercise.workbenchMain { changed.append("main.swift") }
        let added = contents.filter { !installed.contains($0) && $0 != "main.swift" }
        return changed.isEmpty && added.isEmpty ? .untouched(number) : .edited(number, changed: changed, added: added)
    }

    /// Makes a new, empty backup folder, `.operationlessons/backups/<time>-<what>`
    /// (`-2`, `-3`… when that name is taken), and returns it: the name said
    /// before the learner answers is the one the backup gets.
    func claimBackupFolder(for state: WorkbenchState) throws -> URL {
        try makeFolder(backupsFolder)
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let label = state.exercise.map { "exercise-\($0)" } ?? "workbench"
        let name = backupsFolder.appendingPathComponent("\(formatter.string(from: Date()))-\(label)").path
        while true {
            let folder = try unusedName(name)
            // Made, not only named: a name another command took a moment ago fails here, and the next is tried.
            if mkdir(folder.path, 0o755) == 0 { return folder }
            guard errno == EEXIST else {
                throw WorkspaceError(
                    "cannot make the backup folder \(relative(folder)) (\(String(cString: strerror(errno))))")
            }
        }
    }

    /// Copies the learner's files before a check builds them, to put back
    /// what their code removes while the check plays it (`CheckedSources`).
    /// A missing `main.swift`, the exercise's file that starts their code and
    /// no part of it, is written again first, and said.
    func keepSources(checking exercise: Exercise) -> CheckedSources {
        let main = workbench.appendingPathComponent("main.swift")
        var info = stat()
        if lstat(workbench.path, &info) == 0, lstat(main.path, &info) != 0 {
            do {
                try Data(exercise.workbenchMain.utf8).write(to: main)
                say(
                    "\(relative(main)) was missing: it is the file that starts your code (lessons exercise"
                        + " \(exercise.number) wrote it), not part of your code, so it is written again.")
            } catch {
                say("\(relative(main)) is missing, and cannot be written again (\(SystemErrorText.describe(error))).")
            }
        }
        let files = snapshot(of: workbench).compactMapValues { $0 }
        let copy = checkedSourcesFolder
        do {
            try? FileManager.default.removeItem(at: copy)
            for (path, data) in files {
                let file = copy.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: file)
            }
        } catch {
            // The files are still held in memory: what goes missing is put back all the same.
            printError("lessons: cannot keep a copy of your files in \(relative(copy)) (\(Self.reason(error))).")
        }
        return CheckedSources(workspace: self, files: files)
    }

    /// A claimed backup folder not used after all (the answer was no, or the install failed): removed if empty.
    func release(backupFolder folder: URL) {
        rmdir(folder.path)
    }

    /// Every regular file in `folder` and its bytes, at any depth: what a
    /// backup must hold. A FIFO or device is listed but never opened.
    func snapshot(of folder: URL) -> [String: Data?] {
        var files: [String: Data?] = [:]
        for path in contents(of: folder) {
            files.updateValue(try? FileRead.regularFile(folder.appendingPathComponent(path)), forKey: path)
        }
        return files
    }

    /// Makes exercise's starting code in a new folder beside the workbench's
    /// state (`.operationlessons/`), ready to be swapped in by one rename.
    func stage(_ exercise: Exercise) throws -> URL {
        let start = root.appendingPathComponent(exercise.startFolder)
        let files = codeFiles(of: exercise.startFolder)
        guard !files.isEmpty else { throw WorkspaceError("\(exercise.startFolder) holds no Swift file") }
        try makeFolder(stateFolder)
        let staged = stateFolder.appendingPathComponent("new-workbench-\(getpid())-\(UUID().uuidString.prefix(8))")
        do {
            try FileManager.default.createDirectory(at: staged, withIntermediateDirectories: false)
            for name in files {
                guard let data = try FileRead.regularFile(start.appendingPathComponent(name)) else { continue }
                try data.write(to: staged.appendingPathComponent(name))
            }
            try Data(exercise.workbenchMain.utf8).write(to: staged.appendingPathComponent("main.swift"))
        } catch {
            try? FileManager.default.removeItem(at: staged)
            throw WorkspaceError(
                "cannot write exercise \(exercise.number)'s starting code in \(relative(stateFolder))"
                    + " (\(Self.reason(error))); the workbench was not touched")
        }
        return staged
    }

    /// Renames `from` to `to` (an empty folder there is replaced), or says why not in a sentence.
    func move(_ from: URL, to: URL) throws {
        guard rename(from.path, to.path) == 0 else {
            throw WorkspaceError(
                "cannot move \(relative(from)) to \(relative(to)) (\(String(cString: strerror(errno))))")
        }
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let problem as FileRead.Problem: problem.description
        default: SystemErrorText.describe(error)
        }
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
}

/// The learner's files as a check built them, in memory and in
/// `.operationlessons/checked-sources/`: the check plays the learner's code
/// with full write access, and a file it removes is put back from here.
struct CheckedSources {
    let workspace: Workspace
    /// Each regular file by its path in the workbench, and its bytes.
    let files: [String: Data]

    /// Puts back each file gone since the copy was made, and names it; one
    /// that cannot be is named with where its copy is. Files changed, not
    /// removed, are left as they are: the learner may have saved meanwhile.
    func putBackRemoved() {
        for (path, data) in files.sorted(by: { $0.key < $1.key }) {
            let file = workspace.workbench.appendingPathComponent(path)
            var info = stat()
            guard lstat(file.path, &info) != 0 else { continue }
            let shown = workspace.relative(file)
            do {
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: file)
                say("\(shown) was removed while the check played your code: it is put back as the check built it.")
            } catch {
                say(
                    "\(shown) was removed while the check played your code, and cannot be put back"
                        + " (\(SystemErrorText.describe(error))); the copy the check built is"
                        + " \(workspace.relative(workspace.checkedSourcesFolder.appendingPathComponent(path))).")
            }
        }
    }
}

/// What the learner has done: the exercise they are on and those they solved.
struct ExerciseProgress: Codable, Equatable {
    var current: Int?
    var solved: Set<Int> = []
    /// The step last played with `lessons run N` or `lessons play N` since the
    /// last exercise started: before any exercise, `lessons next` plays the
    /// step after it; on an exercise, it only names it.
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

    /// The progress without numbers that name no exercise (a hand-edited
    /// `{"solved": [-5, 100, 3]}` is 1 solved, not 3), each left out said once.
    func checked(file: String) -> ExerciseProgress {
        let exercises = Set(ExerciseCatalog.all.map(\.number))
        var checked = self
        checked.solved = solved.intersection(exercises)
        if let current, !exercises.contains(current) { checked.current = nil }
        if let step = lastStepPlayed, LessonCatalog.entry(step) == nil { checked.lastStepPlayed = nil }
        checked.hintLevels = hintLevels?.filter { key, level in
            Int(key).map(exercises.contains) == true && (1...Hints.levels).contains(level)
        }
        let unknown =
            solved.subtracting(exercises).sorted()
            + [current, lastStepPlayed].compactMap { $0 }.filter {
                !exercises.contains($0) && LessonCatalog.entry($0) == nil
            }
        if checked != self {
            let numbers = unknown.isEmpty ? "" : " (\(unknown.map(String.init).joined(separator: ", ")))"
            printError(
                "lessons: \(file) names exercises, steps or hint levels that do not exist\(numbers); they are left out"
                    + " (the exercises are \(ExerciseCatalog.numbers)).")
        }
        return checked
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
