import Foundation
import HostOS

/// A file the user names for a lesson to write (`--timeline FILE.svg`): a new
/// regular file, or a regular file written over in place, and nothing else.
///
/// Written over in place, like `cp` does, so the file keeps its mode, its
/// owner and its hard links; its room reserved first, so a full disk leaves
/// the old file whole. A symbolic link, a FIFO, a device or a folder
/// is refused with a sentence that says what it is: writing "atomically" (a
/// new file renamed over the name) would have turned each of them into a
/// regular file.
public enum OutputFile {
    /// Why `path` cannot be written, or nil when it can: checked before a run,
    /// so the learner does not wait for a run whose picture has nowhere to go.
    public static func problem(at path: String) -> String? {
        switch HostFiles.kind(of: path) {
        case .success(let kind):
            if let kind = notARegularFile(kind, path: path) { return kind }
            return HostFiles.whyUnwritable(path)?.description
        case .failure(let error) where !error.isNoSuchFile:
            return error.description
        case .failure:
            break
        }
        let folder = (path as NSString).deletingLastPathComponent
        let parent = folder.isEmpty ? "." : folder
        guard case .success(let status) = HostFiles.status(of: parent), status.kind == .folder else {
            return "the folder \(parent) does not exist"
        }
        return HostFiles.whyUnwritable(parent).map { "cannot make a file in \(parent): \($0)" }
    }

    /// Writes `text` to `path`.
    public static func write(_ text: String, to path: String) throws(OutputFileError) {
        if let problem = problem(at: path) { throw OutputFileError(path: path, problem: problem) }
        switch HostFiles.writeInPlace(Array(text.utf8), to: path) {
        case nil: return
        case .notARegularFile?:
            throw OutputFileError(path: path, problem: "it changed into something that is not a regular file")
        case .failed(let error)?:
            throw OutputFileError(path: path, problem: error.description)
        }
    }

    private static func notARegularFile(_ kind: HostFiles.Kind, path: String) -> String? {
        switch kind {
        case .regular: nil
        case .folder:
            "it is a folder; give a file name, such as \((path as NSString).appendingPathComponent("timeline.svg"))"
        case .link: "it is a symbolic link; give the file it points to, or a new name (the link is left alone)"
        case .fifo: "it is a FIFO (a named pipe), not a regular file"
        case .device: "it is a device, not a regular file"
        case .socket: "it is a socket, not a regular file"
        case .other: "it is not a regular file"
        }
    }
}

public struct OutputFileError: Error, CustomStringConvertible, Sendable {
    public let path: String
    public let problem: String

    public var description: String { "cannot write \(path): \(problem)" }
}
