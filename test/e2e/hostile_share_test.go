package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
	"github.com/dvvhq/dvv/pkg/rfb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// shareAttempt dials a share's TCP port with password and reports how it
// went: nil (in), an *rfb.AuthError (wrong password) or an *rfb.ServerError
// (refused before any password was asked).
func shareAttempt(t *testing.T, addr, password string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	v, err := rfb.Dial(ctx, addr, &rfb.Config{Password: password, Shared: true})
	if err == nil {
		v.Close()
	}
	return err
}

// TestSharePasswordGuessingIsBlocked: five wrong one-time passwords on a
// share's TCP port block it; while blocked, every attempt is refused
// before its password is looked at (the right one too, so a burst of
// guesses learns nothing), and once the block has passed the right
// password still lets its viewer in, onto the limb's real desktop.
func TestSharePasswordGuessingIsBlocked(t *testing.T) {
	vnc := testbed.StartXvnc(t, testbed.XvncOptions{Width: 320, Height: 240})
	d := startDaemon(t)
	c := dial(t, d, "agent")
	id := openVNC(t, c, "127.0.0.1", vnc.Port)
	sh := must(t, c, wire.ShareArgs{Target: wire.Target{LimbID: id}, TCP: true}).Share
	for i := 0; i < 5; i++ {
		var ae *rfb.AuthError
		if err := shareAttempt(t, sh.TCP, "wrong"+string(rune('0'+i))); !errors.As(err, &ae) {
			t.Fatalf("wrong password %d: want an authentication failure, got %v", i+1, err)
		}
	}
	refused := func(err error) bool {
		var se *rfb.ServerError
		return errors.As(err, &se) && strings.Contains(se.Reason, "too many wrong passwords")
	}
	if err := shareAttempt(t, sh.TCP, sh.Password); !refused(err) {
		t.Fatalf("the right password right after 5 wrong ones: want the block's refusal, got %v", err)
	}
	for i := 0; i < 50; i++ {
		if err := shareAttempt(t, sh.TCP, "guess"+string(rune('a'+i%26))); !refused(err) {
			t.Fatalf("guess %d during the block: want the block's refusal, got %v", i+1, err)
		}
	}
	var in error
	testbed.Eventually(t, 2*time.Minute, "the right password to work once the block passed", func() bool {
		in = shareAttempt(t, sh.TCP, sh.Password)
		if in != nil && !refused(in) {
			t.Fatalf("the right password after the block: %v", in)
		}
		if in != nil {
			time.Sleep(time.Second)
		}
		return in == nil
	})
	if st := must(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation.State; st != wire.StateConnected {
		t.Fatalf("limb after the guessing: %s", st)
	}
}
