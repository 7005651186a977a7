// Command flooder is a hostile local user's connection flood, for the
// listener tests: it keeps up to -n connections open to each address,
// sends nothing on them, dials again as soon as the far end closes one,
// and prints how many connections it has opened, once a second.
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"time"
)

func main() {
	n := flag.Int("n", 1000, "connections to keep open per address")
	flag.Parse()
	var opened atomic.Int64
	for _, addr := range flag.Args() {
		for i := 0; i < *n; i++ {
			go func() {
				buf := make([]byte, 512)
				for {
					c, err := net.DialTimeout("tcp", addr, 5*time.Second)
					if err != nil {
						time.Sleep(10 * time.Millisecond)
						continue
					}
					opened.Add(1)
					for { // hold it until the far end lets go
						if _, err := c.Read(buf); err != nil {
							break
						}
					}
					c.Close()
				}
			}()
		}
	}
	for {
		time.Sleep(time.Second)
		fmt.Fprintf(os.Stdout, "opened %d\n", opened.Load())
	}
}
