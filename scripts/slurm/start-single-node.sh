#!/usr/bin/env bash
# Starts a one-node Slurm cluster on this machine (munge, slurmctld and
# slurmd on localhost) from the Debian packages, so that the sweep tests
# can submit real job arrays (go test ./cmd/nocsim -run Slurm).
#
#   scripts/slurm/start-single-node.sh [--install]
#
# --install first installs slurm-wlm and munge with apt-get (bounded by
# SLURM_INSTALL_TIMEOUT seconds, default 600). The script is idempotent: if
# sinfo already shows an idle node it does nothing. It writes
# /etc/slurm/slurm.conf only when there is none or when it is one this
# script wrote (a real cluster's configuration is never touched). It needs
# root (it uses sudo when not run as root). Exit 0 when a node is idle and
# accepts jobs; otherwise non-zero with the reason on stderr (daemon logs
# in /var/log/slurm).
set -euo pipefail

marker="# written by nocsim scripts/slurm/start-single-node.sh"
conf=/etc/slurm/slurm.conf

say() { echo "start-single-node: $*" >&2; }
die() { say "$*"; exit 1; }

if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "needs root, and sudo is not installed"
  exec sudo -n env SLURM_INSTALL_TIMEOUT="${SLURM_INSTALL_TIMEOUT:-600}" "$0" "$@"
fi

if [ "${1:-}" = "--install" ]; then
  if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    export DEBIAN_FRONTEND=noninteractive
    t=${SLURM_INSTALL_TIMEOUT:-600}
    timeout "$t" apt-get update -qq || die "apt-get update failed or took over ${t}s"
    timeout "$t" apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null ||
      die "apt-get install slurm-wlm munge failed or took over ${t}s"
  fi
fi
for b in munged slurmctld slurmd sinfo scontrol; do
  command -v "$b" >/dev/null || die "$b not found: install slurm-wlm and munge (or pass --install)"
done

idle() { sinfo -h -o '%T' 2>/dev/null | grep -qx 'idle'; }
if idle; then
  say "a node is already idle"
  exit 0
fi

# munge: a key readable by munge only, and its socket directory.
if [ ! -s /etc/munge/munge.key ]; then
  dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
fi
chown munge:munge /etc/munge/munge.key
chmod 0400 /etc/munge/munge.key
install -d -o munge -g munge -m 0755 /run/munge
install -d -o munge -g munge -m 0700 /var/log/munge /var/lib/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 20); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break
    sleep 0.5
  done
  munge -n | unmunge >/dev/null || die "munged does not answer (see /var/log/munge/munged.log)"
fi

host=$(hostname -s)
if [ -e "$conf" ] && ! grep -qxF "$marker" "$conf"; then
  die "$conf exists and was not written by this script: not touching a real cluster's configuration"
fi
# The node as slurmd sees it (CPUs, memory), named after this host.
node=$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$host NodeAddr=127.0.0.1/")
mkdir -p /etc/slurm
cat >"$conf" <<CONF
$marker
ClusterName=nocsim
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
# No cgroups: containers and CI machines rarely delegate them.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=10
Waittime=0
$node State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
chmod 0644 "$conf"
mkdir -p /var/spool/slurmctld /var/spool/slurmd /var/log/slurm

pgrep -x slurmctld >/dev/null || slurmctld || die "slurmctld did not start (see /var/log/slurm/slurmctld.log)"
pgrep -x slurmd >/dev/null || slurmd || die "slurmd did not start (see /var/log/slurm/slurmd.log)"

for _ in $(seq 60); do
  idle && { say "node $host idle"; exit 0; }
  # A node that was down before (an earlier run) comes back on request.
  state=$(sinfo -h -o '%T' 2>/dev/null || true)
  case "$state" in
    down*|drain*) scontrol update nodename="$host" state=resume 2>/dev/null || true ;;
  esac
  sleep 1
done
die "no idle node after 60 s (sinfo says: $(sinfo -h -o '%N %T %E' 2>&1 | tr '\n' ' '); see /var/log/slurm/)"
