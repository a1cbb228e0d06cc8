import Foundation
import LessonKit

exit(await LessonMain.run(2, controller: AppsViewController.self))
