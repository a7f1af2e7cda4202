package goal

import (
	"bufio"
	"io"
	"strconv"
)

// Write emits s as canonical GOAL text that txt2bin accepts: num_ranks,
// then every rank's block with one operation per line (tag, cpu and nic
// only when not 0) and the rank's dependencies after its operations,
// grouped by the dependent op, requires before irequires. An op without a
// label that a dependency names gets one generated ("l" and its index,
// made unique), so Read(Write(s)) equals s whenever s came from Read.
func Write(w io.Writer, s *Schedule) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	buf := make([]byte, 0, 128)
	buf = append(buf, "num_ranks "...)
	buf = strconv.AppendInt(buf, int64(s.NumRanks()), 10)
	buf = append(buf, '\n')
	var names []string // label of each op of the rank being written
	for r := range s.NumRanks() {
		ops := s.ops[s.first[r]:s.first[r+1]]
		buf = append(buf, "\nrank "...)
		buf = strconv.AppendInt(buf, int64(r), 10)
		buf = append(buf, " {\n"...)
		names = s.rankLabels(r, names)
		for i := range ops {
			if names[i] != "" {
				buf = append(buf, names[i]...)
				buf = append(buf, ": "...)
			}
			op := ops[i].Op()
			buf = appendOp(buf, &op)
			buf = append(buf, '\n')
			if len(buf) > 1<<15 {
				if _, err := bw.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		for i := range ops {
			for _, j := range s.Requires(r, i) {
				buf = appendDep(buf, names[i], "requires", names[j])
			}
			for _, j := range s.IRequires(r, i) {
				buf = appendDep(buf, names[i], "irequires", names[j])
			}
			if len(buf) > 1<<15 {
				if _, err := bw.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		buf = append(buf, "}\n"...)
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}

func appendDep(buf []byte, a, rel, b string) []byte {
	buf = append(buf, a...)
	buf = append(buf, ' ')
	buf = append(buf, rel...)
	buf = append(buf, ' ')
	buf = append(buf, b...)
	return append(buf, '\n')
}

func appendOp(buf []byte, op *Op) []byte {
	buf = append(buf, op.Kind.String()...)
	buf = append(buf, ' ')
	if op.Kind == Calc {
		buf = strconv.AppendUint(buf, op.Time, 10)
		if op.CPU != 0 {
			buf = append(buf, " cpu "...)
			buf = strconv.AppendUint(buf, uint64(op.CPU), 10)
		}
		return buf
	}
	buf = strconv.AppendUint(buf, op.Bytes, 10)
	if op.Kind == Send {
		buf = append(buf, "b to "...)
	} else {
		buf = append(buf, "b from "...)
	}
	buf = strconv.AppendInt(buf, int64(op.Peer), 10)
	if op.Tag != 0 {
		buf = append(buf, " tag "...)
		buf = strconv.AppendInt(buf, int64(op.Tag), 10)
	}
	if op.CPU != 0 {
		buf = append(buf, " cpu "...)
		buf = strconv.AppendUint(buf, uint64(op.CPU), 10)
	}
	if op.NIC != 0 {
		buf = append(buf, " nic "...)
		buf = strconv.AppendUint(buf, uint64(op.NIC), 10)
	}
	return buf
}

// rankLabels fills names (reused) with the label to write for each op of
// rank r: its own, a generated one if a dependency names it, else "".
func (s *Schedule) rankLabels(r int, names []string) []string {
	n := s.Len(r)
	if cap(names) < n {
		names = make([]string, n)
	}
	names = names[:n]
	var used map[string]bool // only built when a label must be generated
	for i := range n {
		names[i] = s.Label(r, i)
	}
	for i := range n {
		for _, list := range [2][]int32{s.Requires(r, i), s.IRequires(r, i)} {
			if len(list) > 0 && names[i] == "" {
				names[i], used = s.genLabel(r, i, names, used)
			}
			for _, j := range list {
				if names[j] == "" {
					names[j], used = s.genLabel(r, int(j), names, used)
				}
			}
		}
	}
	return names
}

func (s *Schedule) genLabel(r, i int, names []string, used map[string]bool) (string, map[string]bool) {
	if used == nil {
		used = map[string]bool{}
		for _, n := range names {
			if n != "" {
				used[n] = true
			}
		}
	}
	name := "l" + strconv.Itoa(i)
	for used[name] {
		name += "_"
	}
	used[name] = true
	return name, used
}
