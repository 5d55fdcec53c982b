#!/usr/bin/env bash
# CTest `slurm_sweep`: scripts/slurm/sweep.sbatch under a real single-node Slurm started here
# (munged, slurmctld and slurmd on localhost, private sockets, ports and state under a temporary
# directory; about a second to come up). The job runs a 6-point sweep on 3 srun-launched MPI
# ranks, is requeued (`scontrol requeue`) after its first finished point, and its second attempt
# must skip the finished points and leave the directory byte-identical to a one-process sweep.
# Exit 77 (skipped) without root or without Debian's slurm-wlm and Open MPI (scripts/setup
# installs them).
#   scripts/slurm/test_single_node.sh BUILD_DIR/fleetsim
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
fleetsim="$(realpath "${1:?usage: $0 PATH/TO/fleetsim}")"
skip() { echo "slurm_sweep: skipped: $*"; exit 77; }
# Opt-in: under a fully loaded suite the requeued job sometimes did not restart within the test's
# time (Slurm holds a requeued job back; see the wait below), so CI does not depend on it.
[ "${FLEETSIM_TEST_SLURM:-0}" = 1 ] || skip "set FLEETSIM_TEST_SLURM=1 to start a local Slurm and test sweep.sbatch"
[ "$(id -u)" -eq 0 ] || skip "slurmd needs root"
for tool in munged slurmctld slurmd sbatch squeue scontrol mpirun; do
  command -v "$tool" >/dev/null || skip "$tool not installed (scripts/setup installs slurm-wlm and openmpi-bin)"
done

t="$(mktemp -d /tmp/fleetsim_slurm.XXXXXX)"
mkdir -p "$t/state" "$t/spool" "$t/munge"
pids=()
cleanup() {
  for f in "$t/slurmd.pid" "$t/slurmctld.pid" "$t/munge/munged.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null || true
  done
  sleep 0.5
  rm -rf "$t"
}
trap cleanup EXIT

# Ports from this process id, so two test runs on one machine do not meet.
port=$((20000 + ($$ % 20000)))
dd if=/dev/urandom of="$t/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$t/munge/munge.key"
munged --force --socket="$t/munge/sock" --key-file="$t/munge/munge.key" --pid-file="$t/munge/munged.pid" \
  --log-file="$t/munge/log" --seed-file="$t/munge/seed"
cpus="$(nproc)"
cat >"$t/slurm.conf" <<CONF
ClusterName=fleetsimtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$t/munge/sock
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=localhost CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$t/slurm.conf" OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
start=$(date +%s.%N)
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 240); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 0.25
done
sinfo -h -o %T | grep -q idle || { tail -5 "$t/slurmctld.log" "$t/slurmd.log"; echo "slurm_sweep: FAILED: the node never became idle"; exit 1; }
echo "slurm_sweep: single-node Slurm up in $(awk "BEGIN {printf \"%.1f\", $(date +%s.%N) - $start}") s"

args=(--vary failures.rate_scale=0.5,1,2 --vary 'checkpoint.interval=10 min,20 min' --replications 40)
(cd "$t" && "$fleetsim" sweep "${args[@]}" -o ref >/dev/null 2>&1)

job=$(cd "$t" && FLEETSIM="$fleetsim" sbatch --parsable --overcommit --ntasks=3 --output="$t/job.out" \
  "$here/sweep.sbatch" out "${args[@]}")
wait_for() {  # wait_for CONDITION-COMMAND SECONDS
  for _ in $(seq 1 $(($2 * 10))); do eval "$1" && return 0; sleep 0.1; done
  return 1
}
finished() { ls "$t/out"/*.h5 2>/dev/null | wc -l; }
wait_for '[ "$(finished)" -ge 1 ]' 120 || { cat "$t/job.out"; echo "slurm_sweep: FAILED: no point finished"; exit 1; }
scontrol requeue "$job"
echo "slurm_sweep: job $job requeued with $(finished) of 6 points finished"
# Slurm holds a requeued job back for a while (its begin time moves on); let it start at once.
wait_for '[ "$(squeue -h -j "$job" -o %T)" = PENDING ]' 60 || true
scontrol update JobId="$job" StartTime=now || true
wait_for '[ -z "$(squeue -h -j "$job" -o %T 2>/dev/null)" ] && grep -q "6 points:" "$t/job.out"' 300 \
  || { cat "$t/job.out"; echo "slurm_sweep: FAILED: the requeued job did not finish"; exit 1; }
cat "$t/job.out"
grep -q "attempt 2" "$t/job.out" || { echo "slurm_sweep: FAILED: no second attempt"; exit 1; }
grep -q "on each of 3 ranks" "$t/job.out" || { echo "slurm_sweep: FAILED: not on 3 ranks"; exit 1; }
skipped=$(grep -c "] skipped " "$t/job.out" || true)
[ "$skipped" -ge 1 ] || { echo "slurm_sweep: FAILED: the second attempt skipped no finished point"; exit 1; }
# sweep.json records -o, which differs (ref vs out); everything else must be the same bytes.
diff <(sed 's/ -o ref"/ -o X"/' "$t/ref/sweep.json") <(sed 's/ -o out"/ -o X"/' "$t/out/sweep.json")
for f in "$t/ref"/*; do
  [ "$(basename "$f")" = sweep.json ] && continue
  cmp "$f" "$t/out/$(basename "$f")" || { echo "slurm_sweep: FAILED: $(basename "$f") differs"; exit 1; }
done
[ "$(ls "$t/ref" | wc -l)" -eq "$(ls "$t/out" | wc -l)" ] || { echo "slurm_sweep: FAILED: extra files"; exit 1; }
echo "slurm_sweep: passed ($skipped points skipped on the second attempt; directory equal to one process)"
