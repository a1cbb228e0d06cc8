import Foundation

/// A memory cache limited by total cost (and optionally by count), which
/// drops the least recently used entries first: step 4's dictionary, with
/// the limit a dictionary lacks.
///
/// `NSCache` would do on iOS (SDWebImage uses it); on Linux its eviction
/// order is not documented either, and a lesson needs one it can show, so
/// this is a small LRU list: every read or write moves its entry to the
/// front, and entries are dropped from the back until the totals fit.
///
/// Thread-safe. Guarded by an `NSLock`, which Thread Sanitizer sees
/// (it does not see Synchronization's `Mutex` on Linux).
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: @unchecked Sendable {
    /// The most the entries' costs may add up to.
    public var totalCostLimit: Int {
        get { lock.withLock { costLimit } }
        set { setLimit(\.costLimit, to: newValue) }
    }
    /// The most entries there may be.
    public var countLimit: Int {
        get { lock.withLock { entryLimit } }
        set { setLimit(\.entryLimit, to: newValue) }
    }

    /// A new limit (never below 0), the entries dropped at once until they fit it.
    private func setLimit(_ limit: ReferenceWritableKeyPath<MemoryCache, Int>, to value: Int) {
        lock.withLock {
            self[keyPath: limit] = max(0, value)
            trim()
        }
    }

    private final class Node {
        let key: Key
        var value: Value
        var cost: Int
        /// Towards the most recently used end. Weak: `newer` holds the chain.
        weak var newer: Node?
        var older: Node?

        init(key: Key, value: Value, cost: Int) {
            self.key = key
            self.value = value
            self.cost = cost
        }
    }

    private let lock = NSLock()
    private var costLimit: Int
    private var entryLimit: Int
    private var nodes: [Key: Node] = [:]
    /// The most recently used entry, and the least.
    private var newest: Node?
    private var oldest: Node?
    private var cost = 0

    public init(totalCostLimit: Int, countLimit: Int = .max) {
        costLimit = max(0, totalCostLimit)
        entryLimit = max(0, countLimit)
    }

    /// The value for `key`, which becomes the most recently used.
    public func value(forKey key: Key) -> Value? {
        lock.withLock {
            guard let node = nodes[key] else { return nil }
            moveToFront(node)
            return node.value
        }
    }

    /// Stores `value` as the most recently used, then drops the least recently
    /// used entries until the limits hold. A value costlier than the whole
    /// limit is not kept at all.
    public func setValue(_ value: Value, forKey key: Key, cost: Int) {
        lock.withLock {
            if let node = nodes[key] {
                self.cost += cost - node.cost
                node.value = value
                node.cost = cost
                moveToFront(node)
            } else {
                let node = Node(key: key, value: value, cost: cost)
                nodes[key] = node
                self.cost += cost
                insertAtFront(node)
            }
            trim()
        }
    }

    public func removeValue(forKey key: Key) {
        lock.withLock {
            guard let node = nodes.removeValue(forKey: key) else { return }
            unlink(node)
            cost -= node.cost
        }
    }

    /// Empties the cache: what a memory warning calls for.
    public func removeAll() {
        lock.withLock {
            // Unlinked one by one: each node holds the next older one.
            while let node = oldest { unlink(node) }
            nodes.removeAll()
            cost = 0
        }
    }

    public var totalCost: Int { lock.withLock { cost } }
    public var count: Int { lock.withLock { nodes.count } }

    /// The keys from the most recently used to the least.
    public var keysByRecentUse: [Key] {
        lock.withLock {
            var keys: [Key] = []
            var node = newest
            while let current = node {
                keys.append(current.key)
                node = current.older
            }
            return keys
        }
    }

    // MARK: the list, under the lock

    private func trim() {
        while cost > costLimit || nodes.count > entryLimit, let node = oldest {
            nodes[node.key] = nil
            unlink(node)
            cost -= node.cost
        }
    }

    private func insertAtFront(_ node: Node) {
        node.older = newest
        newest?.newer = node
        newest = node
        if oldest == nil { oldest = node }
    }

    private func moveToFront(_ node: Node) {
        guard newest !== node else { return }
        unlink(node)
        insertAtFront(node)
    }

    private func unlink(_ node: Node) {
        let newer = node.newer
        let older = node.older
        newer?.older = older
        older?.newer = newer
        if newest === node { newest = older }
        if oldest === node { oldest = newer }
        node.newer = nil
        node.older = nil
    }
}
