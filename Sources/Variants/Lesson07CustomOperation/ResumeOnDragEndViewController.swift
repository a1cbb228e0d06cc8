import Foundation
import LessonSupport
import TableKit

/// The queue resumed as some tutorials do (`--resume-on-drag-end`): as soon as
/// the finger lifts, even when the table goes on gliding after a flick.
/// Downloads start while it glides, competing with the scroll the suspension
/// was for.
final class ResumeOnDragEndViewController: AppsViewController {
    override func scrollViewDidEndDragging(_ tableView: TableView, willDecelerate decelerate: Bool) {
        queue.isSuspended = false
    }
}

extension AppsViewController {
    /// The tutorials' own slips on the way to this step, each played by a flag
    /// (`swift run Lesson07CustomOperation --resume-on-drag-end`).
    static var variants: [LessonVariant] {
        [
            LessonVariant(
                flag: "resume-on-drag-end",
                help: "the queue resumes when the finger lifts, not when the table stops gliding",
                controller: ResumeOnDragEndViewController.self),
            LessonVariant(
                flag: "assign-delegate",
                help: "the tutorials' assign delegate: leave while downloads run, and the app crashes",
                controller: AssignDelegateViewController.self),
        ]
    }
}
