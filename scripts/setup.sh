#!/usr/bin/env bash
# Installs what building DiscoScope needs on Debian/Ubuntu (libpcap and zlib headers), and
# with --test also what the test suite uses (tshark for differential checks, Python
# consumers of SARIF and JUnit, iproute2 and python3-zeroconf for live-capture tests, headless
# Chromium for the HTML report's browser test, systemd-analyze and logrotate for the sensor's
# packaging).
# Idempotent; uses sudo when not root.
set -euo pipefail
packages=(libpcap-dev zlib1g-dev pkg-config)
if [ "${1:-}" = "--test" ]; then
    packages+=(tshark tcpdump python3 python3-jsonschema python3-junitparser iproute2 python3-zeroconf procps util-linux chromium systemd logrotate)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
