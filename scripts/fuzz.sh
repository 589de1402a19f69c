#!/usr/bin/env bash
# Coverage-guided fuzzing with libFuzzer (FuzzTesting/, a package beside the main one).
#
#   scripts/fuzz.sh TARGET SECONDS [libFuzzer options…]
#
# TARGET: packet (link/IP/UDP decoding with reassembly), ssdp, dns, pipeline (decoding, every
# rule, every reporter; text output checked for control bytes, JSON for parsing, HTML for its
# data block), or all (each in turn, SECONDS each). Builds the targets with
# -sanitize=fuzzer,address (release optimisation, checks kept; FUZZ_CONFIG=debug for a debug
# build), seeds the corpus from captures/ (scripts/fuzz-seeds.py) and
# FuzzTesting/Regressions/, uses the target's dictionary, and fails on any crash, trap, leak,
# hang (over 10 s) or broken invariant.
# The corpus grows in FuzzTesting/.corpus/TARGET (not committed); findings go to
# FuzzTesting/.artifacts/. Extra options go to libFuzzer (-runs=N, -jobs=N, …).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
if [ $# -lt 2 ]; then
    echo "usage: scripts/fuzz.sh packet|ssdp|dns|pipeline|all SECONDS [libFuzzer options…]" >&2
    exit 2
fi
target=$1
seconds=$2
shift 2
if [ "$target" = all ]; then
    for t in packet ssdp dns pipeline; do "$0" "$t" "$seconds" "$@"; done
    exit 0
fi
case $target in
    packet) product=FuzzPacketDecoder dicts="packet" ;;
    ssdp) product=FuzzSSDP dicts="ssdp" ;;
    dns) product=FuzzDNS dicts="dns" ;;
    pipeline) product=FuzzPipeline dicts="ssdp dns" ;;
    *) echo "fuzz.sh: unknown target '$target' (packet, ssdp, dns, pipeline, all)" >&2; exit 2 ;;
esac
config=${FUZZ_CONFIG:-release}

# Build once per invocation of the script (quick when nothing changed).
(cd FuzzTesting && swift build -c "$config" --product "$product" \
    -Xswiftc -sanitize=fuzzer,address 2>&1 | grep -v "Cannot export local symbol" | grep -E "error|warning: |Compiling|Build" | grep -v Compiling || true)
binary="FuzzTesting/.build/$config/$product"
[ -x "$binary" ] || { echo "fuzz.sh: $binary was not built" >&2; exit 2; }

corpus=FuzzTesting/.corpus/$target
if [ ! -d "$corpus" ] || [ -z "$(ls -A "$corpus")" ]; then
    seeds=$(mktemp -d)
    python3 scripts/fuzz-seeds.py "$seeds"
    mkdir -p "$corpus"
    cp "$seeds/$target"/* "$corpus"/ 2>/dev/null || true
    rm -rf "$seeds"
fi
regressions=FuzzTesting/Regressions/$target
mkdir -p "$regressions" FuzzTesting/.artifacts
dict=$(mktemp)
trap 'rm -f "$dict"' EXIT
for d in $dicts; do cat "FuzzTesting/Dictionaries/$d.dict" >> "$dict"; done

echo "fuzz.sh: $target for ${seconds}s ($binary)"
# Leak detection stays on (libFuzzer checks for leaks after inputs that allocate more than
# they free); -timeout flags hangs; -rss_limit_mb flags runaway memory.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} "$binary" "$corpus" "$regressions" \
    -dict="$dict" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$root/FuzzTesting/.artifacts/$target-" -print_final_stats=1 "$@"
