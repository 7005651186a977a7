package fb

import (
	"testing"
	"time"
)

// Either budget, pixels or decoding time, pauses the writer until the
// second is over; under both, nothing waits.
func TestDecodeBudget(t *testing.T) {
	b := New()
	b.SetDecodeBudget(1000)
	b.SpendDecode(999, 0, nil)
	if recent, paused, _ := b.DecodeThrottle(); recent || paused != 0 {
		t.Fatal("paused under the budget")
	}
	stop := make(chan struct{})
	close(stop) // a closed stop ends the pause at once
	b.SpendDecode(2, 0, stop)
	if recent, paused, _ := b.DecodeThrottle(); !recent || paused == 0 {
		t.Fatal("not paused past the pixel budget")
	}
	b2 := New()
	b2.SpendDecode(1, DefaultDecodeTime+time.Millisecond, stop)
	if recent, _, _ := b2.DecodeThrottle(); !recent {
		t.Fatal("not paused past the decoding-time budget")
	}
}
