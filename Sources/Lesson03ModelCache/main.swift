import Foundation
import LessonKit

exit(await LessonMain.run(3, controller: AppsViewController.self))
