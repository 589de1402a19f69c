import WireFormat

/// JSON text written as it is made, for the records written once per message or finding:
/// the bytes `JSONValue.write` makes of the same value, without building the value (its
/// arrays and strings were most of the cost of `--format jsonl`). The writer puts the
/// separators: a member or element after another gets its comma.
///
/// Keys are DiscoScope's own names (`StaticString`s of printable ASCII, no quote or
/// backslash) and are copied as they are; values go through `JSONValue.writeString`.
public struct JSONWriter {
    /// The text so far. A writer can take over a buffer (`swap`) and give it back.
    public var bytes: [UInt8] = []
    /// Whether the last thing written was a value or a closing bracket, so that the next
    /// member or element needs a comma first.
    private var afterValue = false

    public init() {}

    /// Writes at most `bound` bytes in one step: one capacity and uniqueness check for all of
    /// them, where appending byte by byte checks both for each byte (that was most of the
    /// cost of `--format jsonl`'s records). The bound is exact for what each caller writes;
    /// `OutputSpan.put` never writes past it.
    @inline(__always)
    private mutating func put(bound: Int, _ write: (inout OutputSpan<UInt8>) -> Void) {
        bytes.append(addingCapacity: bound, initializingWith: write)
    }

    @inline(__always)
    private mutating func separate() {
        if afterValue { bytes.append(0x2C) }
    }

    /// `byte` after the comma the last value needs.
    @inline(__always)
    private mutating func open(_ byte: UInt8) {
        let comma = afterValue
        put(bound: 2) { s in
            if comma { s.put(0x2C) }
            s.put(byte)
        }
        afterValue = false
    }

    public mutating func beginObject() { open(0x7B) }

    public mutating func endObject() {
        bytes.append(0x7D)
        afterValue = true
    }

    public mutating func beginArray() { open(0x5B) }

    public mutating func endArray() {
        bytes.append(0x5D)
        afterValue = true
    }

    /// Ends a line of JSON lines: a line feed, after which the next value starts a new
    /// record (no comma before it).
    public mutating func endLine() {
        bytes.append(0x0A)
        afterValue = false
    }

    /// A member's key; its value comes next.
    public mutating func key(_ k: StaticString) {
        keyed(k, bound: 0, then: false) { _ in }
    }

    public mutating func string(_ s: String) {
        let plain = s.utf8.withContiguousStorageIfAvailable { u in
            guard TerminalText.isPlainJSON(u) else { return false }
            quoted(u)
            return true
        }
        if plain != true {
            separate()
            JSONValue.writeString(s, into: &bytes)
            afterValue = true
        }
    }

    /// The string whose UTF-8 is `u` (valid UTF-8), written without making the string.
    public mutating func string(utf8 u: UnsafeBufferPointer<UInt8>) {
        if TerminalText.isPlainJSON(u) {
            quoted(u)
        } else {
            separate()
            JSONValue.writeString(utf8: u, into: &bytes)
            afterValue = true
        }
    }

    /// `u`, which needs no escaping, between quotes.
    @inline(__always)
    private mutating func quoted(_ u: UnsafeBufferPointer<UInt8>) {
        let comma = afterValue
        put(bound: u.count &+ 3) { s in
            if comma { s.put(0x2C) }
            s.put(0x22)
            s.put(u)
            s.put(0x22)
        }
        afterValue = true
    }

    /// The string whose UTF-8 is `u` (valid UTF-8), written without making the string.
    public mutating func string(utf8 u: [UInt8]) {
        u.withUnsafeBufferPointer { string(utf8: $0) }
    }

    public mutating func int(_ i: Int) {
        let comma = afterValue
        put(bound: 22) { s in
            if comma { s.put(0x2C) }
            s.put(decimal: i)
        }
        afterValue = true
    }

    public mutating func bool(_ b: Bool) {
        let comma = afterValue
        put(bound: 6) { s in
            if comma { s.put(0x2C) }
            s.put(b ? "true" : "false")
        }
        afterValue = true
    }

    public mutating func null() {
        let comma = afterValue
        put(bound: 5) { s in
            if comma { s.put(0x2C) }
            s.put("null")
        }
        afterValue = true
    }

    /// A string, or null when there is none.
    public mutating func string(orNull s: String?) {
        if let s { string(s) } else { null() }
    }

    /// A time as JSON carries it: `seconds.uuuuuu` (`Timestamp.microsecondText`).
    public mutating func time(_ t: Timestamp) {
        let comma = afterValue
        put(bound: 29) { s in
            if comma { s.put(0x2C) }
            s.put(microsecondsOf: t)
        }
        afterValue = true
    }

    /// A member: its key and value.
    public mutating func member(_ k: StaticString, _ v: String) {
        let plain = v.utf8.withContiguousStorageIfAvailable { u in
            guard TerminalText.isPlainJSON(u) else { return false }
            member(k, bound: u.count &+ 2) { s in
                s.put(0x22)
                s.put(u)
                s.put(0x22)
            }
            return true
        }
        if plain != true {
            key(k)
            string(v)
        }
    }

    public mutating func member(_ k: StaticString, _ v: Int) {
        member(k, bound: 21) { $0.put(decimal: v) }
    }

    public mutating func member(_ k: StaticString, _ v: Bool) {
        member(k, bound: 5) { $0.put(v ? "true" : "false") }
    }

