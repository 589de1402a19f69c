#!/usr/bin/env bash
# Installs the discoscope binary where `sudo` and every shell find it: builds the release
# binary (after scripts/setup.sh's build dependencies) and copies it to $PREFIX/bin
# (default /usr/local/bin), through sudo when that directory is not writable.
#
#   scripts/install.sh               # /usr/local/bin/discoscope
#   PREFIX=$HOME/.local scripts/install.sh
#   scripts/install.sh --uninstall
set -euo pipefail
cd "$(dirname "$0")/.."
PREFIX=${PREFIX:-/usr/local}
DEST="$PREFIX/bin/discoscope"
SUDO=""
need_sudo() {
    local dir=$1
    while [ ! -d "$dir" ]; do dir=$(dirname "$dir"); done
    [ -w "$dir" ] || { [ "$(id -u)" -ne 0 ] && SUDO="sudo"; }
}
if [ "${1:-}" = "--uninstall" ]; then
    need_sudo "$PREFIX/bin"
    $SUDO rm -f "$DEST"
    echo "removed $DEST"
    exit 0
fi
scripts/setup.sh
# A fresh build plan: the BuildInfo plugin then records the current commit for --version.
swift build -c release --product discoscope --disable-build-manifest-caching
BIN="$(swift build -c release --show-bin-path)/discoscope"
need_sudo "$PREFIX/bin"
$SUDO install -d "$PREFIX/bin"
$SUDO install -m 0755 "$BIN" "$DEST"
echo "installed $DEST ($("$DEST" --version))"
case ":$PATH:" in
    *":$PREFIX/bin:"*) ;;
    *) echo "note: $PREFIX/bin is not on your PATH" >&2 ;;
esac
