import Foundation
import HarnessSync
import TableKit

/// A run's screen as a stream of JSON lines (`--frames`), for a program that
/// draws it elsewhere: `lessons compare` plays two steps, each in a process of
/// its own, and lays their screens side by side. One object a line:
///
///     {"image":{"id":1,"width":16,"height":16,"rgb":"<base64>"}}   an icon, the first time it is shown
///     {"frame":{"ms":2016.7,"rows":[{"row":0,"title":"QQ","detail":"3177万","image":1,
///               "mark":"✓ its icon","progress":null}],"status":"requests 8 …","step":null}}
///     {"end":{"report":{…},"timeline":{…}}}                          the run's report and timeline, last
///
/// A row's `image` is an id (0 is the placeholder), or null for none; `ms` is
/// story time; `step` names the script step the frame closes. The reader
/// trusts nothing in it: text is made printable where it is drawn, and a line
/// it cannot read ends the stream as broken.
public enum FrameStream {
    /// One line of the stream.
    struct Line: Codable {
        var image: StreamedImage?
        var frame: StreamedFrame?
        var end: End?
    }

    struct StreamedImage: Codable {
        var id: Int
        var width: Int
        var height: Int
        var rgb: String
    }

    struct StreamedRow: Codable {
        var row: Int
        var title: String?
        var detail: String?
        var image: Int?
        var mark: String
        var progress: Double?
    }

    struct StreamedFrame: Codable {
        var ms: Double
        var rows: [StreamedRow]
        var status: String
        var step: String?
    }

    public struct End: Codable, Sendable {
        public var report: Report
        public var timeline: Timeline

        public init(report: Report, timeline: Timeline) {
            self.report = report
            self.timeline = timeline
        }
    }

    static let placeholderID = 0

    /// The writing end, in the step's process: each frame its display is
    /// handed, then the run's end.
    public final class Writer: @unchecked Sendable {
        private let lock = Locked(.seen)
        /// Ids of the icons sent so far, by pixel fingerprint.
        private var sent: [Int: Int] = [:]
        private let write: @Sendable (String) -> Void

        public init(write: @escaping @Sendable (String) -> Void) {
            self.write = write
        }

        public func frame(_ frame: ScreenFrame) {
            var lines: [Line] = []
            let rows = lock.withLock {
                frame.snapshot.rows.map { visible in
                    StreamedRow(
                        row: visible.row, title: visible.title, detail: visible.detail,
                        image: visible.image.map { id(for: $0, announcing: &lines) },
                        mark: frame.marks[visible.row] ?? "",
                        progress: visible.progress)
                }
            }
            lines.append(
                Line(
                    frame: StreamedFrame(ms: frame.storyMs, rows: rows, status: frame.status, step: frame.finishedStep))
            )
            write(lines.map(Self.encoded).joined())
        }

        public func end(_ end: End) {
            write(Self.encoded(Line(end: end)))
        }

        /// Called with the lock held.
        private func id(for image: Image, announcing lines: inout [Line]) -> Int {
            if image.isPlaceholder { return placeholderID }
            if let id = sent[image.fingerprint] { return id }
            let id = sent.count + 1
            sent[image.fingerprint] = id
            lines.append(
                Line(
                    image: StreamedImage(
                        id: id, width: image.width, height: image.height, rgb: Data(image.pixels).base64EncodedString())
                ))
            return id
        }

        private static func encoded(_ line: Line) -> String {
            let encoder = JSONEncoder()
            encoder.nonConformingFloatEncodingStrategy = .convertToString(
                positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
            guard let data = try? encoder.encode(line) else { return "" }
            return String(decoding: data, as: UTF8.self) + "\n"
        }
    }

    /// The reading end: pieces of the stream as they come (on a reader thread),
    /// frames and the end as they are complete.
    public final class Reader: @unchecked Sendable {
        private let lock = Locked(.seen)
        private var pending = Data()
        /// How much of `pending` is known to hold no line's end.
        private var searched = 0
        private var images: [Int: Image] = [placeholderID: .placeholder]
        private var frames: [ScreenFrame] = []
        private var ending: End?
        private var problem: String?

        public init() {}

        /// Takes a piece of the stream (any length, cut anywhere).
        public func receive(_ data: Data) {
            lock.withLock {
                guard problem == nil else { return }
                pending.append(data)
                while let newline = nextLineEnd() {
                    let line = pending.prefix(newline)
                    pending = Data(pending.dropFirst(newline + 1))
                    searched = 0
                    read(line)
                }
                searched = pending.count
            }
        }

        /// Where the next line ends in `pending` (its offset), looking only past what earlier pieces left: the
        /// last line, the report and its timeline, comes in hundreds of pieces, and searched from its start at
        /// each it was 58 % of the CPU of a `lessons compare 5 --json` (1.5 s).
        private func nextLineEnd() -> Int? {
            pending.withUnsafeBytes { bytes -> Int? in
                guard let start = bytes.baseAddress, searched < bytes.count,
                    let found = memchr(start + searched, Int32(UInt8(ascii: "\n")), bytes.count - searched)
                else { return nil }
                return start.distance(to: UnsafeRawPointer(found))
            }
        }

        /// The frames that came since the last call, oldest first.
        public func takeFrames() -> [ScreenFrame] {
            lock.withLock {
                defer { frames.removeAll() }
                return frames
            }
        }

        /// The run's report and timeline, once its last line came.
        public var end: End? { lock.withLock { ending } }

        /// Why the stream could not be read, if it could not.
        public var brokenBecause: String? { lock.withLock { problem } }

        /// Called with the lock held.
        private func read(_ bytes: Data) {
            guard !bytes.isEmpty else { return }
            let decoder = JSONDecoder()
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(
                positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
            guard let line = try? decoder.decode(Line.self, from: bytes) else {
                problem =
                    "a line of its screen stream could not be read: \(String(decoding: bytes.prefix(80), as: UTF8.self))"
                return
            }
            if let image = line.image {
                guard let pixels = Data(base64Encoded: image.rgb),
                    let decoded = Image(data: Data("P6\n\(image.width) \(image.height)\n255\n".utf8) + pixels)
                else {
                    problem = "icon \(image.id) of its screen stream is not an image"
                    return
                }
                images[image.id] = decoded
            }
            if let frame = line.frame {
                var marks: [Int: String] = [:]
                let rows = frame.rows.map { row in
                    marks[row.row] = row.mark
                    return VisibleRow(
                        row: row.row, title: row.title, detail: row.detail, image: row.image.flatMap { images[$0] },
                        progress: row.progress)
                }
                frames.append(
                    ScreenFrame(
                        storyMs: frame.ms, snapshot: ScreenSnapshot(contentOffset: 0, rows: rows), marks: marks,
                        status: frame.status, finishedStep: frame.step))
            }
            if let end = line.end { ending = end }
        }
    }
}
