#!/usr/bin/env bash
# Builds the release tarball, dist/discoscope-VERSION-linux-ARCH.tar.gz: the discoscope binary
# with the Swift runtime (standard library, Foundation, Dispatch) linked in statically, so it
# runs where no Swift toolchain is installed; its man page; bash, zsh and fish completions;
# LICENSE; and a README. Prints the tarball's path and size.
#
#   scripts/package.sh
#
# The release build has a build directory of its own (.build-package, or $SCRATCH), so it
# neither relinks nor waits for the .build that `swift build`, `swift test` and install.sh use.
# The binary still needs glibc and libpcap0.8 at run time (the tarball's README lists what ldd
# shows). A fully static binary would take the static Linux SDK (`swift sdk list`; none is
# installed here) and a musl build of libpcap and zlib for CPcap's pkg-config to find.
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build-package}
scripts/setup.sh

# Planned afresh (no cached build manifest), so the BuildInfo plugin's prebuild command runs and
# `--version` names HEAD (swiftlang/swift-package-manager#5476: a cached plan skips it).
swift build --scratch-path "$SCRATCH" -c release --product discoscope --static-swift-stdlib \
    --disable-build-manifest-caching
# The man page comes from ArgumentParser's generate-manual (what its generate-manual plugin
# runs, built here with the same flags, so nothing is compiled twice), dated by the commit.
swift build --scratch-path "$SCRATCH" -c release --product generate-manual --static-swift-stdlib
BINDIR=$(swift build --scratch-path "$SCRATCH" -c release --show-bin-path)
BIN="$BINDIR/discoscope"
DATE=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)

VERSION=$("$BIN" --version | awk '{ print $2 }')
ARCH=$(uname -m)
NAME="discoscope-$VERSION-linux-$ARCH"
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
ROOT="$STAGE/$NAME"
install -d "$ROOT/bin" "$ROOT/share/man/man1" "$ROOT/share/bash-completion/completions" \
    "$ROOT/share/zsh/site-functions" "$ROOT/share/fish/vendor_completions.d"
# Symbols and debug information go (≈ 30 % of the size; backtraces then show addresses).
strip -o "$ROOT/bin/discoscope" "$BIN"
"$BINDIR/generate-manual" "$BIN" --date "$DATE" --output-directory "$ROOT/share/man/man1"
"$BIN" --generate-completion-script bash >"$ROOT/share/bash-completion/completions/discoscope"
"$BIN" --generate-completion-script zsh >"$ROOT/share/zsh/site-functions/_discoscope"
"$BIN" --generate-completion-script fish >"$ROOT/share/fish/vendor_completions.d/discoscope.fish"
install -m 0644 LICENSE "$ROOT/LICENSE"

# What the binary still loads from the system: the libraries it names itself (NEEDED), then
# the rest of what ldd lists (those libraries' own dependencies), without the kernel's vDSO.
LDD=$(ldd "$ROOT/bin/discoscope")
if grep -Eq 'libswift|libFoundation|lib_Foundation|libdispatch|libBlocksRuntime' <<<"$LDD"; then
    echo "package.sh: the binary still loads a Swift runtime library:" >&2
    echo "$LDD" >&2
    exit 1
fi
NEEDED=$(readelf -d "$ROOT/bin/discoscope" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
DIRECT=$(awk '{ printf "%s`%s`", (NR > 1 ? ", " : ""), $0 }' <<<"$NEEDED")
INDIRECT=$(awk -v needed="$NEEDED" '
    BEGIN { split(needed, n, "\n"); for (i in n) { seen[n[i]] = 1 } }
    $1 !~ /^linux-vdso/ { base = $1; sub(/.*\//, "", base); if (!(base in seen)) { printf "%s`%s`", (k++ ? ", " : ""), $1 } }
' <<<"$LDD")

cat >"$ROOT/README.md" <<EOF
# DiscoScope $VERSION ($ARCH Linux)

\`discoscope\` captures, decodes and lints local-network service discovery: SSDP (UPnP,
UDP 1900) and multicast DNS / DNS-SD (Bonjour, UDP 5353). It reads pcap and pcapng captures
(gzip-compressed too) or sniffs an interface, shows every message typed, and checks each one
against the UPnP Device Architecture and RFC 6762/6763 rules. $("$BIN" --version).

## Run it

    bin/discoscope analyze capture.pcapng                 # messages, findings, summary
    bin/discoscope analyze -q capture.pcapng              # findings and summary only
    bin/discoscope analyze --format sarif -o results.sarif capture.pcapng
    bin/discoscope rules                                  # the rule catalog
    man share/man/man1/discoscope.1

Exit status: 0 no finding at or above \`--fail-on\` (default error); 1 findings at or above
it; 2 usage or input error.

## What it needs

The Swift runtime is inside the binary: no Swift toolchain is needed. \`ldd bin/discoscope\`
on the build machine lists only system libraries: the binary names $DIRECT;
and through those come ${INDIRECT:-no others}.

On Debian and Ubuntu these come with \`apt-get install libpcap0.8 zlib1g libstdc++6\` (glibc
and libgcc are always there). Capturing live (\`discoscope capture\`) needs root, or
\`sudo setcap cap_net_raw,cap_net_admin=eip bin/discoscope\`; analysing files needs neither.

## Install

    sudo tar -xzf $NAME.tar.gz -C /usr/local --strip-components=1

puts the binary in /usr/local/bin, the man page and the bash, zsh and fish completions where
those shells and \`man\` look (share/...).

## Use in CI

Unpack, analyse, keep the exit status, and upload results.sarif whatever it is (GitHub:
github/codeql-action/upload-sarif with \`if: always()\`):

    mkdir discoscope && tar -xzf $NAME.tar.gz -C discoscope --strip-components=1
    status=0
    discoscope/bin/discoscope analyze --format sarif -o results.sarif capture.pcapng || status=\$?
    exit "\$status"

DiscoScope is licensed under the Apache License 2.0 (LICENSE).
EOF

install -d dist
TARBALL="dist/$NAME.tar.gz"
tar -C "$STAGE" --owner=0 --group=0 --numeric-owner -czf "$TARBALL.tmp" "$NAME"
mv -f "$TARBALL.tmp" "$TARBALL"
echo "$TARBALL $(stat -c %s "$TARBALL") bytes (binary $(stat -c %s "$ROOT/bin/discoscope") bytes; unstripped $(stat -c %s "$BIN"))"
