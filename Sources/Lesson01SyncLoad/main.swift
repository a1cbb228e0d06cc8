import Foundation
import LessonKit

exit(await LessonMain.run(1, controller: AppsViewController.self))
