/// Making and freeing a pthread object (a mutex, a condition variable).
///
/// A pthread object must not move once initialised, so ``Lock`` and
/// ``Condition`` each keep theirs in an allocation of its own; both make
/// and free it the same way, here.
extension UnsafeMutablePointer {
    /// A new allocation holding `blank`, initialised in place by
    /// `initialize` (a `pthread_*_init` call, named `name` if it fails).
    static func pthreadObject(_ blank: Pointee, name: String, initialize: (Self) -> Int32) -> Self {
        let object = Self.allocate(capacity: 1)
        object.initialize(to: blank)
        let result = initialize(object)
        precondition(result == 0, "\(name) failed: \(result)")
        return object
    }

    /// Destroys the pthread object with `destroy` (a `pthread_*_destroy`
    /// call) and frees its allocation.
    func releasePthreadObject(destroy: (Self) -> Int32) {
        _ = destroy(self)
        deinitialize(count: 1)
        deallocate()
    }
}
