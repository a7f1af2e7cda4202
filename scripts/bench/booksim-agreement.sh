#!/usr/bin/env bash
# Runs BookSim2 over the agreement grid (8x8 mesh and 8x8-tile cmesh,
# booksim-mesh88.cfg with the topology, traffic, packet size, VCs, load and
# seed of each point overridden on its command line) and writes what it measured as the reference table
# that TestAgreesWithBookSim (endpoint/traffic) holds nocsim's booksim
# preset to; then runs that test verbosely, which prints both tools' figures
# side by side.
#
#   scripts/bench/booksim-agreement.sh BOOKSIM_BINARY [OUT]
#
# BOOKSIM_BINARY is the path of a built BookSim2 binary, which the user
# provides: this script builds nothing but nocsim. OUT defaults to the table the test reads,
# endpoint/traffic/testdata/booksim-agreement.tsv. The grid is below:
# latency points (sim_type = latency: BookSim's 10,000-cycle samples until
# its latency converges) from light load to about 95% of each pattern's
# saturation, and overload points (sim_type = throughput: a 10,000-cycle
# warm-up, two 10,000-cycle samples), whose accepted rate is the pattern's
# saturation throughput, or its floor past saturation; and points with
# 2-flit buffers, where the credit loop paces long packets. 126 BookSim runs:
# about an hour and a half of CPU, spread over the machine's cores.
set -euo pipefail

usage="usage: $0 BOOKSIM_BINARY [OUT] (BOOKSIM_BINARY: the path of a built BookSim2 binary)"
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "$usage" >&2; exit 2; }
bs=$1
if [ ! -f "$bs" ] || [ ! -x "$bs" ]; then
  echo "booksim-agreement: BOOKSIM_BINARY = '$bs' is not an executable file: allowed the path of a built BookSim2 binary (e.g. booksim2/src/booksim)" >&2
  exit 2
