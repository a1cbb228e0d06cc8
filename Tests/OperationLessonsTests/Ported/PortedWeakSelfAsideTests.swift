import LessonChecks
import Testing

/// The `[weak self]` aside of the controller bug's hint is said only to code
/// with a `[weak self]` closure inside a closure that holds `self`.
@Suite struct WeakSelfAsideTests {
    static let aside = "A `[weak self]` on an inner closure only makes the closure around it hold `self`"

    static func question(_ code: String) throws -> String {
        let bug = try #require(KnownBug.named("the controller is never freed while its downloads run"))
        return bug.text.hints.question(in: LearnerCode(files: ["A.swift": code]))
    }

    @Test(arguments: [
        // Inner only, directly and under an `if`.
        "queue.addOperation {\n  let x = 1\n  OperationQueue.main.addOperation { [weak self] in self?.go() }\n}",
        "queue.addOperation {\n  if ok {\n    DispatchQueue.main.async { [weak self] in self?.go() }\n  }\n}",
        // A fetch's trailing completion, after a closure argument.
        "task = network.fetch(url, progress: { _, _ in }) { result in\n"
            + "  OperationQueue.main.addOperation { [weak self] in self?.go() }\n}",
    ])
    func saidToAWeakSelfInsideAStrongClosure(_ code: String) throws {
        #expect(try Self.question(code).contains(Self.aside))
    }

    @Test(arguments: [
        // No `[weak self]` at all; on both closures; on the outer only; in a method's body.
        "queue.addOperation {\n  OperationQueue.main.addOperation { self.go() }\n}",
        "queue.addOperation { [weak self] in\n  OperationQueue.main.addOperation { [weak self] in self?.go() }\n}",
        "queue.addOperation { [weak self] in\n  guard let self else { return }\n  OperationQueue.main.addOperation { self.go() }\n}",
        "override func tableView(\n  _ t: TableView,\n  cellForRowAt i: IndexPath\n) -> TableViewCell {\n"
            + "  if x {\n    queue.addOperation { [weak self] in self?.go() }\n  }\n}",
        "var icon: Image? {\n  get { cache.first { [weak self] in $0 == self?.x } }\n}",
        // In a comment or a string, a brace is no closure.
        "func go() {\n  // queue.addOperation {\n  let s = \"{\"\n  queue.addOperation { [unowned self] in self.go() }\n}",
    ])
    func notSaidToOtherShapes(_ code: String) throws {
        #expect(!(try Self.question(code).contains(Self.aside)))
    }
}
