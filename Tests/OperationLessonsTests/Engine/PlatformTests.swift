import Foundation
import LessonKit
import Testing

/// On a platform where the seams cannot see the app's work the build stops
/// with one sentence (README, "Platforms"), rather than measuring with blind
/// seams. Compiled here as another platform's compiler would see it: the
/// header every seam includes, with Linux's own macro taken away.
@Suite struct PlatformTests {
    static let header = Rig.packageRoot.appendingPathComponent("Sources/UnseenSync/include/UnseenSync.h").path

    static func compileHeader(_ extra: [String]) async throws -> (status: Int32, errors: String) {
        let child = ChildProcess(command: ["clang", "-fsyntax-only", "-x", "c"] + extra + [header])
        let finished = try await child.finished(watchdog: Watchdog(limit: .seconds(60)))
        return (finished.status, finished.errors)
    }

    @Test func anotherPlatformStopsTheBuildWithOneSentence() async throws {
        let (status, errors) = try await Self.compileHeader(["-U__linux__"])
        #expect(status != 0)
        let lines = errors.split(separator: "\n").filter { $0.contains("error: ") }
        #expect(lines.count == 1, "\(errors)")
        #expect(lines.first?.contains("Linux-only seams") == true, "\(errors)")
        #expect(lines.first?.contains("README, \\\"Platforms\\\"") == true, "\(errors)")
    }

    @Test func linuxBuildsTheSameHeader() async throws {
        let (status, errors) = try await Self.compileHeader([])
        #expect(status == 0 && errors.isEmpty, "\(errors)")
    }

    @Test func readmeNamesThePlatform() throws {
        let readme = try String(contentsOf: Rig.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("## Platforms\n\nLinux only, checked with Swift "))
    }
}
