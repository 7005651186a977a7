package ocr

import (
	"context"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dvvhq/dvv/internal/testbed"
)

// watchedEngine returns an engine whose program runs the real tesseract
// and records each run in dir/log, with "overlap" when another run was
// going on at the time.
func watchedEngine(t *testing.T) (*Engine, string) {
	t.Helper()
	testbed.Need(t, "tesseract")
	real, err := exec.LookPath("tesseract")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	script := fmt.Sprintf(`#!/bin/sh
if mkdir %[1]q/running 2>/dev/null; then mine=1; else echo overlap >>%[1]q/log; mine=; fi
echo run >>%[1]q/log
%[2]q "$@"
rc=$?
[ -n "$mine" ] && rmdir %[1]q/running
exit $rc
`, dir, real)
	prog := filepath.Join(dir, "tesseract")
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	eng := NewEngine(prog)
	eng.Worker = "" // these tests are of the program's runs
	return eng, filepath.Join(dir, "log")
}

// withRunSlots sets the process-wide bound for one test.
func withRunSlots(t *testing.T, n int) {
	old := runSlots
	runSlots = make(chan struct{}, n)
	t.Cleanup(func() { runSlots = old })
}

// TestRunsAreBoundedAcrossCalls: four calls at once, each on its own
// engine (as dvvd makes one per request), with room for one run: every
// call reads its text and no two tesseract processes ever overlap.
func TestRunsAreBoundedAcrossCalls(t *testing.T) {
	eng, logPath := watchedEngine(t)
	withRunSlots(t, 1)
	words := []string{"Invoice", "Settings", "Network", "Printer"}
	imgs := make([]*image.RGBA, len(words))
	for i, w := range words {
		imgs[i] = label(t, w, 20)
	}
	var wg sync.WaitGroup
	errs := make([]error, len(words))
	for i := range words {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := *eng
			lines, err := e.Recognize(context.Background(), imgs[i], image.Point{}, "eng")
			if err == nil && len(Find(lines, words[i])) != 1 {
				err = fmt.Errorf("%q not read: %v", words[i], lines)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), "overlap") {
		t.Fatalf("tesseract runs overlapped with one slot:\n%s", log)
	}
	if n := strings.Count(string(log), "run"); n != len(words) {
		t.Fatalf("%d runs for %d calls:\n%s", n, len(words), log)
	}
}

// TestWaitingCallHonoursContext: with every slot taken, a call whose
// context ends gives up without running the program; once a slot frees,
// a waiting call runs and reads its text.
func TestWaitingCallHonoursContext(t *testing.T) {
	eng, logPath := watchedEngine(t)
	withRunSlots(t, 1)
	img := label(t, "Waiting", 20)
	runSlots <- struct{}{} // another call's run

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := eng.Recognize(ctx, img, image.Point{}, "eng")
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled waiting call answered %v", err)
	}
	if _, err := os.Stat(logPath); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the engine ran for a call that gave up waiting")
	}

	type result struct {
		lines []Line
		err   error
	}
	got := make(chan result, 1)
	go func() {
		lines, err := eng.Recognize(context.Background(), img, image.Point{}, "eng")
		got <- result{lines, err}
	}()
	releaseRun() // the other call's run ends
	r := <-got
	if r.err != nil || len(Find(r.lines, "Waiting")) != 1 {
		t.Fatalf("the waiting call: %v %v", r.lines, r.err)
	}
}
