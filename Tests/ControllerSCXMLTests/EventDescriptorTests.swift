@testable import ControllerSCXML
import Testing

/// SCXML 3.12.1: a descriptor matches an event whose name is it or starts with it and a dot;
/// `*` matches every event; `foo.*` means `foo`; an `event=` lists several.
@Suite("Event descriptors")
struct EventDescriptorTests {
    @Test("a name matches itself and its descendants, not a longer token")
    func prefixes() {
        let foo = EventDescriptor("foo")
        #expect(foo.matches("foo"))
        #expect(foo.matches("foo.bar"))
        #expect(foo.matches("foo.bar.baz"))
        #expect(!foo.matches("foobar"))
        #expect(!foo.matches("fo"))
        #expect(!foo.matches("bar.foo"))
    }

    @Test("foo.* and foo. mean foo; * matches everything")
    func wildcards() {
        #expect(EventDescriptor("foo.*") == EventDescriptor("foo"))
        #expect(EventDescriptor("foo.") == EventDescriptor("foo"))
        #expect(EventDescriptor("foo.*").matches("foo.bar"))
        #expect(!EventDescriptor("foo.*").matches("food"))
        #expect(EventDescriptor("*").matches("done.state.s1"))
        #expect(EventDescriptor("*").matches("error.execution"))
    }

    @Test("event= lists several descriptors")
    func lists() {
        let list = EventDescriptor.list(" foo  bar.baz\n*")
        #expect(list.map(\.description) == ["foo", "bar.baz", "*"])
    }

    /// One row per concrete event the descriptors match, in document order per state and
    /// event: `error` answers error.execution before the later `*` row does.
    @Test("a descriptor becomes a row per matching event, in document order")
    func rows() {
        let report = run(scxml("""
            <state id="s0">
              <onentry><raise event="foo.bar"/><raise event="food"/></onentry>
              <transition event="foo" target="s1"/>
              <transition event="*" target="fail"/>
            </state>
            <state id="s1">
              <transition event="foo.bar" target="fail"/>
              <transition event="food" target="pass"/>
            </state>
            <final id="pass"/><final id="fail"/>
            """))
        #expect(report.outcome == .pass)
    }
}
