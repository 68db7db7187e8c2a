/// The memory a `TransitionTable` reads: buffers of plain values (indices, flags, unretained
/// references), each allocated once as the table is built and freed together when the table
/// goes, and the objects its unretained references point to, kept alive beside them. A table
/// reads its buffers without bounds checks or reloading an array after each closure call;
/// this is the one place that owns them, so no buffer is freed by hand.
final class TableStorage {
    private var blocks: [UnsafeMutableRawPointer] = []
    private var objects: [AnyObject] = []

    /// A buffer holding `elements`, freed with the storage. Only for plain values (what the
    /// storage never deinitializes).
    func buffer<Elements: Collection>(_ elements: Elements) -> UnsafeMutableBufferPointer<Elements.Element> {
        precondition(_isPOD(Elements.Element.self), "TableStorage holds plain values only")
        let buffer = UnsafeMutableBufferPointer<Elements.Element>.allocate(capacity: Swift.max(elements.count, 1))
        _ = buffer.initialize(from: elements)
        blocks.append(UnsafeMutableRawPointer(buffer.baseAddress!))
        return UnsafeMutableBufferPointer(rebasing: buffer[0..<elements.count])
    }

    /// A buffer of unretained references to `objects`, which the storage keeps alive: a
    /// dispatch borrows an object through it, with no retain or release.
    func references<Object: AnyObject>(_ objects: [Object]) -> UnsafeMutableBufferPointer<Unmanaged<Object>> {
        // One at a time: an array's upcast needs the runtime's casts, which Embedded Swift has not.
        for object in objects { self.objects.append(object) }
        return buffer(objects.map { Unmanaged.passUnretained($0) })
    }

    deinit {
        for block in blocks { block.deallocate() }
    }
}
