import Foundation
import LessonKit
import SlowNetwork
import Testing

@testable import TableKit
@testable import TerminalKit

/// A data source like the tutorials': it sets each row's title, and its icon
/// only where it was told to. Everything it does runs on the main queue.
private final class RowsController: TableViewController {
    let rowCount: Int
    /// The rows whose icon this data source sets; other rows' image views are left alone.
    var iconsFor: [Int: Image] = [:]
    /// Each cell object's rows, in the order it showed them.
    var rowsShownByCell: [ObjectIdentifier: [Int]] = [:]

    init(rowCount: Int, visibleRowCount: Int = 8) {
        self.rowCount = rowCount
        super.init(visibleRowCount: visibleRowCount)
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { rowCount }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
        cell.textLabel.text = "row \(indexPath.row)"
        if let icon = iconsFor[indexPath.row] { cell.imageView.image = icon }
        rowsShownByCell[ObjectIdentifier(cell), default: []].append(indexPath.row)
        return cell
    }
}

@Suite struct TableKitTests {
    @Test func scrollingAHundredRowsReusesAboutOneScreenfulOfCells() async throws {
        // Outside any scenario: its main-queue work must not show in another test's frames.
        let (created, requests, held, distinct) = await ExclusiveRun.run { _ in
            await MainActor.run {
                let controller = RowsController(rowCount: 100)
                controller.tableView.reloadData()
                // Scroll to the bottom in quarter rows, as a finger would.
                var offset = 0.0
                while offset < controller.tableView.maximumOffset {
                    offset += 0.25
                    controller.tableView.setContentOffset(offset)
                }
                return (
                    controller.tableView.cellsCreated, controller.tableView.cellRequests,
                    controller.tableView.allCells.count, controller.rowsShownByCell.count
                )
            }
        }
        // 8 rows fit; part-scrolled, 9 show. Every row was asked for, but only
        // a screenful of cell objects was ever made.
        #expect(created == 9, "one cell object per row a part-scrolled screen shows")
        #expect(requests == 100, "each of the 100 rows asked for once, as it first showed")
        #expect(held == created && distinct == created)
    }

    @Test func aReusedCellShowsItsNewRowsTextButKeepsTheOldRowsImage() async throws {
        try await ExclusiveRun.run { instruments in
            let rowTwoIcon = try #require(Image(data: IconArt.ppm(for: "https://example.com/row2.png")))
            let rowThirtyIcon = try #require(Image(data: IconArt.ppm(for: "https://example.com/row30.png")))
            let icons = Unchecked((rowTwoIcon, rowThirtyIcon))
            let result = await MainActor.run {
                let (rowTwoIcon, rowThirtyIcon) = icons.value
                let controller = RowsController(rowCount: 100)
                controller.iconsFor = [2: rowTwoIcon]
                let table = controller.tableView
                table.reloadData()
                table.setContentOffset(2)
                let rowTwoCell = table.cellForRow(at: IndexPath(row: 2))
                // One jump: rows 2…9 leave, rows 23…30 arrive and take their cells.
                table.setContentOffset(23)
                let rowThirtyCell = table.cellForRow(at: IndexPath(row: 30))
                let reused = rowTwoCell != nil && rowTwoCell === rowThirtyCell
                let shownBefore = rowThirtyCell.map { controller.rowsShownByCell[ObjectIdentifier($0)] ?? [] } ?? []
                let text = rowThirtyCell?.textLabel.text
                let keptOldImage = rowThirtyCell?.imageView.image === rowTwoIcon

                // A data source that does set row 30's image: the reused cell shows it.
                controller.iconsFor[30] = rowThirtyIcon
                table.reloadRows(at: [IndexPath(row: 30)])
                let showsOwnImage = table.cellForRow(at: IndexPath(row: 30))?.imageView.image === rowThirtyIcon
                return Unchecked((reused, shownBefore, text, keptOldImage, showsOwnImage))
            }
            let (reused, shownBefore, text, keptOldImage, showsOwnImage) = result.value
            #expect(reused, "the cell that showed row 2 is the one reused for row 30")
            #expect(shownBefore.first == 2 && shownBefore.last == 30)
            #expect(text == "row 30")
            #expect(keptOldImage, "nothing reset the image: row 30 shows row 2's icon (the reuse bug's cause)")
            #expect(showsOwnImage)
            #expect(instruments.mainQueueViolations.isEmpty)
        }
    }

