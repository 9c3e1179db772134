import Automerge

extension ScriptVectors {
    /// A text object `t` holding `initial`, committed.
    static func withText(_ initial: String) -> [EditScript.Step] {
        [S.object([], "t", .Text)] + (initial.isEmpty ? [] : [S.text(["t"], 0, initial)]) + [S.commit()]
    }

    static var text: [(String, EditScript)] {
        var scripts: [(String, EditScript)] = []
        scripts.append(("ascii", S.script("typing into new text", withText("") + [S.text(["t"], 0, "hello world")])))
        scripts.append(("astral-emoji", S.script("emoji beyond the BMP are one code point each", withText("") + [S.text(["t"], 0, "a😀b🚀")])))
        scripts.append(("zwj-sequence", S.script("a ZWJ family is five code points", withText("") + [S.text(["t"], 0, "👨‍👩‍👧")])))
        scripts.append(("flags-and-tones", S.script("regional-indicator flags and skin tones", withText("") + [S.text(["t"], 0, "🇯🇵🇫🇷👍🏽")])))
        scripts.append(("combining-marks", S.script("combining marks, decomposed", withText("") + [S.text(["t"], 0, "e\u{301}a\u{308}")])))
        scripts.append(("cjk-and-rtl", S.script("CJK, Arabic and Hebrew", withText("") + [S.text(["t"], 0, "日本語 مرحبا שלום")])))
        scripts.append(("insert-middle", S.script("an insert in the middle of text", withText("held") + [S.text(["t"], 2, "llo wor")])))
        scripts.append(("delete-range", S.script("deleting a range", withText("hello cruel world") + [S.text(["t"], 5, delete: 6, "")])))
        scripts.append(("replace", S.script("a splice that deletes and inserts", withText("hello world") + [S.text(["t"], 6, delete: 5, "there")])))
        scripts.append(("delete-astral", S.script("deleting emoji by code point", withText("a😀👨‍👩‍👧b") + [S.text(["t"], 1, delete: 6, "")])))
        scripts.append(("many-splices", S.script("typing with corrections: ten splices in one change",
                                  withText("") + [S.text(["t"], 0, "teh"), S.text(["t"], 1, delete: 2, "he"), S.text(["t"], 3, " qiuck"),
                                                  S.text(["t"], 5, delete: 2, "ui"), S.text(["t"], 9, " brown"),
                                                  S.text(["t"], 0, delete: 1, "T"), S.text(["t"], 15, " fox"),
                                                  S.text(["t"], 19, "."), S.text(["t"], 19, delete: 1, "!"), S.text(["t"], 20, "")])))
        scripts.append(("empty-splice", S.script("a splice that deletes and inserts nothing makes no op", withText("abc") + [S.text(["t"], 1, "")])))
        scripts.append(("text-in-list", S.script("text inside a list inside a map", [S.object([], "m", .Map), S.object(["m"], "l", .List),
                                                                        S.insertObject(["m", "l"], 0, .Text),
                                                                        S.text(["m", "l", 0], 0, "nested")])))
        scripts.append(("concurrent-typing", S.script("two peers type at one place; merged", peers: ["a"],
                                       withText("ac") + [S.fork(as: "b"), S.text(["t"], 1, "b"), S.text(["t"], 1, "B", on: "b"),
                                                         S.merge(from: "b"), S.text(["t"], 4, "d")])))
        return scripts
    }

    static var updateText: [(String, EditScript)] {
        var scripts: [(String, EditScript)] = []
        scripts.append(("from-empty", S.script("updateText of empty text inserts everything", withText("") + [S.update(["t"], "hello")])))
        scripts.append(("to-empty", S.script("updateText to nothing deletes everything", withText("hello") + [S.update(["t"], "")])))
        scripts.append(("identical", S.script("updateText to the same text makes no op", withText("same") + [S.update(["t"], "same")])))
        scripts.append(("append", S.script("appending", withText("hello") + [S.update(["t"], "hello world")])))
        scripts.append(("prepend", S.script("prepending", withText("world") + [S.update(["t"], "hello world")])))
        scripts.append(("insert-middle", S.script("an insertion in the middle", withText("helo") + [S.update(["t"], "hello")])))
        scripts.append(("delete-middle", S.script("a deletion in the middle", withText("helllo") + [S.update(["t"], "hello")])))
        scripts.append(("replace-word", S.script("one word replaced by another", withText("the quick fox") + [S.update(["t"], "the slow fox")])))
        scripts.append(("repeated-letters", S.script("one more of a repeated letter: where the diff puts it", withText("aaa") + [S.update(["t"], "aaaa")])))
        scripts.append(("swap", S.script("two halves swapped", withText("abcdef") + [S.update(["t"], "defabc")])))
        scripts.append(("rewrite", S.script("a sentence rewritten", withText("The cat sat on the mat.")
                                 + [S.update(["t"], "A dog lay under the table, sleeping.")])))
        scripts.append(("emoji-inserted", S.script("an emoji inserted between letters", withText("ab") + [S.update(["t"], "a😀b")])))
        scripts.append(("zwj-member-changed", S.script("a family emoji gains a member: the diff works on grapheme clusters",
                                        withText("x👨‍👩‍👧y") + [S.update(["t"], "x👨‍👩‍👧‍👦y")])))
        scripts.append(("skin-tone-changed", S.script("a skin tone modifier changed", withText("ok👍🏻!") + [S.update(["t"], "ok👍🏿!")])))
        scripts.append(("flag-changed", S.script("one flag replaced by another", withText("🇫🇷🇩🇪") + [S.update(["t"], "🇫🇷🇮🇹")])))
        scripts.append(("accent-added", S.script("a combining accent added to a letter", withText("cafe") + [S.update(["t"], "cafe\u{301}")])))
        scripts.append(("after-merge", S.script("updateText on text two peers edited", peers: ["a"],
                                 withText("shared") + [S.fork(as: "b"), S.text(["t"], 0, ">"), S.text(["t"], 6, "!", on: "b"),
                                                       S.merge(from: "b"), S.update(["t"], ">> shared text!")])))
        return scripts
    }

