import Foundation
import LessonChecks
import LessonKit
import LessonSupport
import SlowNetwork
import TableKit
import Testing

@testable import Lesson07CustomOperation

/// An exercise is solved only when every bug fixed so far stays fixed: the
/// check of exercise 7 plays the bugs of steps 2–6 too, as safeguards. Two
/// controllers written for these tests fix exercise 7's own bugs and break an
/// earlier one each, as a port of a published tutorial did.
@Suite struct EarlierFixesTests {
    static func check(_ controller: any LessonController.Type) async -> [CheckResult] {
        await ExerciseProof.imageList(7, controller)
    }

    @Test func exercise7ChecksEveryBugFixedUpToStep7() {
        let names = ImageListChecks.bugs(exercise: 7).map(\.name)
        #expect(Set(names) == Set(KnownBug.all.filter { $0.fixedIn <= 7 }.map(\.name)))
        let own = ImageListChecks.bugs(exercise: 7).filter { !ImageListChecks.isSafeguard($0, exercise: 7) }
        #expect(own.allSatisfy { $0.fixedIn == 7 } && own.count == 3)
    }

    @Test func reloadingOnANilImageBreaksTheOfflineSafeguard() async throws {
        let results = await Self.check(ReloadsEvenWithoutAnIcon.self)
        let offline = try #require(results.first { $0.bug == "offline, a failed download asks again, forever" })
        #expect(offline.isSafeguard)
        #expect(!offline.passed, "\(offline.measured)")
        #expect(results.rendered(exercise: 7).contains("✗ broken    offline, a failed download asks again, forever"))
        // Exercise 7's own bugs are fixed: the verdict names only what broke.
        let notPassed = results.filter { !$0.passed }.map(\.bug)
        #expect(notPassed == ["offline, a failed download asks again, forever"])
    }

    @Test func skippingTheDiskReadBreaksTheRelaunchSafeguard() async throws {
        let results = await Self.check(NeverReadsTheDisk.self)
        let relaunch = try #require(results.first { $0.bug == "a relaunch downloads every icon again" })
        #expect(relaunch.isSafeguard)
        #expect(!relaunch.passed, "\(relaunch.measured)")
        #expect(!results.allPassed)
    }
}

/// Step 7's fixes, but the download's end reloads the row whatever it
/// brought, as the tutorials' first version did.
final class ReloadsEvenWithoutAnIcon: Lesson07CustomOperation.AppsViewController {
    override func downloadFinished(icon: String, image: Image?, at indexPath: IndexPath) {
        operations[icon] = nil
        if let image { imageCache[icon] = image }
        tableView.reloadRows(at: [indexPath])
    }
}

/// Step 7's fixes, and it writes every icon to disk, but `cellForRowAt` goes
/// from memory straight to the network: the disk is never read.
final class NeverReadsTheDisk: Lesson07CustomOperation.AppsViewController {
    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        let cell = tableView.dequeueReusableCell(withIdentifier: "app", for: indexPath)
        let app = apps[indexPath.row]
        cell.textLabel.text = app.name
        cell.detailTextLabel.text = app.download
        if let image = imageCache[app.icon] {
            cell.imageView.image = image
            return cell
        }
        cell.imageView.image = Image.placeholder
        if operations[app.icon] != nil { return cell }
        let operation = DownloadOperation(
            icon: app.icon, indexPath: indexPath, file: cacheFile(for: app.icon), network: network)
        operation.delegate = self
        operations[app.icon] = operation
        queue.addOperation(operation)
        return cell
    }
}
