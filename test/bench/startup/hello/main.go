// Command hello prints one line: the floor `dvv --version` is measured
// against (scripts/bench-startup.sh).
package main

import "os"

func main() { os.Stdout.WriteString("hello 1.0\n") }
