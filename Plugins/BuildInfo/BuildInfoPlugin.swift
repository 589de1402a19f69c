import Foundation
import PackagePlugin

/// Gives the `discoscope` target the commit it is built from: a prebuild command (run before
/// every build) asks git for `HEAD` and writes `BuildInfo.swift` into the plugin's work
/// directory under `.build`, so the work tree stays clean. Outside a git checkout of this
/// package (a source tarball, or a copy inside some other repository) the commit is "unknown".
/// The file is rewritten only when its text changes, so an unchanged commit recompiles nothing.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let outputs = context.pluginWorkDirectoryURL.appending(path: "Generated")
        let scratch = context.pluginWorkDirectoryURL.appending(path: "BuildInfo.swift.new")
        return [
            .prebuildCommand(
                displayName: "Recording the commit for discoscope --version",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [
                    "-c", Self.script, "buildinfo", context.package.directoryURL.path(percentEncoded: false),
                    outputs.path(percentEncoded: false), scratch.path(percentEncoded: false),
                ],
                outputFilesDirectory: outputs)
        ]
    }

    /// `$1` package directory, `$2` output directory, `$3` scratch file (outside `$2`, whose
    /// every file is compiled).
    static let script = #"""
        set -u
        commit=unknown
        if top=$(git -C "$1" rev-parse --show-toplevel 2>/dev/null) &&
            [ "$(cd "$top" && pwd -P)" = "$(cd "$1" && pwd -P)" ]; then
            commit=$(git -C "$1" rev-parse --short HEAD 2>/dev/null) || commit=unknown
        fi
        mkdir -p "$2"
        printf '%s\n' \
            '// Generated before each build by Plugins/BuildInfo; not in git.' \
            'enum BuildInfo {' \
            '    /// The commit discoscope was built from (`git rev-parse --short HEAD`), or "unknown".' \
            "    static let commit = \"$commit\"" \
            '}' >"$3"
        if cmp -s "$3" "$2/BuildInfo.swift"; then rm -f "$3"; else mv -f "$3" "$2/BuildInfo.swift"; fi
        """#
}
