import Foundation
import Testing

@testable import LessonKit

/// Every toolchain fact the seams rely on is a row of one contract and a
/// probe (docs/toolchain-contract.md): the rows hold here, the doc is the
/// table, and each start-up probe, its fact broken on purpose, makes a step
/// refuse with one sentence naming it instead of printing figures.
@Suite struct ToolchainContractTests {
    static let document = Rig.packageRoot.appendingPathComponent("docs/toolchain-contract.md")

    @Test func theDocumentIsTheTable() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        #expect(text.contains("\n" + ToolchainContract.markdownTable + "\n"), "docs/toolchain-contract.md is stale")
        #expect(text.contains("`\(ToolchainContract.breakSetting)`"))
    }

    @Test func everyRowNamesFilesThatExistAndIsNamedOnce() {
        let names = ToolchainContract.facts.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.count == 15)
        for fact in ToolchainContract.facts {
            #expect(!fact.usedIn.isEmpty, "\(fact.name)")
            for file in fact.usedIn {
                let path = Rig.packageRoot.appendingPathComponent(file).path
                #expect(FileManager.default.fileExists(atPath: path), "\(fact.name): \(file) does not exist")
            }
        }
        // Every fact a seam can break is probed at every start: breaking it must make a run refuse.
        for name in ToolchainContract.breakable {
            #expect(ToolchainContract.facts.first { $0.name == name }?.probed == .atEveryStart, "\(name)")
        }
    }

    /// What a file that relies on each fact names (any one of them): a row that cites a file which names none of
    /// its fact's words cites it wrongly (a file the code moved out of, or one that never used it).
    static let evidence: [String: [String]] = [
        "dispatch-seam": ["dispatch_async"], "interceptor": ["__interceptor_"], "main-queue": ["_dispatch_main_q"],
        "overcommit": ["overcommit"], "block-abi": ["_Block_copy"],
        "rename": ["rename", "seam_watch_writes_in", "seam_main_queue_file_writes"], "inotify": ["inotify"],
        "task-hook": ["swift_task_enqueueGlobal_hook"], "task-hook-alone": ["swift_task_enqueueGlobal_hook"],
        "operation-queue": ["OperationQueue"], "launch-seed": ["_swift_stdlib_Hashing_parameters"],
        "pool-growth": ["pool"], "tsan-wording": ["WARNING: ThreadSanitizer"], "tsan-frames": ["TRTA"],
        "backtrace": ["Backtrace took"],
    ]

    @Test func everyFileARowCitesNamesWhatItReliesOn() throws {
        #expect(Set(Self.evidence.keys) == Set(ToolchainContract.facts.map(\.name)), "a fact with no evidence words")
        for fact in ToolchainContract.facts {
            let words = Self.evidence[fact.name] ?? []
            for file in fact.usedIn {
                let url = Rig.packageRoot.appendingPathComponent(file)
                let text = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
                #expect(words.contains { text.contains($0) }, "\(fact.name): \(file) names none of \(words)")
            }
        }
    }

    /// The toolchain this suite runs on keeps the contract: no run of it is refused.
    @Test func everyStartUpProbeHoldsHere() {
        #expect(ToolchainContract.refusal == nil)
        for fact in ToolchainContract.facts where fact.probed == .atEveryStart {
            if case .fails(let finding) = fact.run() { Issue.record("\(fact.name): \(finding)") }
        }
    }

    /// The probes a seam cannot break (a race build's interceptor names, corelibs' operations) refuse all the same:
    /// a stand-in row whose probe fails, among the real ones.
    @Test func aFailingProbeRefusesInOneSentenceAndADoctorOnlyOneDoesNot() throws {
        let real = try #require(ToolchainContract.facts.first { $0.name == "operation-queue" })
        let broken = ToolchainFact(
            name: real.name, what: real.what, usedIn: real.usedIn, probed: .atEveryStart, probe: real.probe,
            check: { .fails("OperationQueue.current was not the operation's queue") })
        let slow = ToolchainFact(
            name: "pool-growth", what: "", usedIn: [], probed: .byDoctor("slow"), probe: "",
            check: { .fails("the pool grew at once") })
        #expect(ToolchainContract.refusal(among: [slow]) == nil)
        let refusal = try #require(
            ToolchainContract.refusal(
                among: [slow]
                    + ToolchainContract.facts.filter {
                        $0.name != real.name
                    } + [broken]))
        #expect(refusal.contains("(operation-queue: OperationQueue.current was not the operation's queue)"))
        #expect(!refusal.contains("\n"))
    }

    /// Step 2 with one fact broken: exit 1, one sentence naming the fact, no figures.
    @Test(arguments: ToolchainContract.breakable)
    func aBrokenFactMakesStepTwoRefuse(fact: String) async throws {
        let run = try await LessonProcess.run(
            "Lesson02AsyncPlaceholder", ["--json"], environment: [ToolchainContract.breakSetting: fact])
        #expect(run.status == 1)
        #expect(run.output.isEmpty, "\(run.output.prefix(300))")
        let lines = run.errors.split(separator: "\n")
        #expect(lines.count == 1, "\(run.errors)")
        #expect(
            lines.first?.hasPrefix(Self.refusal(fact, program: "Lesson02AsyncPlaceholder")) == true, "\(run.errors)")
    }

    /// The sentence a refused run says, its finding left out.
    static func refusal(_ fact: String, program: String) -> String {
        "\(program): this toolchain breaks a fact the story clock relies on (\(fact): "
    }

    /// What the learner types: `lessons run 2` hands over to the step, which refuses.
    @Test func lessonsRunTwoRefuses() async throws {
        let caches = try ScratchFolder.make("toolchain-contract")
        defer { ScratchFolder.remove(caches) }
        let run = try await Rig.runProduct(
            "lessons", ["run", "2", "--json"],
            environment: [ToolchainContract.breakSetting: "dispatch-seam", "XDG_CACHE_HOME": caches.path])
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        // Another `lessons` command of the suite may hold the workbench: `lessons` says it waits, on a line before.
        let sentence = Self.refusal("dispatch-seam", program: "Lesson02AsyncPlaceholder")
        #expect(run.standardError.split(separator: "\n").last?.hasPrefix(sentence) == true, "\(run.standardError)")
    }

    /// Step 8 tells its story on a clock of its own (`CustomLessonMain`): it refuses as well.
    @Test func aStoryStepRefusesToo() async throws {
        let run = try await Rig.runProduct(
            "Lesson08Dependencies", ["--json"], environment: [ToolchainContract.breakSetting: "dispatch-seam"])
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty)
        #expect(run.standardError.contains("(dispatch-seam: "), "\(run.standardError)")
    }

    /// `lessons check` refuses before it builds the learner's workbench, whose every run would be refused.
    @Test func lessonsCheckRefusesBeforeBuilding() async throws {
        let root = try ScratchFolder.make("toolchain-check")
        defer { ScratchFolder.remove(root) }
        let run = try await Rig.runProduct(
            "lessons", ["check", "2", "--root", root.path], environment: [ToolchainContract.breakSetting: "rename"])
        #expect(run.status == 1)
        #expect(run.standardOutput.isEmpty, "\(run.standardOutput.prefix(300))")
        let lines = run.standardError.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix(Self.refusal("rename", program: "lessons check")), "\(lines)")
    }

    @Test func doctorPrintsEveryRowInEightyColumns() async throws {
        let run = try await Rig.runProduct("lessons", ["doctor"])
        #expect(run.status == 0, "\(run.standardOutput)\(run.standardError)")
        let lines = run.standardOutput.split(separator: "\n")
        for fact in ToolchainContract.facts {
            #expect(lines.contains { $0.dropFirst(2).hasPrefix(fact.name + " ") }, "no row for \(fact.name)")
        }
        #expect(!lines.contains { $0.hasPrefix("✗ ") }, "\(run.standardOutput)")
        #expect(lines.allSatisfy { $0.count <= 80 }, "\(run.standardOutput)")
    }

    @Test func doctorSaysWhichFactFailsAndExitsOne() async throws {
        let run = try await Rig.runProduct(
            "lessons", ["doctor", "--json"], environment: [ToolchainContract.breakSetting: "rename"])
        #expect(run.status == 1)
        let rows = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [[String: Any]])
        #expect(rows.count == ToolchainContract.facts.count)
        #expect(rows.filter { $0["result"] as? String == "fails" }.map { $0["name"] as? String } == ["rename"])
    }
}
