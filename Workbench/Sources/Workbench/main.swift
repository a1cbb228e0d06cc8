// The workbench of exercise 2 (async with a placeholder), written by `swift run lessons exercise 2`.
// `swift run --package-path Workbench Workbench` runs your code like a lesson (`--help` for the flags);
// `swift run lessons check` builds it and checks it.
import Foundation
import LessonChecks

exit(await WorkbenchMain.run(exercise: 2, controller: AppsViewController.self))
