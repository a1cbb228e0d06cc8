import Foundation
import LessonSupport
import TableKit

// A controller whose teardown crashes: its `deinit` checks that no row was
// ever shown, a debug check that fails once its screen goes away at the end
// of any story. Every figure of the story is measured by then; on a phone it
// would crash only when the user leaves the screen.
final class AppsViewController: TableViewController, LessonController {
    private var rowsShown = 0

    init(environment: LessonEnvironment) {
        super.init(visibleRowCount: 4)
    }

    deinit {
        precondition(rowsShown == 0, "the screen went away after showing \(rowsShown) rows")
    }

    override func tableView(_ tableView: TableView, numberOfRowsInSection section: Int) -> Int { 20 }

    override func tableView(_ tableView: TableView, cellForRowAt indexPath: IndexPath) -> TableViewCell {
        rowsShown += 1
        return tableView.dequeueReusableCell(withIdentifier: "row", for: indexPath)
    }
}
