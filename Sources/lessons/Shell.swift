import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The child processes the exercise commands start: `swift build`, the
/// workbench, `diff`.
enum Shell {
    struct Output {
        let status: Int32
        /// Standard output and standard error, interleaved as they came.
        let output: String
    }

    struct Run {
        let status: Int32
        /// The signal that killed it, if one did (a crash).
        let signal: Int32?
        /// What crashed and where, from the backtrace.
        let crash: String?
    }

    /// Runs a program found on the PATH and collects its output.
    static func run(_ command: [String], in folder: URL) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = folder
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, output: String(decoding: data, as: UTF8.self))
    }

    /// Runs an executable whose standard output goes straight to this
    /// terminal. Its standard error is collected: after a crash, the Swift
    /// runtime's backtrace (dozens of lines per thread) is read for the crash
    /// and the first frame in `Sources/`, and the rest left out.
    static func runShowingOutput(_ executable: URL, _ arguments: [String], in folder: URL) throws -> Run {
        let (process, errors) = try runWithErrorsInAFile(executable, arguments, in: folder, output: nil)
        let crashed = process.terminationReason == .uncaughtSignal
        if !crashed && !errors.isEmpty { FileHandle.standardError.write(Data(errors.utf8)) }
        return Run(
            status: process.terminationStatus, signal: crashed ? process.terminationStatus : nil,
            crash: crashed ? crashSummary(errors, root: folder) : nil)
    }

    /// "Bad pointer dereference at 0x8, in Sources/Workbench/AppsViewController.swift:42:95" from a backtrace.
    static func crashSummary(_ backtrace: String, root: URL) -> String {
        let lines = backtrace.split(separator: "\n")
        let what = lines.first { $0.contains("Program crashed:") }.map {
            $0.replacingOccurrences(of: "*** Program crashed: ", with: "").replacingOccurrences(of: " ***", with: "")
        }
        let frame = lines.first { $0.contains("Sources/") }.flatMap { line in
            line.range(of: "Sources/").map { String(line[$0.lowerBound...]) }
        }
        return [what, frame.map { "in " + $0 }].compactMap { $0 }.joined(separator: ", ")
    }

    /// Runs an executable, its output thrown away and its errors collected
    /// in a file (a Thread Sanitizer report can be more than a pipe holds).
    static func runCollectingErrors(_ executable: URL, _ arguments: [String], in folder: URL) throws -> (
        status: Int32, signal: Int32?, errors: String
    ) {
        let (process, errors) = try runWithErrorsInAFile(
            executable, arguments, in: folder, output: FileHandle.nullDevice)
        let crashed = process.terminationReason == .uncaughtSignal
        return (process.terminationStatus, crashed ? process.terminationStatus : nil, errors)
    }

    /// Runs `executable` in `folder` to its end, with no input, its standard
    /// output to `output` (nil: this process's) and its standard error to a
    /// file (a Thread Sanitizer report or a backtrace can be more than a pipe
    /// holds), and returns the finished process and what it wrote there.
    private static func runWithErrorsInAFile(
        _ executable: URL, _ arguments: [String], in folder: URL, output: FileHandle?
    ) throws -> (process: Process, errors: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-\(UUID().uuidString).txt")
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw ShellError("cannot write \(file.path)")
        }
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.standardInput = FileHandle.nullDevice
        if let output { process.standardOutput = output }
        process.standardError = try FileHandle(forWritingTo: file)
        try process.run()
        process.waitUntilExit()
        return (process, (try? String(contentsOf: file, encoding: .utf8)) ?? "")
    }

    static func signalName(_ signal: Int32) -> String {
        switch signal {
        case SIGSEGV: ", SIGSEGV"
        case SIGBUS: ", SIGBUS"
        case SIGABRT: ", SIGABRT"
        case SIGILL: ", SIGILL"
        case SIGTRAP: ", SIGTRAP"
        default: ""
        }
    }

    /// The compiler's diagnostics from a `swift build` log, without the build's
    /// progress lines, paths relative to the package.
    static func compilerErrors(_ log: String, root: URL) -> String {
        let prefix = root.standardizedFileURL.path + "/"
        let noise = ["[", "Building for", "Planning build", "Compiling", "Write ", "Emitting"]
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            .filter { line in !noise.contains { line.hasPrefix($0) } }
            .map { $0.replacingOccurrences(of: prefix, with: "") }
        return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `diff -u` of each named file between two folders (a missing file is
    /// empty), labelled with package-relative paths.
    static func diff(_ names: [String], from old: URL, to new: URL, root: URL) throws -> String {
        let workspace = root.standardizedFileURL.path + "/"
        func label(_ url: URL) -> String {
            let path = url.standardizedFileURL.path
            return path.hasPrefix(workspace) ? String(path.dropFirst(workspace.count)) : path
        }
        var parts: [String] = []
        for name in names {
            let oldFile = old.appendingPathComponent(name)
            let newFile = new.appendingPathComponent(name)
            func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }
            let result = try run(
                [
                    "diff", "-u", "--label", exists(oldFile) ? label(oldFile) : "/dev/null", "--label",
                    exists(newFile) ? label(newFile) : "/dev/null", exists(oldFile) ? oldFile.path : "/dev/null",
                    exists(newFile) ? newFile.path : "/dev/null",
                ], in: root)
            guard result.status <= 1 else { throw DiffFailed(output: result.output) }
            if !result.output.isEmpty { parts.append(result.output.trimmingCharacters(in: .newlines)) }
        }
        return parts.joined(separator: "\n")
    }

    struct ShellError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    struct DiffFailed: Error, CustomStringConvertible {
        let output: String
        var description: String { "diff failed: \(output)" }
    }
}
