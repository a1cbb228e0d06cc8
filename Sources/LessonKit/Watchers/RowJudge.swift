import SlowNetwork
import TableKit

/// What a visible row shows, judged by its image's pixels: nothing, the
/// placeholder, its own icon, or another row's.
enum RowState: Equatable, Codable {
    case blank, placeholder, own
    /// Another row's icon; the row it belongs to, when known.
    case wrong(Int?)
}

/// Judges a visible row by the image it shows against the icon its catalog
/// URL serves. Each row's fingerprint (the served icon, decoded and hashed)
/// is worked out the first time the row is on screen and kept: the cost
/// follows the rows shown, not the rows in the catalog.
final class RowJudge {
    /// Each row's icon URL.
    private let icons: [String]
    /// Each row's fingerprint once worked out, by row: looked up for every visible row of every frame.
    private var expected: [Int?]
    /// The row each icon seen so far belongs to: the reuse bug's late icon
    /// always comes from a row that was on screen, so it is known here.
    private var rowOfIcon: [Int: Int] = [:]

    init(iconURLs: [String]) {
        icons = iconURLs
        expected = Array(repeating: nil, count: iconURLs.count)
    }

    func state(of visible: VisibleRow) -> RowState {
        let own = expectedFingerprint(ofRow: visible.row)
        guard let image = visible.image else { return .blank }
        if image.isPlaceholder { return .placeholder }
        if own == image.fingerprint { return .own }
        return .wrong(rowOfIcon[image.fingerprint])
    }

    private func expectedFingerprint(ofRow row: Int) -> Int? {
        guard icons.indices.contains(row) else { return nil }
        if let known = expected[row] { return known }
        let fingerprint = IconFingerprint.of(icons[row]) ?? 0
        expected[row] = fingerprint
        if rowOfIcon[fingerprint] == nil { rowOfIcon[fingerprint] = row }
        return fingerprint
    }
}
