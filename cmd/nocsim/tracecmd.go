package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"nocsim/logp"
	"nocsim/logp/collgen"
	"nocsim/logp/goal"
	"nocsim/logp/titrace"
	"nocsim/scenarios"
	"nocsim/scenarios/report"
	"nocsim/scenarios/study"
)

// traceCommand is the parent of the commands that replay MPI traces
// recorded by other tools (SimGrid's time-independent format).
func traceCommand() *cli.Command {
	return parentCommand("trace", "SimGrid time-independent MPI traces (smpirun -trace-ti): replay one on the flit-level chip or the LogGOPS tier, compare the two, convert it to GOAL",
		"run or compare", traceRunCommand(), traceCompareCommand())
}

// traceFlags are how a trace becomes a schedule, for both subcommands.
func traceFlags() []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "flops-per-cycle", Value: 1, Usage: "compute rate: a compute action of F flops is a calc of ceil(F/`RATE`) cycles; 0 leaves compute out (communication only)"},
		&cli.StringFlag{Name: "replay", Value: "calls", Usage: "how the chip replays the trace: calls (each action the MPI library's call: MPI_Send, MPI_Wait, MPI_Bcast ...) or schedule (the converted GOAL schedule's sends and receives as MPI_Isend/MPI_Irecv, the tier's message pattern exactly) (`HOW`)"},
		&cli.StringFlag{Name: "algs", Usage: "collective algorithms as a `LIST` of OP=ALG items, comma-separated (ops barrier, bcast, reduce, allreduce, alltoall, gather, scatter, allgather; algorithms as nocsim goal gen lists them); ops not named take " + defaultAlgsText()},
	}
}

func defaultAlgsText() string {
	var s []string
	for _, op := range collgen.Ops {
		if a := titrace.DefaultAlgs[op]; a != "" {
			s = append(s, op+"="+a)
		}
	}
	return strings.Join(s, ",")
}

func traceRunCommand() *cli.Command {
	flags := append(logGOPSFlags(), traceFlags()...)
	flags = append(flags, []cli.Flag{
		&cli.StringFlag{Name: "params", Usage: "LogGOPS tier with fitted parameters (nocsim calibrate --out), as goal run takes them"},
		&cli.StringFlag{Name: "config", Usage: "flit level: scenario TOML file for the machine; flags override its keys"},
		&cli.StringFlag{Name: "goal-out", Usage: "write the trace converted to a GOAL schedule to `FILE` (alone, without a tier: convert only)"},
		&cli.BoolFlag{Name: "json", Usage: `print a JSON object: {"ranks": the trace's counts per rank, "run": goal run's object}`},
		quietFlag,
	}...)
	return command{
		name:    "trace run",
		fileArg: true,
		usage:   "replay a SimGrid time-independent trace: on the LogGOPS tier (--params FILE or --L --o --g --G --O --S) or on the flit-level chip (--mesh WxH, rank r on tile r); prints the trace's counts per rank and each rank's finish time",
		usageText: "nocsim trace run ring.ti --mesh 4x4\n" +
			"nocsim trace run ring.ti --params params.toml\n" +
			"nocsim trace run ring.ti --goal-out ring.goal",
		flags: append(flags, keyFlags(pricedSections, "procs")...),
		build: buildTraceRun,
	}.cli()
}

func traceCompareCommand() *cli.Command {
	flags := append([]cli.Flag{
		configFlag,
		&cli.StringFlag{Name: "params", Usage: "fitted LogGP parameters (nocsim calibrate --out) for the LogGOPS tier"},
		&cli.BoolFlag{Name: "json", Usage: "print the comparison as a JSON object"},
		&cli.StringFlag{Name: "plot", Usage: "draw each rank's finish on both tiers to `FILE` (.png, .svg, .pdf)"},
		quietFlag,
	}, traceFlags()...)
	return command{
		name:      "trace compare",
		fileArg:   true,
		usage:     "replay a SimGrid time-independent trace on the flit-level chip and on the LogGOPS tier with fitted parameters: predicted against simulated, per rank",
		usageText: "nocsim trace compare ring.ti --mesh 4x4 --params params.toml",
		flags:     append(flags, keyFlags(pricedSections)...),
		build:     buildTraceCompare,
	}.cli()
}

