#!/usr/bin/env bash
# CTest `slurm_sweep_retry`: sweep.sbatch's step retry, without Slurm. A stand-in `srun` on PATH
# fails its first launch the way Slurm's relaunch of a requeued job's step can fail ("launch
# failed: Unspecified error", exit 1) and then runs the command itself; the batch script must start
# the step again and the sweep finish. A step that exits 2 (bad input) must not be retried.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fleetsim="$(realpath "${1:?usage: $0 PATH/TO/fleetsim}")"
fail() { echo "slurm_sweep_retry: FAILED: $*"; exit 1; }
t="$(mktemp -d /tmp/fleetsim_retry.XXXXXX)"
trap 'rm -rf "$t"' EXIT
mkdir -p "$t/bin"
# srun OPTIONS... COMMAND ARGS...: options start with '-'; the first word that does not is the command.
cat > "$t/bin/srun" <<'SRUN'
#!/usr/bin/env bash
n=$(cat "$SRUN_CALLS" 2>/dev/null || echo 0); echo $((n + 1)) > "$SRUN_CALLS"
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
if [ "$n" -lt "${SRUN_FAILS:-0}" ]; then echo "srun: error: launch failed: Unspecified error" >&2; exit 1; fi
exec "$@"
SRUN
chmod +x "$t/bin/srun"
export PATH="$t/bin:$PATH" FLEETSIM="$fleetsim" FLEETSIM_SRUN_RETRY_DELAY=0

# 1. One failed launch, then the sweep runs: exit 0, every point written, the retry logged.
export SRUN_CALLS="$t/calls1" SRUN_FAILS=1
bash "$here/sweep.sbatch" "$t/out" --vary failures.rate_scale=1,2 --replications 2 >"$t/log1" 2>&1 ||
  { cat "$t/log1"; fail "the batch script did not recover from one failed step launch"; }
[ "$(cat "$t/calls1")" = 2 ] || fail "expected 2 step launches, got $(cat "$t/calls1")"
grep -q "starting it again" "$t/log1" || fail "the retry was not logged"
[ "$(tail -n +2 "$t/out/index.csv" | grep -c ',ok,')" = 2 ] || { cat "$t/out/index.csv"; fail "index.csv lacks the 2 finished points"; }

# 2. Bad input: the step exits 2 once and the batch script with it.
export SRUN_CALLS="$t/calls2" SRUN_FAILS=0
rc=0
bash "$here/sweep.sbatch" "$t/out2" --vary no.such_key=1,2 >"$t/log2" 2>&1 || rc=$?
[ "$rc" = 2 ] || { cat "$t/log2"; fail "bad input: exit $rc, expected 2"; }
[ "$(cat "$t/calls2")" = 1 ] || fail "bad input was retried ($(cat "$t/calls2") launches)"

# 3. A step that keeps failing stops after FLEETSIM_SRUN_ATTEMPTS launches with its exit code.
export SRUN_CALLS="$t/calls3" SRUN_FAILS=99 FLEETSIM_SRUN_ATTEMPTS=2
rc=0
bash "$here/sweep.sbatch" "$t/out3" --vary failures.rate_scale=1,2 >"$t/log3" 2>&1 || rc=$?
[ "$rc" = 1 ] || fail "a step failing every time: exit $rc, expected 1"
[ "$(cat "$t/calls3")" = 2 ] || fail "expected 2 launches with FLEETSIM_SRUN_ATTEMPTS=2, got $(cat "$t/calls3")"
echo "slurm_sweep_retry: passed (a failed launch is retried, bad input is not, attempts are bounded)"
