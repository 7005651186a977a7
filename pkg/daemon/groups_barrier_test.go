package daemon

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
)

// TestStartBarrierHoldsEveryMemberUntilTheLast: group_run's own barrier
// lets no member act before every member is ready, and a member's ready
// called again (once before its act, once as dispatch returns) counts
// once.
func TestStartBarrierHoldsEveryMemberUntilTheLast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newStartBarrier(3)
		var passed atomic.Int32
		for range 2 {
			go func() {
				ready := b.arrive()
				ready()
				passed.Add(1)
				ready()
			}()
		}
		synctest.Wait() // both are blocked at the barrier
		if n := passed.Load(); n != 0 {
			t.Fatalf("%d members passed before the last was ready", n)
		}
		last := b.arrive()
		last()
		last()
		synctest.Wait()
		if n := passed.Load(); n != 2 {
			t.Fatalf("%d of 2 members passed after the last was ready", n)
		}
	})
}
