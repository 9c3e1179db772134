import Testing
@testable import Automerge

/// ``FollowableBuffer``: an array with value semantics whose storage a
/// reader on another thread can follow while the owner appends.
@Suite("Followable buffer")
struct FollowableBufferTests {
    @Test("appends grow it, and it reads like an array")
    func appends() {
        var buffer = FollowableBuffer<Int>()
        for value in 0..<1_000 { buffer.append(value * 3) }
        #expect(Array(buffer) == (0..<1_000).map { $0 * 3 })
        let sum = buffer.withUnsafeBufferPointer { $0.reduce(0, +) }
        #expect(sum == 3 * 999 * 1_000 / 2)
        #expect(buffer.removeLast() == 2_997)
        #expect(buffer.count == 999)
    }

    @Test("a copy is a value: writing one leaves the other as it was")
    func copiesAreValues() {
        var original = FollowableBuffer<Int>()
        for value in 0..<10 { original.append(value) }
        var copy = original
        copy[0] = 100
        copy.append(10)
        #expect(Array(original) == Array(0..<10))
        #expect(Array(copy) == [100] + Array(1..<11))
        let removed = original.removeLast()
        #expect(removed == 9)
        #expect(copy.count == 11)
    }

    @Test("a follower reads appends made in place, and keeps the storage after the owner is gone")
    func following() {
        var buffer = FollowableBuffer<Int>()
        buffer.reserveCapacity(100)
        let follower = buffer.beginFollowing()
        var copy: FollowableBuffer<Int>? = nil
        for value in 0..<100 {
            buffer.append(value)
            if value == 49 { copy = buffer }
        }
        #expect(Array(follower.prefix(100)) == Array(0..<100))
        buffer.endFollowing()
        // Written after following ends, the buffer copies: the follower's view stays.
        buffer[0] = -1
        #expect(follower.prefix(1)[0] == 0)
        #expect(buffer[0] == -1)
        #expect(copy.map { Array($0) } == Array(0..<50))
        buffer = FollowableBuffer()
        copy = nil
        #expect(Array(follower.prefix(100)) == Array(0..<100))
    }
}
