import Foundation
import LessonKit

exit(
    await LessonMain.run(
        6, controller: AppsViewController.self,
        variants: [
            LessonVariant(
                flag: "last-component-names",
                help:
                    "the tutorials' file names (the URL's last path component): …/qq/icon.png and …/wechat/icon.png collide",
                controller: LastComponentNamesViewController.self)
        ]))
