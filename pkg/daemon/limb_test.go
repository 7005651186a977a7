package daemon

import (
	"image"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func openFake(t *testing.T, c *client.Client, addr string) string {
	t.Helper()
	r := mustDo(t, c, wire.OpenArgs{Address: addr, Protocol: "vnc", Perceive: boolp(true)})
	w := mustDo(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(5000)})
	if !w.Wait.Settled {
		t.Fatalf("limb did not connect: %+v", w.Observation)
	}
	return r.LimbID
}

func TestLimbIDsAreReproducible(t *testing.T) {
	a := LimbID("vnc", "Host.Example", 5900, 0)
	if a != LimbID("vnc", "host.example", 5900, 0) || a == LimbID("vnc", "host.example", 5900, 1) || !strings.HasPrefix(a, "vnc-") {
		t.Fatalf("ids: %s", a)
	}
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "a"})
	id := openFake(t, c, "fake")
	mustDo(t, c, wire.CloseArgs{LimbID: id})
	mustDo(t, c, wire.CloseArgs{LimbID: id}) // idempotent
	if id2 := openFake(t, c, "fake"); id2 != id {
		t.Fatalf("reopened as %s, was %s", id2, id)
	}
}

func TestObservation(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "agent"})
	id := openFake(t, c, "fake")
	o := mustDo(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation
	if o.Schema != wire.ObservationSchema || o.State != "connected" || o.Geometry.Generation != 1 ||
		o.Size != (wire.Size{W: 640, H: 480}) || o.Coverage != 1 || o.Fence == nil || !o.Fence.Armed || !o.Fence.NeverRead {
		t.Fatalf("observation %+v fence %+v", o, o.Fence)
	}
	if o.Signals[wire.SigWindowStructure].State != wire.SignalAbsent {
		t.Fatal("window_structure must always be absent")
	}
	for name, s := range o.Signals {
		if s.State != wire.SignalLive && s.Reason == "" {
			t.Errorf("signal %s is %s without a reason", name, s.State)
		}
	}
	if _, err := do(t, c, wire.OpenArgs{Address: "fake", Protocol: "vnc", Slot: intp(1)}); client.Code(err) != wire.SlotRefused {
		t.Fatalf("vnc slot 1: %v", err)
	}
	if _, err := do(t, c, wire.OpenArgs{HostID: "x", Protocol: "vnc"}); client.Code(err) != wire.BadRequest {
		t.Fatalf("hostId with protocol: %v", err)
	}
}

func TestCoordinateFence(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "agent"})
	id := openFake(t, c, "fake")
	click := func(gen *uint64, x, y int) error {
		_, err := do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "click", X: &x, Y: &y, Generation: gen})
		return err
	}
	wantCode(t, click(u64p(1), 10, 10), wire.LeaseNotHeld)
	mustDo(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	wantCode(t, click(nil, 10, 10), wire.Unfenced)
	wantCode(t, click(u64p(1), 640, 10), wire.OutOfBounds)
	if err := click(u64p(1), 10, 20); err != nil {
		t.Fatal(err)
	}
	f := lastFake("fake")
	if ev := f.events(); len(ev) != 3 || ev[1] != "p10,20,1" || ev[2] != "p10,20,0" {
		t.Fatalf("events %v", ev)
	}
	d.limbs[id].dsk.buf.Resize(800, 600)
	before := len(f.events())
	err := click(u64p(1), 10, 20)
	wantCode(t, err, wire.GeometryChanged)
	if len(f.events()) != before {
		t.Fatal("a stale click delivered input")
	}
	var we *wire.Error
	if e, ok := err.(*wire.Error); ok {
		we = e
	}
	if we == nil || we.Observation == nil || we.Observation.Geometry.Generation != 2 {
		t.Fatalf("GEOMETRY_CHANGED should carry the fresh observation: %+v", err)
	}
	if err := click(u64p(2), 700, 500); err != nil {
		t.Fatal(err)
	}
}

