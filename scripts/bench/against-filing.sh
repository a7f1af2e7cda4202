#!/usr/bin/env bash
# Measures issue 12's benchmarks on this machine for two versions of the
# simulator side by side: the code as it was when the issue was filed
# (commit 9f00b58, the "before" of docs/performance.md) and the current
# checkout. Issue 12's figures are CPU time, and CPU time depends on the
# machine: a relative target (the 64-rank 64 KiB Allreduce "3x faster than
# when filed") can only be checked by running both versions on the same
# machine in one sitting, which this does.
#
#   scripts/bench/against-filing.sh [ROUNDS] [OUTDIR]
#
# ROUNDS (default 6) alternating runs of each binary; in OUTDIR (default a
# new temporary directory) the test binaries, the raw results old.txt and
# new.txt, and benchstat.txt, the comparison (if benchstat is on PATH or in
# $(go env GOPATH)/bin; install it with go install
# golang.org/x/perf/cmd/benchstat@latest). The old version is built with
# the current benchmark files, so both run the same workloads. The old code
# has no Rank.Received, so the 64 KiB Allreduce's message count is taken
# from the current version's run (its msgs/op) and given to the old one,
# and the simulated cycles per operation that both print must agree. Each
# version is built as `go build ./cmd/nocsim` builds it: with its own
# cmd/nocsim/default.pgo if it has one (the old one has none). About 30 s
# of CPU per round.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PATH="$PATH:/usr/local/go/bin"

filed=9f00b58
rounds=${1:-6}
out=${2:-$(mktemp -d /tmp/nocsim-filing.XXXXXX)}
case $rounds in '' | *[!0-9]*) echo "against-filing: ROUNDS must be a positive integer, got '$rounds'" >&2; exit 2 ;; esac
[ "$rounds" -ge 1 ] || { echo "against-filing: ROUNDS must be at least 1, got $rounds" >&2; exit 2; }
git cat-file -e "$filed^{commit}" 2>/dev/null || { echo "against-filing: commit $filed is not in this clone (a shallow clone?)" >&2; exit 2; }
mkdir -p "$out"

pgo=off
[ -f cmd/nocsim/default.pgo ] && pgo=$PWD/cmd/nocsim/default.pgo
echo "against-filing: building $filed and $(git rev-parse --short HEAD) (pgo=$( [ "$pgo" = off ] && echo off || echo default.pgo))" >&2
go test -c -pgo="$pgo" -o "$out/new-endpoint.test" ./endpoint/traffic
go test -c -pgo="$pgo" -o "$out/new-mpi.test" ./mpi
msgs=$("$out/new-mpi.test" -test.run '^$' -test.bench 'Allreduce64/65536B' -test.benchtime 1x |
  awk '{for (i = 1; i < NF; i++) if ($(i+1) == "msgs/op") print $i}')
case $msgs in '' | *[!0-9]*) echo "against-filing: no message count (msgs/op) from the current Allreduce benchmark" >&2; exit 1 ;; esac

old=$(mktemp -d /tmp/nocsim-filed-src.XXXXXX)
trap 'git worktree remove --force "$old" >/dev/null 2>&1 || rm -rf "$old"' EXIT
git worktree add -q --detach "$old" "$filed"
cp mpi/bench_test.go "$old/mpi/bench_test.go"
# The network benchmarks live in endpoint/traffic; before that package
# existed they were package endpoint's own, so there they lose the package
# name and the endpoint. qualifier.
oldtraffic=endpoint/traffic
if [ ! -d "$old/endpoint/traffic" ]; then
  oldtraffic=endpoint
  for f in synthetic_bench_test.go scale_bench_test.go; do
    sed -e 's/^package traffic$/package endpoint/' -e '/^\t"nocsim\/endpoint"$/d' -e 's/\bendpoint\.//g' \
      "endpoint/traffic/$f" >"$old/endpoint/$f"
  done
else
  cp endpoint/traffic/synthetic_bench_test.go endpoint/traffic/scale_bench_test.go "$old/endpoint/traffic/"
fi
# The old Rank has no Received: the 64 KiB run's count is the current one's.
MSGS=$msgs perl -0pi -e 's/for _, r := range w\.Ranks \{\s*msgs \+= float64\(r\.Received\(\)\)\s*\}/if size != 64<<10 { b.Skip("only the 64 KiB run\x27s message count is known") }\n\t\t\t\tmsgs += $ENV{MSGS}/' \
  "$old/mpi/bench_test.go"
grep -q "msgs += $msgs\$" "$old/mpi/bench_test.go" || { echo "against-filing: could not adapt mpi/bench_test.go to $filed" >&2; exit 1; }
(cd "$old" && go test -c -o "$out/old-endpoint.test" "./$oldtraffic" && go test -c -o "$out/old-mpi.test" ./mpi)

run() { # version
  "$out/$1-endpoint.test" -test.run '^$' -test.bench 'Mesh8x8Uniform/rate=0.3' -test.benchtime 5x >>"$out/$1.txt"
  "$out/$1-endpoint.test" -test.run '^$' -test.bench 'MeshScaleUniform/k=(8|64)$' -test.benchtime 1x >>"$out/$1.txt"
  "$out/$1-mpi.test" -test.run '^$' -test.bench 'PingPong/(scmp|eager)$' -test.benchtime 5x >>"$out/$1.txt"
  "$out/$1-mpi.test" -test.run '^$' -test.bench 'Allreduce64/65536B' -test.benchtime 2x >>"$out/$1.txt"
}
rm -f "$out/old.txt" "$out/new.txt"
for i in $(seq "$rounds"); do
  echo "against-filing: round $i of $rounds" >&2
  run old
  run new
done

cycles() { grep 'Allreduce64/65536B' "$1" | awk '{for (i = 1; i < NF; i++) if ($(i+1) == "simcycles/op") print $i}' | sort -u; }
if [ "$(cycles "$out/old.txt")" != "$(cycles "$out/new.txt")" ]; then
  echo "against-filing: the two versions simulate different Allreduce cycles ($(cycles "$out/old.txt" | tr '\n' ' ')vs $(cycles "$out/new.txt" | tr '\n' ' '))" >&2
  exit 1
fi

bs=$(command -v benchstat || true)
[ -z "$bs" ] && [ -x "$(go env GOPATH)/bin/benchstat" ] && bs=$(go env GOPATH)/bin/benchstat
if [ -n "$bs" ]; then
  "$bs" -filter '.unit:(traversals/cpu-s OR ns-cpu/traversal OR msgs/cpu-s)' "$out/old.txt" "$out/new.txt" | tee "$out/benchstat.txt"
else
  echo "against-filing: benchstat not found; raw results in $out/old.txt and $out/new.txt" >&2
fi
echo "against-filing: results in $out" >&2
