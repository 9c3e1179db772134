/// Received changes may not put a mark's end anchor before its begin anchor
/// (see ``OpSet/markAnchorsInOrder(objectAt:)``; found by fuzzing:
/// Corpus/load/received-mark-end-before-begin). Where an anchor lands
/// depends on the elements around it, so the rule is checked on the
/// changes applied: not to the document, which a batch may only change
/// once all of it has passed, but to a scratch op set holding copies of
/// just the objects the batch puts mark ops in.
///
/// So the cost follows the marked objects, not the document: a copy of an
/// object shares its storage until the first op writes to it, then copies
/// that object's storage once; the check walks the object anyway. Batches
/// without mark ops skip it all.
enum ReceivedMarkOrder {
    /// The position in `changes` (checked, in the order they will apply to
    /// `ops`) of the first change after which an object holds a mark end
    /// anchor before its begin anchor; nil if none does. `created`: the
    /// kinds of the objects the changes create.
    static func firstMisordered(in changes: [CheckedChange], appliedTo ops: OpSet, actors: ActorTable,
                                created: [OpId: ObjectKind]) -> Int? {
        var marked = Set<OpId>()
        // Ops are read in place: binding each change or op to a local copied it.
        for change in changes.indices {
            for op in changes[change].ops.indices where changes[change].ops[op].action == .mark {
                marked.insert(changes[change].ops[op].object)
            }
        }
        guard !marked.isEmpty else { return nil }
        var scratch = OpSet(encoding: ops.encoding)
        scratch.actors = actors
        for object in marked {
            if let index = ops.objectIndex(of: object) {
                scratch.addObject(copying: index, of: ops)
            } else if let kind = created[object] {
                scratch.addObject(id: object, kind: kind, parent: .root, keyInParent: nil, depth: 0)
            }
        }
        for (position, change) in changes.enumerated() {
            var markedNow = Set<OpId>()
            for var op in change.ops where marked.contains(op.object) {
                // Only where ops go matters here: an op that makes an object
                // goes where a value would, and the object itself is not needed.
                if op.action.objectType != nil {
                    op.action = .set
                    op.value = .null
                }
                // The change has passed its checks, so this does not fail;
                // if it did, the change could not apply either.
                do { try scratch.apply(op) } catch { return position }
                if op.action == .mark { markedNow.insert(op.object) }
            }
            for object in markedNow {
                if let index = scratch.objectIndex(of: object), !scratch.markAnchorsInOrder(objectAt: index) { return position }
            }
        }
        return nil
    }
}
