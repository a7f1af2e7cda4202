// Package sweep runs a scenario file's [sweep]: it expands the axes and
// repetitions into points (Points, each named by PointHash, the hash of
// its effective configuration), runs them in parallel with resume (Run,
// keeping points.jsonl and points.csv as points finish), summarises each
// result row's metric over the repetitions (summary.csv) and charts it
// (Chart). It also splits a sweep into shards for several machines (Shard,
// FinishShard), writes the Slurm job array that runs them (SlurmJob) and
// merges the finished shards into what one machine would have written
// (Merge).
//
// It is separate because running many points is a concern of its own,
// over any workload: the [sweep] section and the expansion of its axes
// into point scenarios are configuration and stay in package scenarios
// (whose Check validates every point), and the workload runner of a point
// is given by the caller (Options.Run), so this package depends on
// neither the runners nor the commands.
package sweep
