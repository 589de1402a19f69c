import Glibc

/// libFuzzer's entry for programs that have their own `main` (LLVM 11 and later).
@_silgen_name("LLVMFuzzerRunDriver")
func llvmFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with the command line's options on `target`. SwiftPM gives each
/// executable target an entry point of its own (it renames `main` so tests can link the
/// module), so the targets start libFuzzer from top-level code instead of using libFuzzer's
/// `main` with `-parse-as-library`.
public func runFuzzer(_ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
    var argc = CommandLine.argc
    var argv = CommandLine.unsafeArgv
    exit(llvmFuzzerRunDriver(&argc, &argv, target))
}
