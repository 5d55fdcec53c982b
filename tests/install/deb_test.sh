#!/usr/bin/env bash
# Builds the Debian package with CPack and checks that its dependencies are the Debian runtime
# libraries the binary links (dpkg-shlibdeps), and that it carries the binary and the data.
#   tests/install/deb_test.sh BUILD_DIR
set -euo pipefail
build="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
(cd "$build" && cpack -G DEB -B "$tmp" >/dev/null)
deb="$(ls "$tmp"/fleetsim_*.deb)"
depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
for lib in libsimgrid libyaml-cpp libhdf5 libstdc++6; do
  grep -q "$lib" <<<"$depends" || { echo "package does not depend on $lib" >&2; exit 1; }
done
contents="$(dpkg-deb -c "$deb")"
for f in ./usr/bin/fleetsim ./usr/share/fleetsim/models/gpus/h100-sxm-80gb.yaml \
         ./usr/share/fleetsim/data/validation/SOURCES.md ./usr/share/fleetsim/analysis/report.py; do
  grep -q " $f\$" <<<"$contents" || { echo "package lacks $f" >&2; exit 1; }
done
echo "deb test: $(basename "$deb") ($(du -h "$deb" | cut -f1))"
