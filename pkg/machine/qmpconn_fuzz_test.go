package machine

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// FuzzQMPStream feeds any bytes to the QMP client as QEMU's side of the
// socket: the greeting, then the answers to qmp_capabilities and one
// command. Whatever comes, the client answers the command or fails with
// QEMU's own refusal or a coded error, and never hangs or panics.
func FuzzQMPStream(f *testing.F) {
	greet := `{"QMP": {"version": {"qemu": {"micro": 0, "minor": 2, "major": 8}}, "capabilities": []}}` + "\n"
	f.Add([]byte(greet + `{"return": {}}` + "\n" + `{"return": {"status": "running", "running": true}}` + "\n"))
	f.Add([]byte(greet + `{"return": {}}` + "\n" + `{"event": "STOP", "timestamp": {"seconds": 1}}` + "\n" + `{"error": {"class": "GenericError", "desc": "no"}}` + "\n"))
	f.Add([]byte(greet + `{"return": {}}` + "\n" + "not json\n"))
	f.Add([]byte(`{"QMP": null}` + "\n"))
	f.Add([]byte("\n\n\n" + greet))
	f.Add([]byte(greet + `{"return": {}}` + "\n" + `{}` + "\n"))
	f.Fuzz(func(t *testing.T, stream []byte) {
		client, server := net.Pipe()
		go func() { _, _ = io.Copy(io.Discard, server) }() // the commands the client sends
		go func() {
			_, _ = server.Write(stream)
			server.Close()
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		q := newQMPConn(ctx, Spec{Backend: QMP, Path: "/fuzz.sock"}, client)
		defer q.Close()
		err := q.handshake()
		if err == nil {
			_, err = q.run("query-status", nil, time.Second)
		}
		if err == nil {
			return
		}
		var qe *qmpError
		if errors.As(err, &qe) {
			return
		}
		var we *wire.Error
		if !errors.As(err, &we) {
			t.Fatalf("an uncoded error: %v", err)
		}
		switch we.Code {
		case wire.ProtocolError, wire.Unreachable:
		case wire.Timeout:
			t.Fatalf("the client waited out its deadline on a stream that ended: %v", we)
		default:
			t.Fatalf("code %s for a broken stream: %v", we.Code, we)
		}
		if we.Next == "" {
			t.Fatalf("%s without a next step: %v", we.Code, we)
		}
	})
}
