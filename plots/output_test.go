package plots

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func content(s string) io.WriterTo { return bytes.NewBufferString(s) }

// failing writes half its text and fails, as a full disk would.
type failing string

func (f failing) WriteTo(w io.Writer) (int64, error) {
	n, _ := io.WriteString(w, string(f[:len(f)/2]))
	return int64(n), errors.New("disk full")
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// onlyFiles lists dir's entries: no temporary file may stay behind.
func onlyFiles(t *testing.T, dir string, want ...string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, e.Name())
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("%s holds %q, want %q", dir, got, want)
	}
}

// A regular file is replaced whole, keeping its permissions, or left as it
// was when the write fails.
func TestWriteFileAtomicRegularFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.csv")
	if err := WriteFileAtomic(p, content("a\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o644 {
		t.Errorf("a new output has mode %v, want 0644", fi.Mode().Perm())
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(p, content("b\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, p); got != "b\n" {
		t.Errorf("content %q, want b", got)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("the replaced file has mode %v, want its own 0600", fi.Mode().Perm())
	}
	err := WriteFileAtomic(p, failing("cccccc\n"))
	if err == nil || !strings.Contains(err.Error(), "disk full") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("failed write: %v; want one line naming the cause", err)
	}
	if got := readFile(t, p); got != "b\n" {
		t.Errorf("a failed write left %q, want the old b", got)
	}
	onlyFiles(t, dir, "out.csv")
}

// A symbolic link is written through: its target gets the content, the
// temporary file goes beside the target, and the link stays a link. A
// dangling link creates its target; a loop is an error.
func TestWriteFileAtomicSymlink(t *testing.T) {
	dir := t.TempDir()
	real, links := filepath.Join(dir, "real"), filepath.Join(dir, "links")
	for _, d := range []string{real, links} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(real, "t.csv")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(links, "l.csv")
	if err := os.Symlink("../real/t.csv", link); err != nil {
		t.Fatal(err)
	}
	// A link to the link: chains are followed to the end.
	link2 := filepath.Join(links, "l2.csv")
	if err := os.Symlink("l.csv", link2); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(link2, content("new\n")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, link2} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link (%v)", l, err)
		}
	}
	if got := readFile(t, target); got != "new\n" {
		t.Errorf("target holds %q, want new", got)
	}
	onlyFiles(t, real, "t.csv")
	onlyFiles(t, links, "l.csv", "l2.csv")

	dangling := filepath.Join(links, "d.csv")
	if err := os.Symlink("../real/created.csv", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(dangling, content("x\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(real, "created.csv")); got != "x\n" {
		t.Errorf("dangling link's target holds %q", got)
	}
	if fi, _ := os.Lstat(dangling); fi.Mode()&fs.ModeSymlink == 0 {
		t.Error("the dangling link was replaced")
	}

	loop := filepath.Join(links, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic(loop, content("x")); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("a link loop: %v", err)
	}
}

// A named pipe is written in place: the reader gets the whole output and
// the pipe is still a pipe.
func TestWriteFileAtomicNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.csv")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(fifo) // opening blocks until the writer opens
		got <- string(b)
	}()
	want := strings.Repeat("row,1\n", 20000) // more than a pipe buffer holds
	if err := WriteFileAtomic(fifo, content(want)); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != want {
		t.Errorf("the reader got %d bytes, want %d", len(s), len(want))
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s is no longer a named pipe (%v)", fifo, err)
	}
	onlyFiles(t, dir, "pipe.csv")
}

// Character devices are written in place: /dev/null takes anything,
// /dev/full's "no space left" is an error of one line, and both stay
// devices.
func TestWriteFileAtomicDevices(t *testing.T) {
	if err := WriteFileAtomic("/dev/null", content("x\n")); err != nil {
		t.Errorf("/dev/null: %v", err)
	}
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	err := WriteFileAtomic("/dev/full", content("x\n"))
	if !errors.Is(err, syscall.ENOSPC) || err.Error() != "writing /dev/full: no space left on device" {
		t.Errorf("/dev/full: %v; want one line: writing /dev/full: no space left on device", err)
	}
	for _, d := range []string{"/dev/null", "/dev/full"} {
		if fi, err := os.Lstat(d); err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("%s is no longer a character device", d)
		}
	}
}

// captureStdout runs f with os.Stdout going to a file and returns what
// was written.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	tmp, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer tmp.Close()
	saved := os.Stdout
	os.Stdout = tmp
	defer func() { os.Stdout = saved }()
	f()
	os.Stdout = saved
	return readFile(t, tmp.Name())
}

// "-" and the names of file descriptor 1 write to standard output.
func TestWriteFileAtomicStdout(t *testing.T) {
	for _, p := range []string{"-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"} {
		var err error
		got := captureStdout(t, func() { err = WriteFileAtomic(p, content("to stdout\n")) })
		if err != nil || got != "to stdout\n" {
			t.Errorf("%s: wrote %q to standard output (%v)", p, got, err)
		}
	}
}

// An open file reached through /proc (a shell's redirection of
// /dev/stderr or /dev/fd/N) is appended to, not replaced or truncated.
func TestWriteFileAtomicProcAppends(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "redirected"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("table\n"); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileAtomic("/proc/self/fd/"+strconv.Itoa(int(f.Fd())), content("csv\n")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, f.Name()); got != "table\ncsv\n" {
		t.Errorf("the file holds %q, want the table then the CSV", got)
	}
}

// A directory (directly or through a link) is refused, and left alone.
func TestWriteFileAtomicRefusesDirectory(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "l")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, link} {
		err := WriteFileAtomic(p, content("x"))
		if err == nil || !strings.Contains(err.Error(), "a directory; allowed a file, a named pipe, a character device") {
			t.Errorf("%s: %v", p, err)
		}
	}
	onlyFiles(t, dir, "l")
}
