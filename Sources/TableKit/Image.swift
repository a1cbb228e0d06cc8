import Foundation
import UnseenSync

/// A decoded image: `UIImage(data:)` for binary PPM (P6), the format the
/// simulated CDN serves. Bad bytes give nil, as `UIImage(data:)` does.
///
/// Images are counted while they live (see `Instruments`), so a test can see
/// what a memory warning really freed.
public final class Image: Sendable {
    public let width: Int
    public let height: Int
    /// RGB, row by row.
    public let pixels: [UInt8]
    /// Equal for images with equal pixels; how the harness tells a row's own
    /// icon from another row's (the reuse bug) by looking at what is drawn.
    public let fingerprint: Int
    public let isPlaceholder: Bool
    private let instruments: Instruments?

    public var byteCount: Int { pixels.count }

    public convenience init?(data: Data) {
        // Out of Thread Sanitizer's sight: decoding calls the Swift runtime's metadata lookups, and on Linux
        // each passes a process-wide `once` that TSan is told of, which the main queue passes all the time too
        // (docs/architecture.md, "The race run").
        unseen_begin()
        defer { unseen_end() }
        guard let decoded = PPM.decode(data) else { return nil }
        self.init(width: decoded.width, height: decoded.height, pixels: decoded.pixels, isPlaceholder: false)
    }

    private init(width: Int, height: Int, pixels: [UInt8], isPlaceholder: Bool) {
        self.width = width
        self.height = height
        self.pixels = pixels
        self.fingerprint = Self.fingerprint(of: pixels)
        self.isPlaceholder = isPlaceholder
        self.instruments = isPlaceholder ? nil : Instruments.current
        instruments?.imageCreated(ObjectIdentifier(self), bytes: pixels.count)
    }

    deinit {
        instruments?.imageFreed(ObjectIdentifier(self))
    }

    /// The fingerprint an image decoded from `data` would have, without making
    /// (and counting) the image.
    public static func fingerprint(of data: Data) -> Int? {
        PPM.decode(data).map { fingerprint(of: $0.pixels) }
    }

    private static func fingerprint(of pixels: [UInt8]) -> Int {
        var hasher = Hasher()
        hasher.combine(pixels)
        return hasher.finalize()
    }

    /// The grey tile with a dotted frame that async steps show while an icon loads.
    public static let placeholder: Image = {
        let side = 16
        var pixels = [UInt8]()
        for y in 0..<side {
            for x in 0..<side {
                let edge = x == 0 || y == 0 || x == side - 1 || y == side - 1
                let value: UInt8 = edge && (x + y) % 2 == 0 ? 200 : 90
                pixels += [value, value, value]
            }
        }
        return Image(width: side, height: side, pixels: pixels, isPlaceholder: true)
    }()
}

/// The binary PPM reader: header "P6 width height maxval", whitespace and
/// comments allowed, then width × height RGB triples.
enum PPM {
    static let largestSide = 4096

    static func decode(_ data: Data) -> (width: Int, height: Int, pixels: [UInt8])? {
        let bytes = [UInt8](data)
        var position = 0
        func token() -> String? {
            while position < bytes.count {
                if bytes[position] == UInt8(ascii: "#") {
                    while position < bytes.count && bytes[position] != UInt8(ascii: "\n") { position += 1 }
                } else if isSpace(bytes[position]) {
                    position += 1
                } else {
                    break
                }
            }
            let start = position
            while position < bytes.count && !isSpace(bytes[position]) { position += 1 }
            return start < position ? String(decoding: bytes[start..<position], as: UTF8.self) : nil
        }
        guard token() == "P6",
            let width = token().flatMap(Int.init), let height = token().flatMap(Int.init),
            let maxValue = token().flatMap(Int.init),
            (1...largestSide).contains(width), (1...largestSide).contains(height), maxValue == 255,
            position < bytes.count
        else { return nil }
        position += 1  // the single whitespace byte that ends the header
        let count = width * height * 3
        guard bytes.count - position >= count else { return nil }
        return (width, height, Array(bytes[position..<position + count]))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }
}
