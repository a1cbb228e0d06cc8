import SlowNetwork

extension NetworkConditions {
    /// The network the command-line flags ask for: `--latency`, `--seed`,
    /// `--fail-rate`, `--offline`, and `--speed` for code that waits on the
    /// wall clock (a scenario's story clock ignores it).
    public init(_ options: LessonOptions) {
        self.init()
        latency = (options.latencyMs ?? 500) / 1000
        seed = options.seed
        failRate = options.failRate
        offline = options.offline
        timeScale = options.speed
    }
}
