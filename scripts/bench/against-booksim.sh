#!/usr/bin/env bash
# Runs one 8x8 uniform point in BookSim2 and in nocsim on the same settings
# (booksim-mesh88.cfg; nocsim's booksim preset), alternately, and prints
# each one's CPU time, its flit-router traversals and their rate per CPU
# second, and the two latencies, so that the speed comparison is made on
# one machine in one sitting.
#
#   scripts/bench/against-booksim.sh BOOKSIM_BINARY [ROUNDS]
#
# BOOKSIM_BINARY is the path of a BookSim2 binary (https://github.com/booksim/booksim2,
# src/booksim once built), which the user provides: this script builds
# nothing but nocsim. ROUNDS defaults to 3. nocsim counts its traversals
# exactly (a packet of f flits over h links counts f(h+1)); BookSim prints
# no such total, so its count is estimated as accepted flits/node/cycle x
# 64 nodes x simulated cycles x average routers passed ("Hops average",
# which counts h+1), and runs about 0.5% above nocsim's exact count of the
# same run.
set -euo pipefail

usage="usage: $0 BOOKSIM_BINARY [ROUNDS] (BOOKSIM_BINARY: the path of a built BookSim2 binary)"
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "$usage" >&2; exit 2; }
bs=$1
rounds=${2:-3}
# Checked before anything runs, and resolved before the cd below.
if [ ! -f "$bs" ] || [ ! -x "$bs" ]; then
  what="does not exist"
  if [ -d "$bs" ]; then what="is a directory"; elif [ -e "$bs" ] && [ ! -f "$bs" ]; then what="is not a regular file"; elif [ -e "$bs" ]; then what="is not executable"; fi
  echo "against-booksim: BOOKSIM_BINARY = '$bs' $what: allowed the path of a built, executable BookSim2 binary (e.g. booksim2/src/booksim)" >&2
  exit 2
fi
case $rounds in '' | *[!0-9]* | 0) echo "against-booksim: ROUNDS = '$rounds': allowed a positive whole number (default 3)" >&2; exit 2 ;; esac
case $bs in /*) ;; *) bs=$PWD/$bs ;; esac

cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"
cfg=$PWD/scripts/bench/booksim-mesh88.cfg

tmp=$(mktemp -d /tmp/nocsim-booksim.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/nocsim" ./cmd/nocsim

TIMEFORMAT='%U %S'
printf '%-8s %10s %12s %16s %14s\n' simulator "CPU (s)" traversals "traversals/CPU s" "latency (cyc)"
for i in $(seq "$rounds"); do
  # nocsim: CPU from the shell's time, the exact count from its JSON.
  { time "$tmp/nocsim" noc --mesh 8x8 --rates 0.3 --preset booksim --vcs 2 --vc-buf 8 --packet-flits 5 \
    --warmup-cycles 10000 --measure-cycles 30000 --seed 1 --json --quiet >"$tmp/noc.json"; } 2>"$tmp/noc.time"
  awk -v t="$(cat "$tmp/noc.time")" '
    /"flit_hops":/                 { gsub(/[ ,]/, "", $2); n = $2 }
    /"avg_packet_latency_cycles":/ { gsub(/[ ,]/, "", $2); lat = sprintf("%.1f", $2) }
    END { split(t, a, " "); cpu = a[1] + a[2]
          printf "%-8s %10.2f %12.0f %16.0f %14s\n", "nocsim", cpu, n, n / cpu, lat }' FS=: "$tmp/noc.json"

  # BookSim2: CPU from the shell's time, the count from its statistics.
  { time "$bs" "$cfg" >"$tmp/bs.out" 2>/dev/null || true; } 2>"$tmp/bs.time"
  grep -q 'Hops average' "$tmp/bs.out" || { echo "against-booksim: BookSim printed no statistics (see $cfg)" >&2; exit 1; }
  awk -v t="$(cat "$tmp/bs.time")" '
    /^Time taken is/              { cycles = $4 }
    /^Accepted flit rate average/ { rate = $6 }
    /^Hops average/               { hops = $4 }
    /^Packet latency average/     { lat = sprintf("%.1f", $5) }
    END { split(t, a, " "); cpu = a[1] + a[2]; n = rate * 64 * cycles * hops
          printf "%-8s %10.2f %12.0f %16.0f %14s\n", "booksim", cpu, n, n / cpu, lat }' "$tmp/bs.out"
done