// traceFiles returns the trace files given; flags may follow them (see
// goalFile).
func traceFiles(c *cli.Context) ([]string, error) {
	name := "trace " + c.Command.Name
	args := c.Args().Slice()
	if len(args) == 0 {
		return nil, usageErr("%s needs a trace file (nocsim %s FILE... [flags])", name, name)
	}
	i := slices.IndexFunc(args, func(a string) bool { return strings.HasPrefix(a, "-") })
	if i < 0 {
		return args, nil
	}
	files, rest := args[:i], args[i:]
	if len(files) == 0 {
		return nil, usageErr("%s needs a trace file (nocsim %s FILE... [flags])", name, name)
	}
	set := flag.NewFlagSet(name, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	for _, f := range c.Command.Flags {
		if err := f.Apply(set); err != nil {
			return nil, usageErr("%s: %v", name, err)
		}
	}
	if err := set.Parse(rest); err != nil {
		return nil, usageErr("%s: %v (see nocsim %s --help)", name, err, name)
	}
	if set.NArg() > 0 {
		return nil, usageErr("%s: the trace files come before the flags, got also %q after them", name, set.Args())
	}
	var err error
	set.Visit(func(f *flag.Flag) {
		if err == nil {
			if e := c.Set(f.Name, f.Value.String()); e != nil {
				err = usageErr("%s: --%s: %v", name, f.Name, e)
			}
		}
	})
	return files, err
}

// traceOptions reads --flops-per-cycle and --algs.
// traceInputs are the trace files and how they become a schedule.
func traceInputs(c *cli.Context) ([]string, titrace.Options, error) {
	files, err := traceFiles(c)
	if err != nil {
		return nil, titrace.Options{}, err
	}
	opt, err := traceOptions(c)
	return files, opt, err
}

func traceOptions(c *cli.Context) (titrace.Options, error) {
	opt := titrace.Options{FlopsPerCycle: c.Float64("flops-per-cycle"), Algs: map[string]string{}, Coll: collgen.DefaultOptions()}
	if r := c.String("replay"); r != "calls" && r != "schedule" {
		return opt, usageErr("--replay = %q: allowed calls, schedule", r)
	}
	if f := opt.FlopsPerCycle; !(f >= 0 && f <= 1e12) {
		return opt, usageErr("--flops-per-cycle = %v: allowed 0..1e12 (0: compute left out)", f)
	}
	// The machine's [mpi] algorithm keys (--bcast ...), when set to an
	// algorithm, choose the expansion as --algs does: the chip's MPI
	// library would run that algorithm for the call.
	given := givenFlags(c)
	for _, op := range collgen.Ops {
		if titrace.DefaultAlgs[op] == "" || !given[op] || c.String(op) == "auto" {
			continue
		}
		if !slices.Contains(collgen.Algorithms(op), c.String(op)) {
			return opt, usageErr("--%s = %q: allowed auto or %s", op, c.String(op), strings.Join(collgen.Algorithms(op), ", "))
		}
		opt.Algs[op] = c.String(op)
	}
	if c.String("algs") == "" {
		return opt, nil
	}
	for _, w := range wordList(c, "algs") {
		op, alg, ok := strings.Cut(w, "=")
		if !ok || titrace.DefaultAlgs[op] == "" {
			return opt, usageErr("--algs = %q: allowed OP=ALG items, OP one of barrier, bcast, reduce, allreduce, alltoall, gather, scatter, allgather", c.String("algs"))
		}
		if !slices.Contains(collgen.Algorithms(op), alg) {
			return opt, usageErr("--algs: %s algorithm %q: allowed %s", op, alg, strings.Join(collgen.Algorithms(op), ", "))
		}
		if a, ok := opt.Algs[op]; ok && a != alg {
			return opt, usageErr("--algs names %s=%s and --%s = %q: give the algorithm once", op, alg, op, a)
		}
		opt.Algs[op] = alg
	}
	return opt, nil
}

// loadTrace reads the files (each either actions or SimGrid's index of
// per-rank files, whose names are relative to it) and converts them.
func loadTrace(files []string, opt titrace.Options) (*goal.Schedule, []titrace.RankCounts, *titrace.Trace, error) {
	var rd titrace.Reader
	for _, path := range files {
		text, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, nil, usageErr("trace: %v", err)
		}
		if !titrace.IsIndex(text) {
			if err := rd.Read(path, bytes.NewReader(text)); err != nil {
				return nil, nil, nil, usageErr("%v", err)
			}
			continue
		}
		for _, name := range titrace.IndexFiles(text) {
			name = indexed(path, name)
			f, err := os.Open(name)
			if err != nil {
				return nil, nil, nil, usageErr("trace: %s names %v", path, err)
			}
			err = rd.Read(name, f)
			f.Close()
			if err != nil {
				return nil, nil, nil, usageErr("%v", err)
			}
		}
	}
	s, counts, err := titrace.ToGoal(rd.Trace(), opt)
	if err != nil {
		return nil, nil, nil, usageErr("%v", err)
	}
	return s, counts, rd.Trace(), nil
}

// indexed finds a file an index names. SimGrid writes the names as the
// recording saw them (relative to its working directory, the index's own
// path then "_files/"), so a relative name is looked for next to the
// index, then in the index's "_files" directory, then as given.
func indexed(index, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	dir := filepath.Dir(index)
	for _, p := range []string{filepath.Join(dir, name), filepath.Join(dir, filepath.Base(index)+"_files", filepath.Base(name))} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return name
}

