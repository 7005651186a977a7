package daemon

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/client"
	"github.com/dvvhq/dvv/pkg/wire"
)

func TestGroupLifecycle(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "agent"})
	g := mustDo(t, c, wire.GroupOpenArgs{Addresses: []string{"fa:1", "fb:2", "fc:3"}, Protocol: "vnc", Perceive: boolp(true)}).Group
	if g.Size != 3 || g.Members[2].Host != "fc:3" || g.Members[0].State != "connected" {
		t.Fatalf("group %+v", g)
	}
	// The selector: groupId + member addresses one limb.
	st := mustDo(t, c, wire.StatusArgs{Target: wire.Target{GroupID: g.GroupID, Member: intp(1)}})
	if st.LimbID != g.Members[1].LimbID {
		t.Fatalf("member 1 resolved to %s", st.LimbID)
	}
	_, err := do(t, c, wire.StatusArgs{Target: wire.Target{GroupID: g.GroupID, Member: intp(3)}})
	wantCode(t, err, wire.LimbGone)
	_, err = do(t, c, wire.StatusArgs{Target: wire.Target{GroupID: g.GroupID}})
	wantCode(t, err, wire.BadRequest)
	_, err = do(t, c, wire.StatusArgs{Target: wire.Target{GroupID: g.GroupID, Member: intp(0), LimbID: "x"}})
	wantCode(t, err, wire.BadRequest)

	// A dead member fails the whole open and closes what the call opened.
	_, err = do(t, c, wire.GroupOpenArgs{Addresses: []string{"fd:4", "unreachable:5"}, Protocol: "vnc"})
	if client.Code(err) != wire.Unreachable || !strings.Contains(err.Error(), "member 1 (unreachable:5)") {
		t.Fatalf("dead member: %v", err)
	}
	if _, ok := d.limbs[LimbID("vnc", "fd", 4, 0)]; ok {
		t.Fatal("a member opened by the failed call was left open")
	}
	_, err = do(t, c, wire.GroupGrowArgs{GroupID: g.GroupID, Addresses: []string{"unreachable:9"}, Protocol: "vnc"})
	wantCode(t, err, wire.Unreachable)
	gr := mustDo(t, c, wire.GroupGrowArgs{GroupID: g.GroupID, Addresses: []string{"fe:6"}, Protocol: "vnc"}).Group
	if gr.Size != 4 || gr.Members[3].Index != 3 || gr.Members[0].LimbID != g.Members[0].LimbID {
		t.Fatalf("grow %+v", gr)
	}
	_, err = do(t, c, wire.GroupShrinkArgs{GroupID: g.GroupID, N: 5})
	wantCode(t, err, wire.BadRequest)
	sh := mustDo(t, c, wire.GroupShrinkArgs{GroupID: g.GroupID, N: 2}).Group
	if sh.Size != 2 {
		t.Fatalf("shrink %+v", sh)
	}
	if _, ok := d.limbs[g.Members[2].LimbID]; ok {
		t.Fatal("shrink left the member open")
	}
	mustDo(t, c, wire.CloseArgs{LimbID: g.Members[0].LimbID})
	mustDo(t, c, wire.GroupCloseArgs{GroupID: g.GroupID}) // a gone member is fine
	if l := mustDo(t, c, wire.GroupListArgs{}); len(l.Groups) != 0 {
		t.Fatalf("groups left: %+v", l.Groups)
	}
}

