package scenarios

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// The revision comes from the binary's VCS stamp when it has one, else
// from git, else it is unknown, and the source is said in each case.
func TestVCSStampSources(t *testing.T) {
	const rev = "0123456789abcdef0123456789abcdef01234567"
	stamped := []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: "true"}}
	gitOK := func() (string, string, bool) { return "fedcba9876543210fedcba9876543210fedcba98", "false", true }
	gitFails := func() (string, string, bool) { return "", "", false }
	for _, c := range []struct {
		name                  string
		settings              []debug.BuildSetting
		git                   func() (string, string, bool)
		rev, modified, source string
	}{
		{"stamped binary, git not asked", stamped, func() (string, string, bool) { t.Error("git asked for a stamped binary"); return "", "", false }, rev, "true", "build info"},
		{"go run: git", nil, gitOK, "fedcba9876543210fedcba9876543210fedcba98", "false", "git"},
		{"modified alone is no stamp", []debug.BuildSetting{{Key: "vcs.modified", Value: "false"}}, gitOK, "fedcba9876543210fedcba9876543210fedcba98", "false", "git"},
		{"no stamp, no git", nil, gitFails, "unknown", "unknown", "unknown"},
	} {
		r, m, s := vcsStamp(c.settings, c.git)
		if r != c.rev || m != c.modified || s != c.source {
			t.Errorf("%s: got (%s, %s, %s), want (%s, %s, %s)", c.name, r, m, s, c.rev, c.modified, c.source)
		}
	}
}

// GitStamp reads a repository as go build would stamp it: HEAD's commit,
// and modified once a file differs or is untracked; nothing outside a
// repository or without git.
func TestGitStamp(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if _, _, ok := GitStamp(dir); ok {
		t.Fatalf("GitStamp found a repository in the empty directory %s", dir)
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644)
	git("add", "a.txt")
	git("commit", "-q", "-m", "a")
	head := git("rev-parse", "HEAD")
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	if rev, modified, ok := GitStamp(sub); !ok || rev != head || modified != "false" {
		t.Errorf("clean tree: (%q, %q, %v), want (%q, false, true)", rev, modified, ok, head)
	}
	os.WriteFile(filepath.Join(sub, "new.png"), []byte("x"), 0o644) // untracked: go build counts it
	if rev, modified, ok := GitStamp(dir); !ok || rev != head || modified != "true" {
		t.Errorf("untracked file: (%q, %q, %v), want (%q, true, true)", rev, modified, ok, head)
	}
	t.Setenv("PATH", "")
	if _, _, ok := GitStamp(dir); ok {
		t.Error("GitStamp answered without git on PATH")
	}
}
