import Foundation
import Testing
@testable import Automerge

/// Errors thrown on worker threads, checked afterwards on the test's own thread.
private final class ErrorLog: @unchecked Sendable {
    private let lock = NSLock()
    private var errors: [String] = []

    func run(_ body: () throws -> Void) {
        do { try body() } catch {
            lock.lock()
            errors.append("\(error)")
            lock.unlock()
        }
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }
}

@Suite("Thread safety")
struct ConcurrencyTests {

    @Test func editsFromManyThreadsAllApplyAndLeaveAConsistentDocument() throws {
        let doc = Document.peer(0x01)
        let list = try doc.putObject(obj: .ROOT, key: "list", ty: .List)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        try doc.put(obj: .ROOT, key: "count", value: .Counter(0))
        doc.commitWith()
        let log = ErrorLog()
        let iterations = 200
        DispatchQueue.concurrentPerform(iterations: iterations) { i in
            log.run {
                try doc.put(obj: .ROOT, key: "k\(i)", value: .Int(Int64(i)))
                try doc.insert(obj: list, index: 0, value: .Int(Int64(i)))
                try doc.increment(obj: .ROOT, key: "count", by: 1)
                try doc.spliceText(obj: text, start: 0, delete: 0, value: "x")
                _ = try doc.text(obj: text)
                _ = doc.keys(obj: .ROOT)
                if i % 10 == 0 { _ = doc.heads() }  // commits from some threads
                if i % 25 == 0 { doc.commitWith(message: "from thread \(i)") }
            }
        }
        #expect(log.all == [])
        #expect(doc.length(obj: .ROOT) == UInt64(iterations + 3))
        #expect(doc.length(obj: list) == UInt64(iterations))
        #expect(Set(try doc.values(obj: list)) == Set((0..<iterations).map { Value.Scalar(.Int(Int64($0))) }))
        #expect(try doc.get(obj: .ROOT, key: "count") == .Scalar(.Counter(Int64(iterations))))
        #expect(try doc.text(obj: text) == String(repeating: "x", count: iterations))
        for i in 0..<iterations { #expect(try doc.get(obj: .ROOT, key: "k\(i)") == .Scalar(.Int(Int64(i)))) }
    }

    @Test func eachCallIsAtomicForConcurrentReaders() throws {
        let doc = Document.peer(0x01)
        let text = try doc.putObject(obj: .ROOT, key: "text", ty: .Text)
        let log = ErrorLog()
        let oddLengths = ErrorLog()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            log.run {
                for _ in 0..<100 {
                    if worker < 2 {
                        // Each call inserts two characters at once.
                        try doc.spliceText(obj: text, start: 0, delete: 0, value: "ab")
                    } else {
                        let current = try doc.text(obj: text)
                        if current.count % 2 != 0 { oddLengths.run { throw AutomergeError.invalidPath(current) } }
                        if doc.length(obj: text) % 2 != 0 { oddLengths.run { throw AutomergeError.invalidPath("length") } }
                    }
                }
            }
        }
        #expect(log.all == [])
        #expect(oddLengths.all == [], "a reader saw half of a splice")
        #expect(doc.length(obj: text) == 400)
    }

    @Test func peersForkedAndMergedOnManyThreadsConverge() throws {
        let main = Document.peer(0x01)
        try main.put(obj: .ROOT, key: "base", value: .Int(0))
        let list = try main.putObject(obj: .ROOT, key: "list", ty: .List)
        main.commitChange()
        let peers = (0..<8).map { main.forkPeer(UInt8(0x10 + $0)) }
        let log = ErrorLog()
        DispatchQueue.concurrentPerform(iterations: peers.count) { i in
            log.run {
                let peer = peers[i]
                try peer.put(obj: .ROOT, key: "peer\(i)", value: .Int(Int64(i)))
                try peer.put(obj: .ROOT, key: "shared", value: .Int(Int64(i)))
                try peer.insert(obj: list, index: 0, value: .Int(Int64(i)))
                try main.merge(peer: peer)
            }
        }
        #expect(log.all == [])
        for peer in peers { try peer.merge(peer: main) }
        let expected = describe(main, .ROOT)
        for peer in peers {
            #expect(describe(peer, .ROOT) == expected)
            #expect(peer.heads() == main.heads())
        }
        #expect(main.keys(obj: .ROOT).count == 3 + peers.count)
        // The highest actor (0x17) wins the conflicting key; its insert comes first.
        #expect(try main.get(obj: .ROOT, key: "shared") == .Scalar(.Int(7)))
        #expect(try main.getAll(obj: .ROOT, key: "shared").count == peers.count)
        #expect(try main.values(obj: list) == (0..<8).reversed().map { .Scalar(.Int(Int64($0))) })
    }
}
