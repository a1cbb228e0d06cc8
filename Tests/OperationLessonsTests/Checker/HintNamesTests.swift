import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import Testing

/// A hint names an identifier only if the learner's files have it: checked
/// by exercise 3, the controller below (step 2's code under other names, as
/// a learner or a tutorial writes it) has no `struct AppInfo` to look at.
@Suite struct HintNamesTests {
    /// The end of this file, from the line that says so, as the learner's only file.
    static let code = LearnerCode(files: [
        "IconListController.swift": ((try? String(contentsOfFile: #filePath, encoding: .utf8)) ?? "")
            .components(separatedBy: "// The learner's file").last ?? ""
    ])

    @Test func aPlaceTheCodeLacksIsNamedByItsRole() async throws {
        let results = await ImageListChecks.check(
            exercise: 3, code: Self.code, run: ImageListChecks.inProcess(RenamedIconsController.self, exercise: 3))
        let repeats = try #require(results.first { $0.bug == "every scroll back downloads the icons again" })
        #expect(!repeats.passed)
        #expect(repeats.hint.hasSuffix("Look at where your code keeps each row's data."))
        #expect(!repeats.hint.contains("AppInfo"))
        // A place the code has is named, in the file that has it.
        let late = try #require(results.first { $0.bug == "a late icon lands in a reused cell of another row" })
        #expect(!late.passed)
        #expect(late.hint.hasSuffix("Look at `OperationQueue.main.addOperation` in IconListController.swift."))
    }
}

// The learner's file, from here on.

struct StoreEntry: Decodable {
    let name: String
    let icon: String
    let download: String
}

/// Step 2's controller, its names its own.
final class RenamedIconsController: TableViewController, LessonController, @unchecked Sendable {
    let network: SlowNetwork
    let catalogURL: URL
    lazy var records: [StoreEntry] = {
        guard let data = try? Data(contentsOf: catalogURL) else { return [] }
        return (try? PropertyListDecoder().decode([StoreEntry].self, from: data)) ?? []
    }()
    lazy var downloads = OperationQueue()

    required init(environment: LessonEnvironment) {
        network = environment.network
        catalogURL = environment.catalogURL
        super.init()
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int {
        records.count
    }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let record = records[indexPath.row]
        cell.textLabel.text = record.name
        cell.detailTextLabel.text = record.download
        cell.imageView.image = Image.placeholder
        let network = self.network
        // Swift 6 asks for this; the tutorials' code, in Swift 5 mode, does not.
        nonisolated(unsafe) let shown = cell
        downloads.addOperation {
            let bytes = URL(string: record.icon).flatMap { try? network.data(contentsOf: $0) }
            let image = bytes.flatMap { Image(data: $0) }
            OperationQueue.main.addOperation { shown.imageView.image = image }
        }
        return cell
    }
}
