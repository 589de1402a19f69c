#!/usr/bin/env bash
# Checks DiscoScopeKit, the library product, as another package sees it:
#  1. Examples/ResponderChecks, copied outside the repository and depending on this checkout
#     by path, builds and its tests pass;
#  2. the DocC catalog builds with the library's symbols, warnings as errors;
#  3. the public API has no breaking change against the commit recorded in .api-baseline
#     (`swift package diagnose-api-breaking-changes`; record a new baseline on purpose only).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== Examples/ResponderChecks, outside the repository"
cp -r Examples/ResponderChecks "$work/ResponderChecks"
rm -rf "$work/ResponderChecks/.build"
sed -i "s|path: \"../..\"|path: \"$root\"|" "$work/ResponderChecks/Package.swift"
grep -q "path: \"$root\"" "$work/ResponderChecks/Package.swift"
(cd "$work/ResponderChecks" && swift build --build-tests -q && swift test --skip-build -q 2>&1 | tail -3)

echo "== DocC catalog"
mkdir -p "$work/symbols" "$work/kit-symbols"
swift build -q --target DiscoScopeKit -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir \
    -Xswiftc "$work/symbols"
cp "$work/symbols/DiscoScopeKit.symbols.json" "$work/kit-symbols/"
docc convert Sources/DiscoScopeKit/DiscoScopeKit.docc --fallback-display-name DiscoScopeKit \
    --fallback-bundle-identifier discoscope.kit --additional-symbol-graph-dir "$work/kit-symbols" \
    --output-path "$work/docs" --warnings-as-errors >/dev/null
echo "documentation built"

echo "== public API against $(cat .api-baseline)"
swift package diagnose-api-breaking-changes "$(cat .api-baseline)" --products DiscoScopeKit 2>&1 | tail -3
