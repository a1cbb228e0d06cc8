import Foundation
import LotteryMachineStory

exit(await LotteryMachineStory.run(LotteryViewController.self))
