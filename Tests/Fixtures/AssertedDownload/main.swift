import Foundation
import LessonKit

// Played as step 3's scenarios, as the workbench plays a learner's code.
exit(await LessonMain.run(LessonCatalog.entry(3)!, controller: AppsViewController.self))