func TestTypingFence(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "agent"})
	id := openFake(t, c, "fake")
	mustDo(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	typ := func() error {
		_, err := do(t, c, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: strp("hi")})
		return err
	}
	wantCode(t, typ(), wire.ScreenChanged) // never read
	s := mustDo(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Scale: f64p(0.5)})
	if s.Screen.Width != 320 || s.Screen.Height != 240 || s.Screen.DataBase64 == "" || !strings.Contains(s.Screen.ImageSpaceLine, "scale 0.5") {
		t.Fatalf("screen %+v", s.Screen)
	}
	if err := typ(); err != nil {
		t.Fatal(err)
	}
	buf := d.limbs[id].dsk.buf
	paint(buf, image.Rect(0, 0, 40, 40)) // small: an echo
	if err := typ(); err != nil {
		t.Fatalf("small repaint armed the fence: %v", err)
	}
	paint(buf, image.Rect(0, 0, 640, 200)) // large: a new window
	wantCode(t, typ(), wire.ScreenChanged)
	_, err := do(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "Enter"})
	wantCode(t, err, wire.ScreenChanged)
	dc := mustDo(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Form: "damage-crop"})
	if dc.Screen.ImageSpace.Region != (wire.Region{X: 0, Y: 0, W: 640, H: 200}) {
		t.Fatalf("damage crop region %+v", dc.Screen.ImageSpace.Region)
	}
	if err := typ(); err != nil {
		t.Fatal(err)
	}
	if u := mustDo(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}, Form: "damage-crop"}); !u.Screen.Unchanged {
		t.Fatalf("no damage should answer unchanged: %+v", u.Screen)
	}
	_, err = do(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "hyper+q"})
	wantCode(t, err, wire.UnknownKey)
}

