extension MachineSymbol {
    /// The case name, as written in the enum. (Embedded Swift has no reflection: there the enum
    /// provides `name` itself.)
    public var name: String { String(describing: self) }
}