    static var marks: [(String, EditScript)] {
        var scripts: [(String, EditScript)] = []
        scripts.append(("expand-after", S.script("a bold mark expanding after", withText("hello world") + [S.mark(["t"], 0..<5, "bold")])))
        scripts.append(("expand-before", S.script("a mark expanding before", withText("hello world") + [S.mark(["t"], 6..<11, "em", .Boolean(true), .before)])))
        scripts.append(("expand-both", S.script("a mark expanding both ways", withText("hello world") + [S.mark(["t"], 3..<8, "hl", .String("yellow"), .both)])))
        scripts.append(("expand-none", S.script("a link, expanding neither way", withText("see here") + [S.mark(["t"], 4..<8, "link",
                                                                                                   .String("https://example.com"), .none)])))
        scripts.append(("at-start", S.script("a mark from the first character", withText("abc") + [S.mark(["t"], 0..<1, "b")])))
        scripts.append(("at-end", S.script("a mark up to the last character", withText("abc") + [S.mark(["t"], 2..<3, "b")])))
        scripts.append(("whole-text", S.script("a mark over the whole text", withText("abc") + [S.mark(["t"], 0..<3, "b")])))
        scripts.append(("zero-width", S.script("a mark of no characters", withText("abc") + [S.mark(["t"], 1..<1, "b")])))
        scripts.append(("reversed-span", S.script("a span that ends before it starts: as Rust 0.11 does, a zero-width mark at its start",
                                                  withText("abcdef") + [.init(.mark(obj: ["t"], start: 4, end: 2, name: "r", value: .Boolean(true), expand: .both))])))
        scripts.append(("empty-span-past-end", S.script("an empty span expanding neither way is ignored, even past the end (Rust checks no position for it)",
                                                        withText("abc") + [S.mark(["t"], 9..<9, "b", .Boolean(true), .none), S.put([], "after", .Int(1))])))
        scripts.append(("unmark-middle", S.script("unmarking the middle of a mark", withText("abcdef") + [S.mark(["t"], 0..<6, "b"), S.commit(),
                                                                                          S.unmark(["t"], 2..<4, "b")])))
        scripts.append(("overlapping", S.script("overlapping marks of two names and an int-valued one", withText("abcdefgh")
                                     + [S.mark(["t"], 0..<5, "b"), S.mark(["t"], 3..<8, "i"), S.mark(["t"], 2..<4, "size", .Int(12))])))
        scripts.append(("typing-at-edges", S.script("typing at both edges of marks of each expand mode", withText("0123456789")
                                         + [S.mark(["t"], 1..<3, "a", .Boolean(true), .before), S.mark(["t"], 4..<6, "b", .Boolean(true), .after),
                                            S.mark(["t"], 7..<9, "c", .Boolean(true), .none), S.commit(), S.text(["t"], 9, "!"),
                                            S.text(["t"], 7, "<"), S.text(["t"], 6, ">"), S.text(["t"], 4, "<"), S.text(["t"], 3, ">"),
                                            S.text(["t"], 1, "<")])))
        scripts.append(("astral-positions", S.script("a mark over emoji, positions in code points", withText("a😀👨‍👩‍👧b")
                                          + [S.mark(["t"], 1..<7, "b")])))
        scripts.append(("same-change-as-splice", S.script("text typed and marked in one change", [S.object([], "t", .Text), S.text(["t"], 0, "new text"),
                                                                                  S.mark(["t"], 0..<3, "b")])))
        scripts.append(("concurrent", S.script("two peers mark overlapping spans with one name", peers: ["a"],
                                withText("abcdef") + [S.fork(as: "b"), S.mark(["t"], 0..<4, "color", .String("red")),
                                                      S.mark(["t"], 2..<6, "color", .String("blue"), .after, on: "b"),
                                                      S.merge(from: "b")])))
        return scripts
    }
}
