@testable import LessonKit
import Testing

/// The scenario gate, held around a run played on a loaded machine.
@Suite struct ScenarioGateTests {
    /// What loads the machine beside a run (`withBusyCores`: two threads spinning at full speed) starts once the
    /// run is next at the gate, and the run goes straight in. Before, the threads started while the run waited its
    /// turn behind every other test's runs, and loaded the cores for them (in a whole `swift test`, minutes).
    @Test func aLoadedRunHoldsTheGateBeforeTheCoresAreLoaded() async {
        let (held, report) = await withBusyCores {
            (ScenarioGate.isHeld, await HarnessTests.run(PendingOperationsController.self, HarnessTests.firstScreen).report)
        }
        #expect(held)
        #expect(report.stuck == nil, "\(report.stuck ?? "")")
    }

    /// Held, the gate lets the holder's own runs in, one after another, and nobody else's until it is let go.
    @Test func theHoldersRunsGoStraightInAndTheGateIsFreeAfter() async {
        let (first, second) = await ScenarioGate.holding {
            (
                await HarnessTests.run(PendingOperationsController.self, HarnessTests.firstScreen).report,
                await HarnessTests.run(PendingOperationsController.self, HarnessTests.firstScreen).report
            )
        }
        #expect(first.stuck == nil && second.stuck == nil)
        #expect(first.withoutWallTime == second.withoutWallTime)
        #expect(!ScenarioGate.isHeld)
        // Let go: a run of this task waits its turn again, and gets it.
        #expect(await HarnessTests.run(PendingOperationsController.self, HarnessTests.firstScreen).report.stuck == nil)
    }
}