    @Test func uiTouchedOffTheMainQueueIsRecordedAsAViolation() async throws {
        await ExclusiveRun.run { instruments in
            let cell = Unchecked(TableViewCell(reuseIdentifier: "cell"))
            await MainActor.run {
                cell.value.imageView.image = Image.placeholder
                cell.value.textLabel.text = "on the main queue"
            }
            #expect(instruments.mainQueueViolations.isEmpty)
            await Rig.onThread {
                cell.value.imageView.image = Image.placeholder
                cell.value.detailTextLabel.text = "from a download thread"
            }
            #expect(
                instruments.mainQueueViolations == [
                    "ImageView.image set off the main queue", "Label.text set off the main queue",
                ])
            await Rig.onThread {
                _ = TableView(visibleRowCount: 3).cellForRow(at: IndexPath(row: 0))
            }
            #expect(instruments.mainQueueViolations.last == "TableView.cellForRow called off the main queue")
        }
    }

    static let badImages: [(String, Data)] = {
        let pixels = IconArt.ppm(for: "https://example.com/icon.png").dropFirst(13)
        var random = SeededGenerator(seed: 9)
        return [
            ("empty", Data()),
            ("garbage", Data((0..<800).map { _ in UInt8.random(in: 0...255, using: &random) })),
            ("html", Data("<html>404 Not Found</html>".utf8)),
            ("truncated", Data("P6\n16 16\n255\n".utf8) + pixels.prefix(pixels.count / 2)),
            ("header only", Data("P6\n16 16\n255\n".utf8)),
            ("huge dimensions", Data("P6\n100000 100000\n255\n".utf8) + pixels),
            ("largest side, few pixels", Data("P6\n4096 4096\n255\n".utf8) + pixels),
            ("overflowing width", Data("P6\n99999999999999999999999 1\n255\n".utf8) + pixels),
            ("negative width", Data("P6\n-16 16\n255\n".utf8) + pixels),
            ("zero height", Data("P6\n16 0\n255\n".utf8) + pixels),
            ("16-bit samples", Data("P6\n16 16\n65535\n".utf8) + pixels),
            ("ASCII PPM", Data("P3\n1 1\n255\n1 2 3\n".utf8)),
        ]
    }()

    @Test func imageFromBadBytesIsNil() async throws {
        let icon = IconArt.ppm(for: "https://example.com/icon.png")
        #expect(icon.starts(with: Data("P6\n16 16\n255\n".utf8)), "the cases below assume this 13-byte header")
        try await ExclusiveRun.run { instruments in
            for (name, bytes) in Self.badImages {
                #expect(Image(data: bytes) == nil, "\(name)")
            }
            let image = try #require(Image(data: icon))
            #expect(image.width == 16 && image.height == 16 && image.byteCount == 16 * 16 * 3)
            // A comment in the header is allowed, as in any PPM reader.
            let commented = Data("P6\n# made by IconArt\n16 16\n255\n".utf8) + icon.dropFirst(13)
            #expect(Image(data: commented)?.fingerprint == image.fingerprint)
            #expect(instruments.liveImageBytes == image.byteCount)
        }
    }

    @Test func instrumentsCountLiveImageBytesAndFreeThemOnDeinit() async throws {
        let bytesEach = 16 * 16 * 3
        await ExclusiveRun.run { instruments in
            var images = (0..<3).compactMap { Image(data: IconArt.ppm(for: "https://example.com/\($0).png")) }
            #expect(images.count == 3)
            #expect(instruments.liveImageBytes == 3 * bytesEach)
            #expect(instruments.liveImageBytes(excluding: [ObjectIdentifier(images[0])]) == 2 * bytesEach)
            // The placeholder is shared, drawn by the system: never counted.
            _ = Image.placeholder
            #expect(instruments.liveImageBytes == 3 * bytesEach)
            images.removeFirst()
            #expect(instruments.liveImageBytes == 2 * bytesEach)
            images.removeAll()
            #expect(instruments.liveImageBytes == 0)
        }

        // An image outlives the scenario it was made in and still signs out of
        // that scenario's instruments, not of whichever came next.
        var kept: Image?
        let earlier = await ExclusiveRun.run { instruments in
            kept = Image(data: IconArt.ppm(for: "https://example.com/kept.png"))
            return instruments
        }
        let later = await ExclusiveRun.run { instruments in
            #expect(earlier.liveImageBytes == bytesEach)
            #expect(kept != nil)
            kept = nil
            #expect(earlier.liveImageBytes == 0)
            return instruments
        }
        #expect(later.liveImageBytes == 0)
    }

    /// A label made in one scenario and touched off the main queue after it
    /// ended (a late download of that run) is counted in that run, not in the
    /// one running when the touch happens.
    @Test func aLateTouchCountsInTheRunThatMadeTheObject() async throws {
        let (earlier, made) = await ExclusiveRun.run { instruments in (instruments, Label()) }
        nonisolated(unsafe) let label = made
        let later = await ExclusiveRun.run { instruments in
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Thread.detachNewThread {
                    label.text = "late"
                    done.resume()
                }
            }
            return instruments
        }
        #expect(earlier.mainQueueViolations == ["Label.text set off the main queue"])
        #expect(later.mainQueueViolations.isEmpty)
    }

    /// What an image library hears instead of UIKit's tracking run-loop mode:
    /// once when the table starts moving under the hand, once when it is at
    /// rest again, whether the finger lifts still or the content glides on.
    @Test func aTableSaysWhenItStartsAndStopsMovingUnderTheHand() async throws {
        let heard = await ExclusiveRun.run { _ in
            await MainActor.run { () -> [String] in
                let controller = RowsController(rowCount: 40)
                let table = controller.tableView
                let names = [
                    TableView.didBeginTrackingNotification: "begin", TableView.didEndTrackingNotification: "end",
                ]
                let heard = Words()
                let observers = names.map { name, word in
                    NotificationCenter.default.addObserver(forName: name, object: table, queue: nil) { _ in
                        heard.words.append(word)
                    }
                }
                defer { observers.forEach(NotificationCenter.default.removeObserver) }
                table.reloadData()
                table.beginDragging()
                table.endDragging(willDecelerate: false)
                heard.words.append("|")
                // A flick: the finger lifts, the content glides, comes to rest.
                table.beginDragging()
                table.endDragging(willDecelerate: true)
                heard.words.append("gliding")
                table.endDecelerating()
                heard.words.append("|")
                // Caught while gliding: one movement, from the flick to the rest.
                table.beginDragging()
                table.endDragging(willDecelerate: true)
                table.beginDragging()
                table.endDragging(willDecelerate: false)
                return heard.words
            }
        }
        #expect(heard == ["begin", "end", "|", "begin", "gliding", "end", "|", "begin", "end"])
    }

    final class Words: @unchecked Sendable {
        var words: [String] = []
    }

    /// An image view's load progress, drawn in its row: eight cells filled in
    /// eighths on a terminal, `#`s in plain text.
    @Test func aLoadingRowShowsItsProgressAsABar() {
        let row = VisibleRow(row: 3, title: "QQ", detail: "1万", image: Image.placeholder, progress: 0.5)
        func screen(_ style: TerminalScreen.Style, _ row: VisibleRow) -> String {
            TerminalScreen(style: style).render(
                header: "", snapshot: ScreenSnapshot(contentOffset: 0, rows: [row]), marks: [:], status: [])
        }
        let plain = screen(.plain, row)
        #expect(plain.contains("[####    ]  50%"), "\(plain)")
        let colour = screen(.colour, row)
        #expect(colour.contains("▕████    ▏ 50%"))
        let almost = TerminalScreen(style: .colour).progressBar(0.99)
        #expect(almost == "▕███████▉▏ 99%")
        let none = VisibleRow(row: 3, title: "QQ", detail: "1万", image: Image.placeholder)
        #expect(!screen(.plain, none).contains("%"))
    }
}
