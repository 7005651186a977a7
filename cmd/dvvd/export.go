package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"syscall"

	"github.com/dvvhq/dvv/pkg/recording"
)

// exportArg runs dvvd as a one-shot renderer of a recording, not as the
// daemon: `dvvd __export-mp4 FILE.fbs|FILE.cast OUT.mp4 FPS [acts]`. `dvv record export`
// runs it, so that the RFB decoder a recording is played through stays out
// of the dvv binary (every dvv call would load it; see "CLI start-up" in
// docs/benchmarks.md). Not a documented command: dvv is its interface.
const exportArg = "__export-mp4"

// Exit statuses of the export, read by dvv.
const (
	exportOK       = 0
	exportFailed   = 1
	exportUsage    = 2
	exportNoFFmpeg = 3
	exportTooLong  = 4
)

// exportMemory is the heap the renderer keeps to, beside the recording it
// reads whole: frames and framebuffers a recording drops (a desktop that
// changes size) are collected before the heap grows past it, rather than
// when the heap has doubled.
const exportMemory = 512 << 20

func exportRecording(args []string, stderr io.Writer) int {
	if len(args) != 3 && (len(args) != 4 || args[3] != "acts") {
		fmt.Fprintf(stderr, "dvvd %s: want FILE OUT.mp4 FPS [acts]\n", exportArg)
		return exportUsage
	}
	fps, err := strconv.Atoi(args[2])
	if err != nil {
		fmt.Fprintf(stderr, "dvvd %s: bad FPS %q\n", exportArg, args[2])
		return exportUsage
	}
	if st, err := os.Stat(args[0]); err == nil {
		debug.SetMemoryLimit(exportMemory + 2*st.Size())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := recording.Export(ctx, args[0], args[1], recording.ExportOptions{FPS: fps, Acts: len(args) == 4}); err != nil {
		fmt.Fprintln(stderr, err)
		if errors.Is(err, recording.ErrNoFFmpeg) {
			return exportNoFFmpeg
		}
		if errors.Is(err, recording.ErrTooLong) {
			return exportTooLong
		}
		return exportFailed
	}
	return exportOK
}
