#if canImport(UniformTypeIdentifiers)
import UniformTypeIdentifiers

extension UTType {
    /// An Automerge document: `com.github.automerge`, conforming to `public.data`
    /// (the identifier automerge-swift declares; import it in your Info.plist).
    public static var automerge: UTType {
        UTType(importedAs: "com.github.automerge", conformingTo: .data)
    }
}

#if canImport(CoreTransferable)
import CoreTransferable

extension Document: Transferable {
    /// The document as its saved bytes, for sharing, drag and drop, and copy
    /// and paste. Bytes that do not load are refused with the load error
    /// (automerge-swift hands back an empty document instead).
    public static var transferRepresentation: some TransferRepresentation {
        DataRepresentation(contentType: .automerge) { document in
            document.save()
        } importing: { data in
            try Document(data)
        }
    }
}
#endif
#endif
