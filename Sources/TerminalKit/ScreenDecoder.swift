/// Bytes read piece by piece as text: a read can end inside a character
/// ("·" is two bytes), whose first bytes wait for the next read rather than
/// each becoming a replacement character.
public struct ScreenDecoder: Sendable {
    private var held: [UInt8] = []

    public init() {}

    /// Whether no character waits for the rest of its bytes.
    public var isEmpty: Bool { held.isEmpty }

    /// The whole characters that `bytes`, after what was held, complete.
    public mutating func text(of bytes: some Collection<UInt8>) -> String {
        held += bytes
        // Back over the continuation bytes (10xxxxxx) at the end, at most three, to the character they belong to.
        var start = held.count
        while start > 0, held.count - start < 3, held[start - 1] & 0xC0 == 0x80 { start -= 1 }
        var whole = held.count
        if start > 0 {
            let lead = held[start - 1]
            let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
            if held.count - (start - 1) < length { whole = start - 1 }
        }
        let text = String(decoding: held[..<whole], as: UTF8.self)
        held.removeFirst(whole)
        return text
    }

    /// What is held once the bytes have ended: a character cut short, shown as a replacement character.
    public mutating func rest() -> String {
        defer { held = [] }
        return String(decoding: held, as: UTF8.self)
    }
}