func TestGroupRunStartsEveryMemberBeforeAnyFinishes(t *testing.T) {
	d := startDaemon(t, Config{Desktop: fakeDialers()})
	c := dialClient(t, d, client.Options{Name: "agent"})
	var addrs []string
	for i := 0; i < 8; i++ {
		addrs = append(addrs, "m"+itoa(i)+":"+itoa(100+i))
	}
	g := mustDo(t, c, wire.GroupOpenArgs{Addresses: addrs, Protocol: "vnc", Perceive: boolp(true)}).Group
	members := map[string]bool{}
	for _, m := range g.Members {
		members[m.LimbID] = true
	}
	ev := dialClient(t, d, client.Options{Name: "watcher"})
	mustDo(t, ev, wire.SubscribeArgs{Events: []string{"op.start", "op.end"}})
	r := mustDo(t, c, wire.GroupRunArgs{GroupID: g.GroupID, Action: "status"})
	if len(r.Members) != 8 {
		t.Fatalf("%d results", len(r.Members))
	}
	var lastStart, firstEnd uint64
	starts, ends := 0, 0
	timeout := time.After(5 * time.Second)
	for starts < 8 || ends < 8 {
		select {
		case e := <-ev.Events():
			if !members[e.LimbID] {
				continue
			}
			if e.Kind == "op.start" {
				starts++
				lastStart = max(lastStart, e.Seq)
			} else {
				ends++
				if firstEnd == 0 || e.Seq < firstEnd {
					firstEnd = e.Seq
				}
			}
		case <-timeout:
			t.Fatalf("events: %d starts, %d ends", starts, ends)
		}
	}
	if lastStart > firstEnd {
		t.Fatalf("a member finished (event %d) before the last one started (event %d)", firstEnd, lastStart)
	}

	// One member failing never stops the others; fences apply per member.
	mustDo(t, c, wire.CloseArgs{LimbID: g.Members[3].LimbID})
	mustDo(t, c, wire.GroupRunArgs{GroupID: g.GroupID, Action: "screen", Arguments: json.RawMessage(`{"scale":0.25}`)})
	for _, m := range g.Members {
		if m.Index != 3 {
			mustDo(t, c, wire.ControlArgs{Target: wire.Target{LimbID: m.LimbID}, Action: "acquire"})
		}
	}
	d.limbs[g.Members[5].LimbID].dsk.buf.Resize(700, 100)
	r = mustDo(t, c, wire.GroupRunArgs{
		GroupID:   g.GroupID,
		Action:    "click",
		Arguments: json.RawMessage(`{"action":"move","x":5,"y":5,"generation":1}`),
	})
	for _, m := range r.Members {
		want := ""
		switch m.Index {
		case 3:
			want = "LIMB_GONE"
		case 5:
			want = "GEOMETRY_CHANGED"
		}
		if mr := member(t, m); string(mr.Code) != want {
			t.Errorf("member %d: got %q want %q (%s)", m.Index, mr.Code, want, mr.Message)
		}
	}
	dir := t.TempDir()
	mustDo(t, c, wire.GroupRunArgs{GroupID: g.GroupID, Action: "screen", OutDir: dir})
	files, _ := filepath.Glob(filepath.Join(dir, "*.png"))
	if len(files) != 7 {
		t.Fatalf("screens written: %v", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Size() == 0 {
		t.Fatal("empty screen file")
	}
	_, err := do(t, c, wire.GroupRunArgs{GroupID: g.GroupID, Action: "close"})
	wantCode(t, err, wire.BadRequest)
	// The arguments are decoded as the inner op's Args: a field it does
	// not take, or a selector, is refused once for the whole group.
	for args, says := range map[string]string{
		`{"action":"move","x":5,"y":5,"colour":"red"}`: `"colour"`,
		`{"action":"move","x":5,"y":5,"text":"hi"}`:    `click does not take "text"`,
		`{"action":"move","x":5,"y":5,"limbId":"l1"}`:  "minus the selector",
		`{"op":"click","action":"move","x":5,"y":5}`:   "minus the selector",
	} {
		_, err := do(t, c, wire.GroupRunArgs{GroupID: g.GroupID, Action: "click", Arguments: json.RawMessage(args)})
		wantCode(t, err, wire.BadRequest)
		if !strings.Contains(err.Error(), says) {
			t.Errorf("arguments %s: %v does not say %s", args, err, says)
		}
	}
}
