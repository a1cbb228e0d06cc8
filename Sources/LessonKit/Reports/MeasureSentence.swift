/// How a story that is not a table (steps 8 and 9) says one of its measures
/// to a learner: the measure's key in the JSON report, and the sentence made
/// from its value.
public struct MeasureSentence: Sendable {
    public let key: String
    public let say: @Sendable (Double) -> String

    public init(_ key: String, say: @escaping @Sendable (Double) -> String) {
        self.key = key
        self.say = say
    }

    /// A yes-or-no measure (1 or 0): one sentence for each answer.
    public init(_ key: String, yes: String, no: String) {
        self.init(key) { $0 == 1 ? yes : no }
    }
}