    public mutating func member(_ k: StaticString, _ v: Timestamp) {
        member(k, bound: 28) { $0.put(microsecondsOf: v) }
    }

    /// A member whose key and value (at most `bound` bytes, put by `value`) are written in
    /// one step.
    @inline(__always)
    private mutating func member(_ k: StaticString, bound: Int, _ value: (inout OutputSpan<UInt8>) -> Void) {
        keyed(k, bound: bound, then: true, value)
    }

    /// A key with what `value` puts after it (at most `bound` bytes), in one step; `then`:
    /// whether that completed a value (else the member's value comes next).
    @inline(__always)
    private mutating func keyed(
        _ k: StaticString, bound: Int, then completesValue: Bool, _ value: (inout OutputSpan<UInt8>) -> Void
    ) {
        assert(Self.isPlainText(k), "JSON keys written as they are must need no escaping")
        let comma = afterValue
        put(bound: k.utf8CodeUnitCount &+ 4 &+ bound) { s in
            if comma { s.put(0x2C) }
            s.put(0x22)
            s.put(k)
            s.put(0x22)
            s.put(0x3A)
            value(&s)
        }
        afterValue = completesValue
    }

    /// A member whose value is an array of integers.
    public mutating func member(_ k: StaticString, _ v: [Int]) {
        key(k)
        beginArray()
        for i in v { int(i) }
        endArray()
    }

    /// A member whose value is an array of strings.
    public mutating func member(_ k: StaticString, _ v: [String]) {
        key(k)
        beginArray()
        for s in v { string(s) }
        endArray()
    }

    /// A member whose string value is written in parts, with no `String` made of it: its key,
    /// the opening quote and `head` (text that needs no escaping) here, then `stringPart`s,
    /// then `endString`.
    public mutating func beginString(_ k: StaticString, _ head: StaticString = "") {
        assert(Self.isPlainText(head), "text written as it is must need no escaping")
        keyed(k, bound: 1 &+ head.utf8CodeUnitCount, then: false) { s in
            s.put(0x22)
            s.put(head)
        }
    }

    /// Text of the string begun (`beginString`), which needs no escaping.
    public mutating func stringPart(_ s: StaticString) {
        assert(Self.isPlainText(s), "text written as it is must need no escaping")
        put(bound: s.utf8CodeUnitCount) { $0.put(s) }
    }

    /// A number in decimal, in the string begun.
    public mutating func stringPart(decimal v: Int) {
        put(bound: 20) { $0.put(decimal: v) }
    }

    /// Text of the string begun, escaped as `string` escapes it.
    public mutating func stringPart(escaping s: String) {
        JSONValue.writeContent(s, into: &bytes)
    }

    /// The closing quote of the string begun.
    public mutating func endString() {
        bytes.append(0x22)
        afterValue = true
    }

    /// A member whose value is a string of 16 lower-case hexadecimal digits.
    public mutating func member(_ k: StaticString, hex v: UInt64) {
        member(k, bound: 18) { s in
            s.put(0x22)
            s.put(hex: v, digits: 16)
            s.put(0x22)
        }
    }

    /// A finding's `frames` as an array, made of its first and related frames in place.
    public mutating func member(_ k: StaticString, framesOf f: Finding) {
        key(k)
        beginArray()
        if let first = f.firstFrame { int(first) }
        for i in f.relatedFrames { int(i) }
        endArray()
    }

    /// A member whose value was written before as JSON text (`RuleTexts`' strings).
    public mutating func member(_ k: StaticString, json v: [UInt8]) {
        key(k)
        value(json: v, v.indices)
    }

    /// A member whose value is a string, or null when there is none.
    public mutating func member(_ k: StaticString, orNull v: String?) {
        key(k)
        string(orNull: v)
    }

    /// A member whose value is an integer, or null when there is none.
    public mutating func member(_ k: StaticString, orNull v: Int?) {
        key(k)
        if let v { int(v) } else { null() }
    }

    /// A value written before as JSON text: `json[range]` (nothing when the range is not
    /// in `json`).
    public mutating func value(json: [UInt8], _ range: Range<Int>) {
        guard range.lowerBound >= 0, range.upperBound <= json.count else { return }
        let comma = afterValue
        json.withUnsafeBufferPointer { b in
            let u = UnsafeBufferPointer(rebasing: b[range])
            put(bound: u.count &+ 1) { s in
                if comma { s.put(0x2C) }
                s.put(u)
            }
        }
        afterValue = true
    }

    /// Members written before as JSON text (`"a":1,"b":[]`, as `JSONValue.writeMembers`
    /// makes them), inside the object being written.
    public mutating func members(json: [UInt8]) {
        guard !json.isEmpty else { return }
        value(json: json, json.indices)
    }

    private static func isPlainText(_ k: StaticString) -> Bool {
        k.withUTF8Buffer { TerminalText.isPlainJSON($0) }
    }
}

extension JSONValue {
    /// An object's members as JSON text without the braces (`"a":1,"b":[]`), for
    /// `JSONWriter.members(json:)`.
    public static func writeMembers(_ members: [(String, JSONValue)], into out: inout [UInt8]) {
        for (k, (key, v)) in members.enumerated() {
            if k > 0 { out.append(0x2C) }
            writeString(key, into: &out)
            out.append(0x3A)
            v.write(into: &out)
        }
    }
}
