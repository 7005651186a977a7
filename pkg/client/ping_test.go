package client

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dvvhq/dvv/pkg/wire"
)

// Ping's attach and ping reach dvvd before it answers either: a server
// here reads both lines first, and only then answers (ping first, as dvvd
// may). A client that waited for the attach's answer would time out.
func TestPingGoesOutWithTheAttach(t *testing.T) {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o700); err != nil { // the socket rules
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "d.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan []wire.Envelope, 1)
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		r := bufio.NewReader(conn)
		var reqs []wire.Envelope
		for range 2 {
			line, err := r.ReadBytes('\n')
			if err != nil {
				got <- reqs
				return
			}
			var req wire.Envelope
			json.Unmarshal(line, &req)
			reqs = append(reqs, req)
		}
		got <- reqs
		conn.Write([]byte(`{"result":"ping","id":` + string(reqs[1].ID) + "}\n"))
		conn.Write([]byte(`{"result":"attach","id":` + string(reqs[0].ID) + `,"daemon":{"version":"t","id":"d","pid":7,"attachment":"shell","role":"owner"}}` + "\n"))
		r.ReadByte() // until the client hangs up
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, resp, err := Ping(ctx, sock, Options{Name: "shell", Session: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	reqs := <-got
	if len(reqs) != 2 || reqs[0].OpName != wire.OpAttach || reqs[0].Name != "shell" || reqs[0].Session != "s" || reqs[1].OpName != wire.OpPing {
		t.Fatalf("the server read %+v", reqs)
	}
	if resp == nil || c.Info == nil || c.Info.PID != 7 || c.Info.Role != "owner" {
		t.Fatalf("ping answer %+v, attachment %+v", resp, c.Info)
	}
}
