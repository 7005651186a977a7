package daemon

import "github.com/dvvhq/dvv/pkg/wire"

var _ = register(wire.OpRecord, typed(opRecord))

func opRecord(c *opCall, a wire.RecordArgs) (*wire.RecordAnswer, error) {
	l := c.l
	r := &wire.RecordAnswer{}
	switch a.Action {
	case "start", "":
		rec, err := l.startRecording(c.att.name)
		if err != nil {
			return nil, err
		}
		r.Recordings = []wire.Recording{rec.snapshot()}
	case "stop":
		l.mu.Lock()
		rec := l.rec
		l.mu.Unlock()
		if rec == nil {
			return nil, wire.Errorf(wire.NotReady, "limb %s is not being recorded", l.id)
		}
		rec.stop("stopped")
		rec.settle(stopSettle)
		r.Recordings = []wire.Recording{rec.snapshot()}
	case "list":
		list, err := l.listRecordings()
		if err != nil {
			return nil, err
		}
		r.Recordings = list
	}
	return r, nil
}
