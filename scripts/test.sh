#!/usr/bin/env bash
# Runs DiscoScope's whole test suite on a fresh Debian machine: installs the test
# dependencies, checks the formatting (`swift format lint --strict`), checks the library
# product (scripts/check-library.sh), then `swift test` (unit, rule, golden-file, CLI and, as root, live-capture
# tests), then the tshark differential checks on ../shared/captures/public when present, then
# a short run of every fuzz target (FUZZ_SECONDS each, default 10; 0 skips) so they cannot rot,
# built in debug (FUZZ_CONFIG, default debug here: the build is half the release one's time,
# and a 10 s run is a guard against rot, not a search; long runs use scripts/fuzz.sh's release).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
# Formatting is part of the build: the repository's .swift-format, strictly.
swift format lint --strict -r --parallel Sources Tests FuzzTesting/Sources Examples
swift build --build-tests
# The library as another package uses it: the example package, the DocC catalog, the API.
scripts/check-library.sh
swift test --skip-build
if [ -d ../shared/captures/public ]; then
    scripts/compare-tshark-counts.sh
    scripts/compare-tshark-ssdp.py captures/testbed/*.pcap* ../shared/captures/public/*.pcap*
    scripts/compare-tshark-mdns.py captures/testbed/*.pcap* ../shared/captures/public/*.pcap*
else
    echo "skipped: the tshark differential checks on ../shared/captures/public (not beside this clone)"
fi
fuzz_seconds=${FUZZ_SECONDS:-10}
if [ "$fuzz_seconds" != 0 ]; then
    FUZZ_CONFIG=${FUZZ_CONFIG:-debug} scripts/fuzz.sh all "$fuzz_seconds"
fi
