import Foundation
import LessonKit
import Testing

/// What Swift 6 catches, in the compiler's own words (Lessons/11): step 4's
/// cache written from another thread, four ways, each a fixture in
/// `Tests/Fixtures/Swift6/` compiled here with the toolchain in the Swift 6
/// language mode as far as `Swift6Check` compiles (`-emit-sil`: the region
/// checks run on SIL, after type checking), and the fix that compiles. Each
/// fixture's first line says what it must give.
@Suite struct Swift6DiagnosticsTests {
    static let fixtures = Rig.packageRoot.appendingPathComponent("Tests/Fixtures/Swift6")

    static let names = [
        "DetachedTaskWrite", "MainActorCacheWrite", "AddOperationWrite", "GlobalQueueWrite", "ActorCache",
        "RetainCycle",
    ]

    /// What `swiftc` said compiling `fixture` in `mode`: its status and its error lines.
    static func compile(_ fixture: String, mode: String = "6", check: String = "-emit-sil") async throws
        -> (status: Int32, errors: [String])
    {
        let source = fixtures.appendingPathComponent(fixture + ".swift").path
        let child = ChildProcess(command: ["swiftc", "-swift-version", mode, check, source, "-o", "/dev/null"])
        let finished = try await child.finished(watchdog: Watchdog(limit: .seconds(120)))
        let errors = finished.errors.split(separator: "\n").map(String.init).filter { $0.contains("error: ") }
        return (finished.status, errors)
    }

    /// The fixture's first line: `// expect: <diagnostic>` or `// expect: compiles`.
    static func expectation(_ fixture: String) throws -> String {
        let text = try String(contentsOf: fixtures.appendingPathComponent(fixture + ".swift"), encoding: .utf8)
        let first = text.prefix { $0 != "\n" }
        guard first.hasPrefix("// expect: ") else { throw TestFailure("\(fixture).swift has no '// expect:' line") }
        return String(first.dropFirst("// expect: ".count))
    }

    @Test(arguments: names)
    func eachFixtureGivesWhatItSays(_ fixture: String) async throws {
        let expected = try Self.expectation(fixture)
        let (status, errors) = try await Self.compile(fixture)
        if expected == "compiles" {
            #expect(status == 0 && errors.isEmpty, "\(fixture): \(errors)")
        } else {
            #expect(status != 0)
            #expect(errors.contains { $0.contains(expected) }, "\(fixture) said: \(errors)")
        }
    }

    /// The tutorials' Swift 5 mode says nothing about the same race.
    @Test func inSwift5ModeTheSameRaceCompiles() async throws {
        let (status, errors) = try await Self.compile("AddOperationWrite", mode: "5")
        #expect(status == 0 && errors.isEmpty, "\(errors)")
    }

    /// `-typecheck` alone misses the write from a detached task: the region
    /// checks run later in the compile.
    @Test func typecheckingAloneMissesTheDetachedTasksRace() async throws {
        let (status, errors) = try await Self.compile("DetachedTaskWrite", check: "-typecheck")
        #expect(status == 0 && errors.isEmpty, "\(errors)")
    }
}
