#!/usr/bin/env bash
# Makes a single-node Slurm cluster on this machine, for the tests of campaigns over Slurm:
# writes a configuration with this host as controller and only node (unless one exists),
# starts munged, slurmctld and slurmd when they are not running, and waits until the node
# takes jobs. Needs root (the daemons run as root here) and Debian's slurm-wlm and munge.
#
#   scripts/slurm-localhost.sh          start (or check) the cluster; exit 0 when sinfo works
#   scripts/slurm-localhost.sh stop     stop the daemons this script started
set -euo pipefail

conf=${SLURM_CONF:-/etc/slurm/slurm.conf}
state=/var/lib/clmap-slurm
host=$(hostname -s)

if [ "${1:-}" = "stop" ]; then
  for daemon in slurmd slurmctld; do
    if [ -f "$state/$daemon.pid" ]; then
      kill "$(cat "$state/$daemon.pid")" 2>/dev/null || true
      rm -f "$state/$daemon.pid"
    fi
  done
  exit 0
fi

for tool in sinfo slurmctld slurmd munged; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "Slurm is not installed ($tool missing): apt-get install slurm-wlm munge" >&2
    exit 2
  fi
done

if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "Slurm is installed but not running, and starting it needs root" >&2
  exit 2
fi

mkdir -p "$state/spool" "$state/ctld" /run/munge /var/log/slurm
chown munge:munge /run/munge
if [ ! -f /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
  chown munge:munge /etc/munge/munge.key
  chmod 400 /etc/munge/munge.key
fi
if ! pgrep -x munged >/dev/null; then
  runuser -u munge -- munged
fi

if [ ! -f "$conf" ]; then
  cpus=$(nproc)
  memory=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
  mkdir -p "$(dirname "$conf")"
  cat > "$conf" <<EOF
# Single-node cluster for clmap's tests (scripts/slurm-localhost.sh).
ClusterName=clmap
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/spool
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SchedulerType=sched/backfill
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
fi

if ! pgrep -x slurmctld >/dev/null; then
  slurmctld -f "$conf"
fi
if ! pgrep -x slurmd >/dev/null; then
  slurmd -f "$conf"
fi

for _ in $(seq 1 60); do
  if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    exit 0
  fi
  # A node left down by an earlier run comes back here.
  scontrol update NodeName="$host" State=RESUME >/dev/null 2>&1 || true
  sleep 1
done
echo "Slurm did not come up; see /var/log/slurm/" >&2
sinfo >&2 || true
exit 1
