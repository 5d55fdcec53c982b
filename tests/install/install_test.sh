#!/usr/bin/env bash
# Installs fleetsim into a temporary prefix and uses it from elsewhere, as a user of an installed
# copy would: the binary must find its catalog, scenarios and published data under
# <prefix>/share/fleetsim (not in the checkout it was built from), and the analysis scripts must run.
#   tests/install/install_test.sh BUILD_DIR
set -euo pipefail
build="$1"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
bin="$tmp/prefix/bin/fleetsim"
cd "$tmp"   # any working directory but the checkout
unset FLEETSIM_HOME

home="$("$bin" --version | sed -n 's/^home //p')"
[ "$home" = "$tmp/prefix/share/fleetsim" ] || { echo "installed binary uses home '$home', not its prefix" >&2; exit 1; }
for d in models scenarios data/validation sim/reproduce/data analysis sim/serve/web; do  # web: fleetsim serve's page
  [ -d "$home/$d" ] || { echo "missing $home/$d" >&2; exit 1; }
done

"$bin" validate --only run
"$bin" run --replications 2 -o "$tmp/out.h5" >/dev/null
[ -s "$tmp/out.h5" ] || { echo "run wrote no results file" >&2; exit 1; }
"$bin" list scenarios | grep -q llama3-405b-16k

# The installed analysis scripts draw from the installed results (Debian's Python stack).
if /usr/bin/python3 -c "import h5py, matplotlib, pandas" 2>/dev/null; then
  /usr/bin/python3 "$home/analysis/report.py" "$tmp/out.h5" -o "$tmp/report" >/dev/null
  [ -s "$tmp/report/report.html" ] || { echo "report.py wrote no report.html" >&2; exit 1; }
fi
echo "install test: fleetsim installed in $tmp/prefix runs validate, run and report.py from $tmp"
