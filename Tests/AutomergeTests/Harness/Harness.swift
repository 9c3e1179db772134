/// The conformance harness's tests (`swift test --filter Harness`): vectors,
/// convergence properties, and the sequential model.
enum Harness {}
