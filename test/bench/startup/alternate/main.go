// Command alternate runs several commands in turn, one run of each per
// round, and reports per command the median and mean wall time, the mean
// CPU time (user + system, from wait4) and the mean minor page faults.
// Taking turns run by run keeps a shared machine's load drift out of the
// comparison, which running all runs of one command and then the next
// (hyperfine) does not (scripts/bench-startup.sh).
//
//	alternate -n 1000 'bin/dvv --version' './hello'
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
)

type sample struct{ wall, cpu, faults []float64 }

func main() {
	runs := flag.Int("n", 500, "measured runs of each command")
	warm := flag.Int("warmup", 20, "rounds run first and not counted")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: alternate [-n runs] [-warmup rounds] 'command args' ...")
		os.Exit(2)
	}
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, null.Fd(), 2}} // a failure's message stays visible
	cmds := make([][]string, flag.NArg())
	for i, c := range flag.Args() {
		cmds[i] = strings.Fields(c)
	}
	got := make([]sample, len(cmds))
	for round := 0; round < *warm+*runs; round++ {
		for i, argv := range cmds {
			start := time.Now()
			pid, err := syscall.ForkExec(argv[0], argv, attr)
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", argv[0], err)
				os.Exit(1)
			}
			var st syscall.WaitStatus
			var ru syscall.Rusage
			if _, err := syscall.Wait4(pid, &st, 0, &ru); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			wall := time.Since(start)
			if !st.Exited() || st.ExitStatus() != 0 {
				fmt.Fprintf(os.Stderr, "%s: exit status %d\n", flag.Arg(i), st.ExitStatus())
				os.Exit(1)
			}
			if round < *warm {
				continue
			}
			cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			got[i].wall = append(got[i].wall, ms(wall))
			got[i].cpu = append(got[i].cpu, ms(cpu))
			got[i].faults = append(got[i].faults, float64(ru.Minflt))
		}
	}
	runtime.KeepAlive(null) // its descriptor is lent to every child by number
	fmt.Println("| command | wall median | wall mean | CPU mean | minor faults |")
	fmt.Println("| --- | --- | --- | --- | --- |")
	for i, s := range got {
		fmt.Printf("| `%s` | %.2f ms | %.2f ms | %.2f ms | %.0f |\n", flag.Arg(i), median(s.wall), mean(s.wall), mean(s.cpu), mean(s.faults))
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func mean(xs []float64) float64 {
	var t float64
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}
