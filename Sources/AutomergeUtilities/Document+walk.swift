import Automerge

extension Document {
    /// Prints the document's contents, one value per line, with the type of
    /// each object and scalar (automerge-swift's debugging aid, same layout).
    public func walk() throws {
        print(try walkDescription(), terminator: "")
    }

    /// The text ``walk()`` prints.
    func walkDescription() throws -> String {
        var lines = ["{"]
        try walk(.ROOT, depth: 1, into: &lines)
        lines.append("}")
        return lines.map { $0 + "\n" }.joined()
    }

    private func walk(_ obj: ObjId, depth: Int, into lines: inout [String]) throws {
        let indent = String(repeating: "  ", count: depth)
        switch try checkedObjectType(obj: obj) {
        case .Map:
            lines.append(indent + "{")
            for (key, value) in try mapEntries(obj: obj) {
                switch value {
                case .Scalar(let scalar):
                    lines.append("\(indent)\"\(key)\" :\(scalar)")
                case .Object(let child, _):
                    lines.append("\(indent)\"\(key)\" : {")
                    try walk(child, depth: depth + 1, into: &lines)
                    lines.append(indent + "}")
                }
            }
            lines.append(indent + "}")
        case .List:
            let items = try values(obj: obj)
            if items.isEmpty {
                lines.append(indent + "[]")
                return
            }
            lines.append(indent + "[")
            for item in items {
                switch item {
                case .Scalar(let scalar): lines.append("\(indent)  \(scalar)")
                case .Object(let child, _): try walk(child, depth: depth + 1, into: &lines)
                }
            }
            lines.append(indent + "]")
        case .Text:
            lines.append("\(indent)Text[\"\(try text(obj: obj))\"]")
        }
    }
}
