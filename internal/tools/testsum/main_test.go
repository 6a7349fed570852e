package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sample is a package whose tests pass, fail and skip for two reasons, one of them twice.
const sample = `package sample

import "testing"

func TestPass(t *testing.T) { t.Log("a line of a passing test") }

func TestFail(t *testing.T) { t.Error("the answer is wrong") }

func TestSkipCorpus(t *testing.T) { t.Skip("the corpus is missing") }

func TestSkipCorpusToo(t *testing.T) { t.Log("looking for the corpus"); t.Skip("the corpus is missing") }

func TestSkipFlag(t *testing.T) { t.Skipf("-%s not given", "deep") }

func TestSub(t *testing.T) {
	t.Run("one", func(t *testing.T) {})
	t.Run("two", func(t *testing.T) { t.Skip("the corpus is missing") })
}
`

// Ensure a real go test -json run is summarized: the package's FAIL lines and the failing test's
// message are printed as go test prints them, nothing of the passing tests, a line per skip
// reason with its count, the failed test by name, and the closing counts.
func TestSummary(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module example.com/sample\n\ngo 1.22\n", "sample_test.go": sample} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	js, err := cmd.Output()
	if _, failed := err.(*exec.ExitError); !failed {
		t.Fatalf("go test of the sample: %v, want its exit status of a failed test\n%s", err, js)
	}
	var out bytes.Buffer
	s := newSummary(&out)
	s.read(bytes.NewReader(js))
	s.report()
	got := out.String()
	for _, want := range []string{
		"--- FAIL: TestFail",
		"sample_test.go:7: the answer is wrong",
		"FAIL\texample.com/sample",
		"skipped 3: the corpus is missing\nskipped 1: -deep not given\n",
		"failed: example.com/sample TestFail\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary lacks %q:\n%s", want, got)
		}
	}
	// TestPass, TestSub and TestSub/one passed.
	if !strings.HasSuffix(got, "\n3 passed, 1 failed, 4 skipped\n") {
		t.Errorf("the summary does not end with the counts:\n%s", got)
	}
	for _, unwanted := range []string{"a line of a passing test", "looking for the corpus", "=== RUN", "\nPASS\n"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the summary shows %q:\n%s", unwanted, got)
		}
	}
}

// Ensure a line that is not an event (a message of go itself) is printed as it is, and a run
// without tests still ends with the counts.
func TestSummaryOtherLines(t *testing.T) {
	var out bytes.Buffer
	s := newSummary(&out)
	s.read(strings.NewReader("go: downloading example.com/x v1.0.0\n" +
		`{"Action":"output","Package":"example.com/x","Output":"?   \texample.com/x\t[no test files]\n"}` + "\n" +
		`{"Action":"skip","Package":"example.com/x"}` + "\n"))
	s.report()
	want := "go: downloading example.com/x v1.0.0\n?   \texample.com/x\t[no test files]\n0 passed, 0 failed, 0 skipped\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
