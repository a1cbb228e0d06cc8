import Foundation
import LessonKit

exit(await LessonMain.run(7, controller: AppsViewController.self))
