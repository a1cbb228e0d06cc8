import Foundation
import LessonSupport
import TableKit

/// The pool as it is first written (`--naive-pool`): a download leaves the
/// pool only when it worked. The `if` has no `else`, so a failed icon keeps its
/// finished operation in the pool, and every later visit to its row finds it
/// there and waits for a download that will never come back: never retried.
final class NaivePoolViewController: AppsViewController {
    override func downloadFinished(icon: String, image: Image?, at indexPath: IndexPath) {
        if let image {
            operations[icon] = nil
            imageCache[icon] = image
            tableView.reloadRows(at: [indexPath])
        }
    }
}

extension AppsViewController {
    /// `swift run Lesson05OperationPool --naive-pool` plays the pool before its fix.
    static var variants: [LessonVariant] {
        [
            LessonVariant(
                flag: "naive-pool", help: "the pool before its fix: a failed download stays in it, never retried",
                controller: NaivePoolViewController.self)
        ]
    }
}
