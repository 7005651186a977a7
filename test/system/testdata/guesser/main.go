// Command guesser is a hostile local user guessing a share's one-time
// password: it tries wrong passwords on the share's TCP port, one after
// another, and prints how each attempt went ("wrong", "refused: REASON"
// or "error: ..."), until killed.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/dvvhq/dvv/pkg/rfb"
)

func main() {
	addr := os.Args[1]
	for i := 0; ; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		v, err := rfb.Dial(ctx, addr, &rfb.Config{Password: fmt.Sprintf("guess%03d", i%1000), Shared: true})
		cancel()
		var ae *rfb.AuthError
		var se *rfb.ServerError
		switch {
		case err == nil:
			v.Close()
			fmt.Println("in")
		case errors.As(err, &ae):
			fmt.Println("wrong")
		case errors.As(err, &se):
			fmt.Println("refused: " + se.Reason)
		default:
			fmt.Println("error: " + err.Error())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