func buildTraceRun(c *cli.Context) (*workload, error) {
	files, opt, err := traceInputs(c)
	if err != nil {
		return nil, err
	}
	given := givenFlags(c)
	var counts []titrace.RankCounts
	var sched *goal.Schedule
	var tr *titrace.Trace
	load := func() (*goal.Schedule, error) {
		var err error
		sched, counts, tr, err = loadTrace(files, opt)
		return sched, err
	}
	var w *workload
	if given["goal-out"] && !given["mesh"] && !given["params"] && !slices.ContainsFunc(logGOPSNames, func(n string) bool { return given[n] }) {
		// Convert only.
		if _, err := load(); err != nil {
			return nil, err
		}
		w = &workload{run: func(_ scenarios.RunOptions, _ *job) error { return nil },
			print: func(io.Writer, bool) error { return nil }}
	} else {
		flit, err := goalRunTier(given, "trace run")
		if err != nil {
			return nil, err
		}
		if given["replay"] && !flit {
			return nil, usageErr("--replay says how the flit-level chip replays the trace: add --mesh WxH")
		}
		if flit && c.String("replay") == "calls" {
			w, err = traceCallsRun(c, load, func() *titrace.Trace { return tr }, opt)
		} else {
			w, err = scheduleRun(c, given, flit, load)
		}
		if err != nil {
			return nil, err
		}
	}
	inner := w.print
	w.print = func(out io.Writer, asJSON bool) error {
		var b bytes.Buffer
		if err := inner(&b, asJSON); err != nil {
			return err
		}
		if asJSON {
			run := json.RawMessage(bytes.TrimSpace(b.Bytes()))
			if len(run) == 0 {
				run = json.RawMessage("null")
			}
			return report.WriteJSON(out, struct {
				Ranks []titrace.RankCounts `json:"ranks"`
				Run   json.RawMessage      `json:"run"`
			}{counts, run})
		}
		writeTraceCounts(out, counts)
		_, err := out.Write(b.Bytes())
		return err
	}
	w.outputs = []string{"goal-out"}
	w.convertsGoal = true
	w.files = append(w.files, file{flag: "goal-out", write: func(b *bytes.Buffer) error { return goal.Write(b, sched) }})
	return w, nil
}

func buildTraceCompare(c *cli.Context) (*workload, error) {
	files, opt, err := traceInputs(c)
	if err != nil {
		return nil, err
	}
	if c.String("params") == "" {
		return nil, usageErr("trace compare needs --params FILE (fitted parameters for the LogGOPS tier: nocsim calibrate --out)")
	}
	var tr *titrace.Trace
	load := func() (*goal.Schedule, error) {
		s, _, t, err := loadTrace(files, opt)
		tr = t
		return s, err
	}
	if c.String("replay") == "schedule" {
		return scheduleCompare(c, "trace compare", files[0], load, nil)
	}
	return scheduleCompare(c, "trace compare", files[0], load, &chipCompare{
		check: func(sc *scenarios.Scenario) error { return study.CheckTIFlit(sc, tr, nil) },
		run: func(sc *scenarios.Scenario, s *goal.Schedule, p logp.Params) (*report.ScheduleComparison, error) {
			return study.CompareTI(sc, tr, s, opt, p)
		},
	})
}

// traceCallsRun is trace run on the chip with each action the MPI
// library's call (study.RunTIFlit).
func traceCallsRun(c *cli.Context, load func() (*goal.Schedule, error), trace func() *titrace.Trace, opt titrace.Options) (*workload, error) {
	sc, src, err := scenarioFrom(c, "procs")
	if err != nil {
		return nil, err
	}
	if _, err := load(); err != nil {
		return nil, err
	}
	tr := trace()
	if err := study.CheckTIFlit(&sc, tr, src); err != nil {
		return nil, usageErr("%v", err)
	}
	var res *report.GoalResult
	return &workload{
		run: func(scenarios.RunOptions, *job) error {
			res, err = study.RunTIFlit(&sc, tr, opt)
			return err
		},
		print: func(w io.Writer, asJSON bool) error {
			if asJSON {
				return report.WriteJSON(w, res)
			}
			return report.WriteGoalTable(w, res)
		},
	}, nil
}

// writeTraceCounts prints the trace's figures per rank: its point-to-point
// messages and bytes as recorded, its collective calls, the compute
// cycles, and the schedule's sends in all (collectives expanded).
func writeTraceCounts(w io.Writer, counts []titrace.RankCounts) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\tp2p sent (msgs)\tp2p sent (B)\tp2p recv (msgs)\tp2p recv (B)\tcollectives (calls)\tcompute (cycles)\tschedule sends (msgs)\tschedule sent (B)\t")
	for _, r := range counts {
		fmt.Fprintf(tw, "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", r.Rank, r.SentMsgs, r.SentBytes, r.RecvMsgs, r.RecvBytes, r.Collectives, r.ComputeCycles, r.ScheduleSends, r.ScheduleSendsB)
	}
	tw.Flush()
	fmt.Fprintln(w)
}
