import ControllerChecks
import Testing

@Suite struct SymbolSizesTests {
    @Test func swiftSymbolsAreSummedByModuleAndCSymbolsByName() {
        let nm = """
            0000000000401000 0000000000000100 T $s9Turnstile5StateO4nameSSvg
            0000000000402000 0000000000000300 T $s9Turnstile7MachineV4stepyyF
            0000000000403000 0000000000000050 T $sSS5countSivg
            0000000000404000 0000000000000020 T $ss5print_yyF
            0000000000405000 0000000000002000 R icudt72_dat
            0000000000406000 0000000000000010 T _ZN3foo3barEv
            0000000000407000 T _start
            """
        let contributors = SymbolSizes.contributors(nmOutput: nm)
        #expect(contributors.map(\.origin) == ["C icudt72_dat", "Swift module Turnstile", "Swift module Swift (standard library)", "C++ _ZN3foo3barEv"])
        #expect(contributors.map(\.bytes) == [2000, 400, 70, 10], "a line without a size is skipped")
    }

    @Test func aLongCSymbolIsCutAndAModuleNameIsReadByItsLength() {
        #expect(SymbolSizes.origin(of: "$s21ControllerCommandLine3RunV") == "Swift module ControllerCommandLine")
        #expect(SymbolSizes.origin(of: String(repeating: "x", count: 100)) == "C " + String(repeating: "x", count: SymbolSizes.shownNameCharacters))
    }
}