func TestTakeoverRevokesAgent(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	agent := dialClient(t, d, client.Options{Name: "agent"})
	person := dialClient(t, d, client.Options{Name: "alice", Session: "s1"})
	id := openFake(t, agent, "fake")
	mustDo(t, agent, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	mustDo(t, person, wire.TakeoverArgs{Target: wire.Target{LimbID: id}})
	x, y := 5, 5
	click := wire.ClickArgs{Target: wire.Target{LimbID: id}, Action: "click", X: &x, Y: &y, Generation: u64p(1)}
	_, err := do(t, agent, click)
	wantCode(t, err, wire.LeaseRevoked)
	_, err = do(t, agent, click)
	wantCode(t, err, wire.LeaseNotHeld)
	ys := mustDo(t, agent, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "yield_status"})
	if !ys.Lease.HumanTookOver || ys.Lease.Holder != "alice" || ys.Lease.Held {
		t.Fatalf("lease view %+v", ys.Lease)
	}
	if o := mustDo(t, agent, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation; !o.Lease.HumanTookOver {
		t.Fatal("status must show human_took_over")
	}
	_, err = do(t, agent, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire", WaitMs: intp(300)})
	wantCode(t, err, wire.LeaseNotHeld) // refused, not queued, while a person drives
	if _, err := do(t, person, click); err != nil {
		t.Fatalf("the person's own click: %v", err)
	}
}

func TestLeaseWaitAndLifetime(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	a := dialClient(t, d, client.Options{Name: "a"})
	b := dialClient(t, d, client.Options{Name: "b"})
	id := openFake(t, a, "fake")
	mustDo(t, a, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	_, err := do(t, b, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	wantCode(t, err, wire.LeaseNotHeld)
	go func() {
		// a goes away only once b's acquire is parked waiting, so what hands
		// b the lease is the wait, not a lucky order.
		waitParked(t, "(*Limb).acquire")
		a.Close() // a crashed agent holds nothing
	}()
	r := mustDo(t, b, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire", WaitMs: intp(10000)})
	if !r.Lease.Held || r.Lease.Holder != "b" {
		t.Fatalf("lease %+v", r.Lease)
	}
	// Two commands in one shell share the attachment and its lease.
	s1 := dialClient(t, d, client.Options{Name: "shell", Session: "pid:1:x"})
	mustDo(t, b, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "release"})
	mustDo(t, s1, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	s1.Close()
	s2 := dialClient(t, d, client.Options{Name: "shell", Session: "pid:1:x"})
	if l := mustDo(t, s2, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "status"}).Lease; !l.Held {
		t.Fatalf("the shell's lease did not survive between commands: %+v", l)
	}
}

func TestReconnectKeepsID(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "a"})
	id := openFake(t, c, "fake")
	lastFake("fake").drop()
	deadline := time.Now().Add(10 * time.Second)
	for {
		o := mustDo(t, c, wire.StatusArgs{Target: wire.Target{LimbID: id}}).Observation
		if o.State == "connected" && o.Reconnects == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no automatic reconnect: %+v", o)
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := mustDo(t, c, wire.ReconnectArgs{Target: wire.Target{LimbID: id}, TimeoutMs: intp(5000)})
	if r.Observation.State != "connected" || r.Observation.Reconnects != 2 || r.LimbID != id {
		t.Fatalf("reconnect: %+v", r.Observation)
	}
}

func TestPermanentFailureIsCoded(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "a"})
	r := mustDo(t, c, wire.OpenArgs{Address: "badpass", Protocol: "vnc"})
	// wait names NOT_CONNECTED, not AUTH_FAILED, among its codes (the tool
	// reference); the refused password is the cause.
	_, err := do(t, c, wire.WaitArgs{Target: wire.Target{LimbID: r.LimbID}, Until: "connected", TimeoutMs: intp(5000)})
	wantCode(t, err, wire.NotConnected)
	if cause(err) != wire.AuthFailed || !strings.Contains(err.Error(), "wrong password") {
		t.Fatalf("the answer hides its cause: %v (cause %s)", err, cause(err))
	}
	_, err = do(t, c, wire.TypeArgs{Target: wire.Target{LimbID: r.LimbID}, Text: strp("x")})
	wantCode(t, err, wire.LeaseNotHeld)
	mustDo(t, c, wire.ControlArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "acquire"})
	x := 1
	_, err = do(t, c, wire.ClickArgs{Target: wire.Target{LimbID: r.LimbID}, Action: "move", X: &x, Y: &x, Generation: u64p(1)})
	wantCode(t, err, wire.NotReady)
}

func TestHistoryHoldsNoText(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "agent"})
	id := openFake(t, c, "fake")
	mustDo(t, c, wire.ControlArgs{Target: wire.Target{LimbID: id}, Action: "acquire"})
	mustDo(t, c, wire.ScreenArgs{Target: wire.Target{LimbID: id}})
	mustDo(t, c, wire.TypeArgs{Target: wire.Target{LimbID: id}, Text: strp("hunter2-secret")})
	do(t, c, wire.KeyArgs{Target: wire.Target{LimbID: id}, Keys: "nope+nope"})
	h := mustDo(t, c, wire.HistoryArgs{Target: wire.Target{LimbID: id}}).History
	var ops []string
	for _, e := range h {
		ops = append(ops, e.Op+":"+e.Outcome)
		if strings.Contains(e.Detail, "hunter2") {
			t.Fatal("history holds typed text")
		}
	}
	got := strings.Join(ops, " ")
	if !strings.Contains(got, "type:ok") || !strings.Contains(got, "key:UNKNOWN_KEY") {
		t.Fatalf("history %s", got)
	}
}

// waitParked waits until some goroutine is blocked in a select inside fn
// (read from the goroutine dump: the daemon offers no "someone waits" view).
func waitParked(t *testing.T, fn string) {
	deadline := time.Now().Add(10 * time.Second)
	buf := make([]byte, 1<<20)
	for time.Now().Before(deadline) {
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, " [select") && strings.Contains(g, fn) {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Errorf("no goroutine parked in %s after 10s", fn)
}
