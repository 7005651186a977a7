// Command pingc is the smallest Go client of dvvd: it dials the socket
// named by its argument, sends one ping and prints the answer line. It is
// the floor `dvv ping` is measured against (scripts/bench-startup.sh).
package main

import (
	"bufio"
	"net"
	"os"
)

func main() {
	c, err := net.Dial("unix", os.Args[1])
	if err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(3)
	}
	c.Write([]byte(`{"op":"ping"}` + "\n"))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		os.Exit(1)
	}
	os.Stdout.WriteString(line)
}
