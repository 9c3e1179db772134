import Automerge
import AutomergeUtilities
import Foundation

// Uses both modules of automerge-swift's `Automerge` product, as an app does.
let doc = Document()
let notes = try doc.putObject(obj: .ROOT, key: "notes", ty: .List)
let first = try doc.insertObject(obj: notes, index: 0, ty: .Map)
try doc.put(obj: first, key: "title", value: .String("groceries"))
let empty = try doc.isEmpty()
precondition(!empty)
let copy = try Document(doc.save())
precondition(doc.equivalentContents(copy))
try doc.walk()
print("drop-in build works: \(try doc.schema())")
