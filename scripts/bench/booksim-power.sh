#!/usr/bin/env bash
# Runs BookSim2 with its power model (sim_power = 1) at the loads of the
# booksim energy model's agreement test and writes what its summary printed
# as the reference table that TestBookSimPowerAgreement (endpoint/energy)
# holds nocsim's booksim model to; then runs that test verbosely, which
# prints both tools' figures side by side.
#
#   scripts/bench/booksim-power.sh BOOKSIM_BINARY [OUT]
#
# BOOKSIM_BINARY is the path of a built BookSim2 binary, which the user
# provides: this script builds nothing but nocsim. BookSim's power model
# reads a technology file: BookSim's own src/power/techfile.txt, looked for
# beside the binary (BOOKSIM_BINARY's directory/power/techfile.txt, where a
# build in booksim2/src leaves it), or the file BOOKSIM_TECHFILE names.
# OUT defaults to the table the test reads,
# endpoint/energy/testdata/booksim-power.tsv.
#
# The points: scripts/bench/booksim-mesh88.cfg (8x8 mesh, 2 VCs of 8
# flits, 5-flit packets, uniform traffic, sim_type = latency: a
# 10,000-cycle warm-up, then 10,000-cycle samples until latency converges)
# with channel_width = 32, at 0.05, 0.1, 0.2 and 0.3 flits/node/cycle,
# seeds 1 and 2: one row per run (the test averages a load's seeds). Eight
# BookSim runs of about 10 s each, spread over the machine's cores.
set -euo pipefail

usage="usage: $0 BOOKSIM_BINARY [OUT] (BOOKSIM_BINARY: the path of a built BookSim2 binary)"
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "$usage" >&2; exit 2; }
bs=$1
if [ ! -f "$bs" ] || [ ! -x "$bs" ]; then
  echo "booksim-power: BOOKSIM_BINARY = '$bs' is not an executable file: allowed the path of a built BookSim2 binary (e.g. booksim2/src/booksim)" >&2
  exit 2
fi
case $bs in /*) ;; *) bs=$PWD/$bs ;; esac
tech=${BOOKSIM_TECHFILE:-$(dirname "$bs")/power/techfile.txt}
if [ ! -f "$tech" ]; then
  echo "booksim-power: BOOKSIM_TECHFILE = '$tech' is not a file: allowed the path of BookSim2's src/power/techfile.txt (set BOOKSIM_TECHFILE when it is not beside the binary)" >&2
  exit 2
fi
case $tech in /*) ;; *) tech=$PWD/$tech ;; esac
out=${2:-}
if [ -n "$out" ]; then case $out in /*) ;; *) out=$PWD/$out ;; esac; fi

cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"
cfg=$PWD/scripts/bench/booksim-mesh88.cfg
out=${out:-$PWD/endpoint/energy/testdata/booksim-power.tsv}
width=32
rates="0.05 0.1 0.2 0.3"
seeds="1 2"

tmp=$(mktemp -d /tmp/nocsim-booksim-power.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
for rate in $rates; do
  for seed in $seeds; do
    echo "$rate $seed"
  done
done >"$tmp/points"
total=$(wc -l <"$tmp/points")
echo "booksim-power: $total BookSim runs on $(nproc) cores" >&2

# One run: its row. BookSim prints its wire choice ("L = 2 K = 8.1 M = 2
# N = 1"), then the OCN Power Summary (W) and the OCN Area Summary (mm^2),
# whose lines are "- Name:   value"; a run missing any of them is an error.
run() {
  read -r rate seed <<<"$1"
  f="$tmp/$rate-$seed"
  "$bs" "$cfg" "injection_rate=$rate" "seed=$seed" "channel_width=$width" \
    sim_power=1 power_output_file=/dev/null "tech_file=$tech" >"$f.out" 2>&1 || true
  awk -v row="$rate	$seed" -v file="$f.out" '
    /^L = .* K = .* M = .* N = / { k = $6; m = $9; n = $12 }
    /^- / {
      line = $0; sub(/^- /, "", line)
      i = index(line, ":"); if (i == 0) next
      key = substr(line, 1, i - 1); val = substr(line, i + 1); gsub(/ /, "", val)
      v[key] = val
    }
    END {
      split("Completion Time|Channel Wire Power|Channel Clock Power|Channel Retiming Power|Channel Leakage Power|Input Read Power|Input Write Power|Input Leakage Power|Switch Power|Switch Control Power|Switch Leakage Power|Output DFF Power|Output Clk Power|Output Control Power|Total Power|Channel Area|Switch  Area|Input  Area|Output  Area|Total Area", keys, "|")
      s = row "\t" k "\t" m "\t" n
      for (j = 1; j <= 20; j++) {
        if (!(keys[j] in v) || k == "") { print "booksim-power: " file ": no \"" keys[j] "\" line (or no wire line): did BookSim finish?" > "/dev/stderr"; exit 1 }
        s = s "\t" v[keys[j]]
      }
      print s
    }' "$f.out" >"$f.row"
  echo . >&2
}
export -f run
export bs cfg tmp tech width
xargs -P "$(nproc)" -I{} bash -c 'run "$@"' _ {} <"$tmp/points" 2>&1 >/dev/null | awk -v n="$total" '/^booksim-power:/ { print > "/dev/stderr"; next } { printf "\rbooksim-power: %d/%d", ++done, n > "/dev/stderr" } END { print "" > "/dev/stderr" }'

{
  echo "# BookSim2's power summary (sim_power = 1): scripts/bench/booksim-power.sh with"
  echo "# scripts/bench/booksim-mesh88.cfg and, on the command line, injection_rate, seed, channel_width=$width,"
  echo "# sim_power=1 power_output_file=/dev/null tech_file=src/power/techfile.txt (BookSim's own)."
  echo "# BookSim2 commit 28f43299 (github.com/booksim/booksim2), built unchanged."
  echo "# One row per run. completion_cycles: the run's cycles, warm-up and drain included (BookSim's"
  echo "# totalTime, which its activity factors divide the whole run's counts by). wire_K/M/N: the channel"
  echo "# wire BookSim's optimisation chose. Powers in W as printed (6 significant digits), areas in mm^2."
  printf 'rate_flits_per_node_cycle\tseed\twire_K\twire_M\twire_N\tcompletion_cycles'
  printf '\tchannel_wire_W\tchannel_clock_W\tchannel_retiming_W\tchannel_leakage_W\tinput_read_W\tinput_write_W\tinput_leakage_W'
  printf '\tswitch_W\tswitch_control_W\tswitch_leakage_W\toutput_dff_W\toutput_clock_W\toutput_control_W\ttotal_W'
  printf '\tchannel_area_mm2\tswitch_area_mm2\tinput_area_mm2\toutput_area_mm2\ttotal_area_mm2\n'
  while read -r rate seed; do
    row=$(cat "$tmp/$rate-$seed.row")
    if [ -z "$row" ]; then
      echo "booksim-power: no figures from the run at rate $rate, seed $seed (its output: see above)" >&2
      exit 1
    fi
    echo "$row"
  done <"$tmp/points"
} >"$tmp/table"
mkdir -p "$(dirname "$out")"
mv "$tmp/table" "$out"
echo "booksim-power: wrote $out" >&2

go test ./endpoint/energy -run 'TestBookSimPowerAgreement$' -count=1 -v -booksim-power-table "$out"
