import Testing
import ControllerFSM
@testable import ControllerFSMGpiod

/// Finding libgpiod at run time: the newest generation first, one generation when forced, and
/// a refusal that says what was tried and which package to install. The loading of the real
/// libraries (1.6.3 and 2.3) is checked in the VM (scripts/hil/guest/scenarios/05-library.sh).
@Suite("libgpiod loaded at run time")
struct GpiodLibraryTests {
    static let missing: [GpiodLibrary.Generation: String] = [
        .v1: "libgpiod-absent-for-this-test.so.2", .v2: "libgpiod-absent-for-this-test.so.3",
    ]

    @Test("with neither generation installed, both files are named with why, and both packages")
    func neitherGeneration() throws {
        let error = try #require(GpiodLibrary.load(forcing: nil, files: Self.missing).failure)
        guard case .libraryUnavailable(let library, let reason, let instead) = error else {
            Issue.record("not libraryUnavailable: \(error)"); return
        }
        #expect(library == "libgpiod")
        // Tried newest first.
        let v2 = try #require(reason.firstRange(of: "libgpiod-absent-for-this-test.so.3"))
        let v1 = try #require(reason.firstRange(of: "libgpiod-absent-for-this-test.so.2"))
        #expect(v2.lowerBound < v1.lowerBound, "\(reason)")
        #expect(reason.contains("cannot open shared object file"), "dlopen's own reason: \(reason)")
        #expect(instead.contains("sudo apt install libgpiod3") && instead.contains("sudo apt install libgpiod2"), "\(instead)")
        #expect(!reason.contains(GpiodLibrary.generationVariable), "nothing was forced: \(reason)")
        #expect("\(error)".hasPrefix("libgpiod could not be loaded: "))
        #expect(error.chip == nil && error.line == nil)
    }

    @Test("a forced generation is the only one looked for, and the message says it was forced", arguments: GpiodLibrary.Generation.allCases)
    func forcedGeneration(_ generation: GpiodLibrary.Generation) throws {
        let error = try #require(GpiodLibrary.load(forcing: "\(generation.rawValue)", files: Self.missing).failure)
        let text = "\(error)"
        let other: GpiodLibrary.Generation = generation == .v1 ? .v2 : .v1
        #expect(text.contains(Self.missing[generation]!) && !text.contains(Self.missing[other]!), "\(text)")
        #expect(text.contains("apt install \(generation.package)") && !text.contains("apt install \(other.package)"), "\(text)")
        #expect(text.contains("\(GpiodLibrary.generationVariable) asks for this one"), "\(text)")
    }

    @Test("an empty variable forces nothing; any other value than 1 or 2 is refused with the variable's name",
          arguments: ["0", "3", "v2", "2.3", " 1", "libgpiod.so.3"])
    func badForcingValue(_ value: String) throws {
        let error = try #require(GpiodLibrary.load(forcing: value, files: Self.missing).failure)
        #expect("\(error)" == "libgpiod could not be loaded: CONTROLLERFSM_LIBGPIOD is \"\(value)\". "
            + "Set it to 1 (libgpiod 1.6) or 2 (libgpiod 2.x), or unset it to use the newest installed.")
        let empty = try #require(GpiodLibrary.load(forcing: "", files: Self.missing).failure)
        #expect("\(empty)".contains("so.3") && "\(empty)".contains("so.2"), "\(empty)")
    }

    @Test("a library that is not libgpiod is refused with the first function it lacks", arguments: GpiodLibrary.Generation.allCases)
    func notLibgpiod(_ generation: GpiodLibrary.Generation) throws {
        // The C library is on every Linux machine, and has none of libgpiod's functions.
        let error = try #require(GpiodLibrary.load(forcing: "\(generation.rawValue)", files: [generation: "libc.so.6"]).failure)
        let first = generation == .v1 ? "gpiod_version_string" : "gpiod_api_version"
        #expect("\(error)".contains("libc.so.6 has no function \(first)"), "\(error)")
    }

    @Test("the generations name their files and packages as Debian does")
    func generationNames() {
        #expect(GpiodLibrary.Generation.v1.file == "libgpiod.so.2" && GpiodLibrary.Generation.v1.package == "libgpiod2")
        #expect(GpiodLibrary.Generation.v2.file == "libgpiod.so.3" && GpiodLibrary.Generation.v2.package == "libgpiod3")
        #expect(GpiodLibrary.Generation.preferred == [.v2, .v1])
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
