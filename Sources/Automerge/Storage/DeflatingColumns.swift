/// The encoded columns of one section of a document chunk on their way
/// into it: in spec order with the empty ones left out and, when the chunk
/// is compressed, each column of at least
/// ``DocumentChunk/columnCompressionThreshold`` bytes handed to a deflate
/// queue at its type's setting (``ColumnType/deflateSetting(_:)``), to be
/// replaced by its output with the deflate bit set in its spec. A save
/// submits both sections to one ``Deflate/Queue`` and deflates them
/// together.
struct DeflatingColumns {
    private let columns: [(spec: ColumnSpec, bytes: [UInt8])]
    /// The columns being deflated.
    private let deflating: [Int]
    /// Where their outputs come from; nil for an uncompressed chunk.
    private let submitted: (queue: Deflate.Queue, batch: Deflate.Queue.Batch)?

    /// Takes a section's columns; with a queue (a compressed chunk) submits
    /// the long ones to it, to be deflated with `effort`.
    init(_ encoded: [(ColumnSpec, [UInt8])], on queue: Deflate.Queue?, effort: DeflateEffort = .fast) {
        let columns = ColumnSet.nonEmpty(encoded)
        let deflating = queue == nil ? [] : columns.indices.filter {
            columns[$0].bytes.count >= DocumentChunk.columnCompressionThreshold
        }
        self.columns = columns
        self.deflating = deflating
        submitted = queue.map { queue in
            (queue, queue.submit(deflating.map { index in (columns[index].bytes, columns[index].spec.type.deflateSetting(effort)) }))
        }
    }

    /// The columns as the chunk stores them. Called once the queue has
    /// deflated everything (see ``Deflate/Queue/outputs(of:)``).
    func finished() -> [(spec: ColumnSpec, bytes: [UInt8])] {
        guard let submitted else { return columns }
        var result = columns
        for (index, deflated) in zip(deflating, submitted.queue.outputs(of: submitted.batch)) {
            result[index] = (result[index].spec.deflated, deflated)
        }
        return result
    }
}
