#!/bin/sh
# Records the SimGrid time-independent traces of the MPI programs here:
# record.sh OUTDIR [NP]. Each program is compiled with smpicc and run
# under smpirun -trace-ti on platform.xml (a 16-node cluster, 1 Gflop/s
# hosts), all ranks in one file (tracing/smpi/format/ti-one-file), written
# to OUTDIR/PROGRAM.ti. SimGrid's own replay of each trace
# (smpirun -replay) is then run with the per-action log on, to
# OUTDIR/PROGRAM.replay.log, so that the replayed actions can be counted.
set -eu
out=$1
np=${2:-4}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for p in ring cg collmix; do
	smpicc -O1 -o "$p" "$here/$p.c"
	smpirun -np "$np" -platform "$here/platform.xml" -hostfile "$here/hostfile" \
		-trace-ti --cfg=tracing/filename:"$p.txt" --cfg=tracing/smpi/format/ti-one-file:yes \
		--cfg=smpi/host-speed:1Gf --log=root.thres:warning "./$p" >/dev/null
	# The index names one file of all ranks' actions; its name holds a
	# time stamp, so it is copied under the program's name.
	cat $(cat "$p.txt") >"$out/$p.ti"
	# The replay reads an index: one line naming the shared file.
	echo "$out/$p.ti" >"$p.index"
	smpirun -np "$np" -platform "$here/platform.xml" -hostfile "$here/hostfile" \
		--cfg=smpi/host-speed:1Gf --log=smpi_replay.thres:verbose --log=root.fmt:%m%n \
		-replay "$p.index" >"$out/$p.replay.log" 2>&1 || true
done
