import Automerge
import Foundation

extension Document {
    /// Commits pending edits at time 0. `commitWith` stamps the current time
    /// (as automerge-swift does); vector generators, fuzz targets, seeds and
    /// benchmarks commit this way instead, so that the same edits give the
    /// same bytes and hashes on every run.
    public func commitReproducibly(message: String? = nil) {
        commitWith(message: message, timestamp: Date(timeIntervalSince1970: 0))
    }
}