fi
case $bs in /*) ;; *) bs=$PWD/$bs ;; esac
out=${2:-}
if [ -n "$out" ]; then case $out in /*) ;; *) out=$PWD/$out ;; esac; fi

cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"
cfg=$PWD/scripts/bench/booksim-mesh88.cfg
out=${out:-$PWD/endpoint/traffic/testdata/booksim-agreement.tsv}

# topology mode traffic packet_flits vcs vc_buf seeds rates...: BookSim seeds
# 1..seeds at each rate. The points nearest saturation get six: there a
# 30,000-cycle run's latency varies by half from seed to seed. The cmesh
# points are 8x8 tiles on a 4x4 mesh of routers with four local ports each
# (BookSim: topology = cmesh, c = 4, routing_function = dor_no_express,
# use_noc_latency = 0 so that links take one cycle as nocsim's do).
grid='mesh latency uniform 1 2 8 2 0.03 0.15 0.24 0.27
mesh latency uniform 1 2 8 6 0.285
mesh latency uniform 5 2 8 2 0.04 0.18 0.29 0.32
mesh latency uniform 5 2 8 6 0.34
mesh latency transpose 1 2 8 2 0.01 0.05 0.08 0.09
mesh latency transpose 1 2 8 6 0.095
mesh latency bitcomp 1 2 8 2 0.02 0.08 0.13 0.15
mesh latency bitcomp 1 2 8 6 0.155
mesh latency tornado 1 2 8 2 0.02 0.10 0.16 0.175
mesh latency tornado 1 2 8 6 0.185
mesh latency uniform 1 4 8 2 0.10 0.30 0.38 0.40
mesh latency uniform 20 2 2 2 0.002
mesh latency uniform 5 2 2 2 0.05 0.15
mesh throughput uniform 1 2 8 2 0.5
mesh throughput uniform 5 2 8 2 0.5
mesh throughput transpose 1 2 8 2 0.3
mesh throughput bitcomp 1 2 8 2 0.3
mesh throughput tornado 1 2 8 2 0.4
mesh throughput uniform 1 4 8 2 0.6
cmesh latency uniform 1 2 8 2 0.05 0.10 0.12 0.13 0.135
cmesh latency uniform 5 2 8 2 0.05 0.12 0.15 0.17
cmesh latency transpose 1 2 8 2 0.02 0.04 0.055
cmesh throughput uniform 1 2 8 2 0.4
cmesh throughput uniform 5 2 8 2 0.4
cmesh throughput transpose 1 2 8 2 0.3'

# AGREEMENT_TOPOLOGIES picks the grid's topologies to run (default all);
# with a subset, the other topologies' rows are kept from OUT as they are.
only=${AGREEMENT_TOPOLOGIES:-mesh cmesh}
for t in $only; do
  case $t in mesh|cmesh) ;; *) echo "booksim-agreement: AGREEMENT_TOPOLOGIES = '$only': allowed mesh, cmesh" >&2; exit 2 ;; esac
done

tmp=$(mktemp -d /tmp/nocsim-agreement.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
echo "$grid" | while read -r topo mode traffic flits vcs buf seeds rates; do
  case " $only " in *" $topo "*) ;; *) continue ;; esac
  for rate in $rates; do
    for seed in $(seq "$seeds"); do
      echo "$topo $mode $traffic $flits $vcs $buf $rate $seed"
    done
  done
done >"$tmp/points"
total=$(wc -l <"$tmp/points")
echo "booksim-agreement: $total BookSim runs on $(nproc) cores" >&2

# One run: its row, or a row of NaN if BookSim printed no statistics (a
# latency point past saturation: BookSim gives up on it).
run() {
  read -r topo mode traffic flits vcs buf rate seed <<<"$1"
  f="$tmp/$topo-$mode-$traffic-$flits-$vcs-$buf-$rate-$seed"
  extra=""
  if [ "$mode" = throughput ]; then extra="max_samples=2"; fi
  if [ "$topo" = cmesh ]; then
    extra="$extra topology=cmesh k=4 c=4 x=4 y=4 xr=2 yr=2 routing_function=dor_no_express use_noc_latency=0"
  fi
  "$bs" "$cfg" "traffic=$traffic" "packet_size=$flits" "num_vcs=$vcs" "vc_buf_size=$buf" "injection_rate=$rate" \
    "seed=$seed" "sim_type=$mode" $extra >"$f.out" 2>&1 || true
  awk -v row="$topo	$mode	$traffic	$flits	$vcs	$buf	$rate	$seed" '
    /^Packet latency average = .*samples/      { lat = $5 }
    /^Accepted flit rate average = .*samples/  { acc = $6 }
    END { if (lat == "" || acc == "") { lat = "NaN"; acc = "NaN" }
          print row "\t" lat "\t" acc }' "$f.out" >"$f.row"
  echo . >&2
}
export -f run
export bs cfg tmp
xargs -P "$(nproc)" -I{} bash -c 'run "$@"' _ {} <"$tmp/points" 2>&1 >/dev/null | awk -v n="$total" '{ printf "\rbooksim-agreement: %d/%d", NR, n > "/dev/stderr" } END { print "" > "/dev/stderr" }'

{
  echo "# BookSim2 on the agreement grid: scripts/bench/booksim-agreement.sh with"
  echo "# scripts/bench/booksim-mesh88.cfg, the point's keys overridden on the command line."
  echo "# BookSim2 commit 28f43299 (github.com/booksim/booksim2), built unchanged."
  echo "# latency: sim_type = latency, packet latency averaged over BookSim's samples (cycles);"
  echo "# throughput: sim_type = throughput, max_samples = 2; accepted in flits/node/cycle."
  printf 'topology\tmode\ttraffic\tpacket_flits\tvcs\tvc_buf\trate_flits_per_node_cycle\tseed\tlatency_cycles\taccepted_flits_per_node_cycle\n'
  if [ -f "$out" ]; then
    # The rows of the topologies not run this time, kept from OUT.
    awk -F'\t' -v only=" $only " '!/^#/ && $1 != "topology" && index(only, " " $1 " ") == 0' "$out"
  fi
  while read -r topo mode traffic flits vcs buf rate seed; do
    cat "$tmp/$topo-$mode-$traffic-$flits-$vcs-$buf-$rate-$seed.row"
  done <"$tmp/points"
} >"$tmp/table"
mv "$tmp/table" "$out"
echo "booksim-agreement: wrote $out" >&2

go test ./endpoint/traffic -run 'TestAgreesWithBookSim$' -count=1 -v -agreement-table "$out"
