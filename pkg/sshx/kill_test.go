package sshx

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// killServer is an SSH server on 127.0.0.1 whose commands never end, so
// every Run reaches its deadline; how it treats the PID line and the kill
// channel is the test's choice.
type killServer struct {
	sayPID  bool   // print the PID line the way a shell would
	killing string // "reject" the kill channel, leave it "silent", or answer "fail" (status 1)
	started chan struct{}
}

var pidLineRE = regexp.MustCompile(`printf '%s %d\\n' (\S+) \$\$`)

func (k *killServer) start(t *testing.T) Options {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(priv)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	cfg := &ssh.ServerConfig{NoClientAuth: true}
	cfg.AddHostKey(signer)
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			go k.serve(nc, cfg)
		}
	}()
	home := t.TempDir()
	kh := filepath.Join(home, "known_hosts")
	port := ln.Addr().(*net.TCPAddr).Port
	os.WriteFile(kh, []byte(knownhosts.Line([]string{knownhosts.Normalize(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))}, signer.PublicKey())+"\n"), 0o600)
	cf := filepath.Join(home, "config")
	os.WriteFile(cf, nil, 0o600)
	return Options{Address: "127.0.0.1", Port: port, Home: home, ConfigFiles: []string{cf}, KnownHostsFiles: []string{kh}, AgentSocket: "none"}
}

func (k *killServer) serve(nc net.Conn, cfg *ssh.ServerConfig) {
	defer nc.Close()
	_, chans, reqs, err := ssh.NewServerConn(nc, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	first := true
	for nch := range chans {
		if !first && k.killing == "reject" {
			nch.Reject(ssh.Prohibited, "no more sessions")
			continue
		}
		first = false
		ch, creqs, err := nch.Accept()
		if err != nil {
			return
		}
		go func() {
			for r := range creqs {
				r.Reply(r.Type == "exec", nil)
				if r.Type != "exec" || len(r.Payload) < 4 {
					continue
				}
				cmd := string(r.Payload[4:])
				if strings.HasPrefix(cmd, "kill ") {
					if k.killing == "fail" {
						status := make([]byte, 4)
						binary.BigEndian.PutUint32(status, 1)
						ch.SendRequest("exit-status", false, status)
						ch.Close()
					}
					continue // "silent": never answer
				}
				if m := pidLineRE.FindStringSubmatch(cmd); m != nil && k.sayPID {
					fmt.Fprintf(ch.Stderr(), "%s 4242\n", m[1])
				}
				close(k.started)
			}
		}()
	}
}

// TestRunTimeoutSaysWhatWasDone: the timeout answer claims a kill only
// when kill confirmed it, and says what is not known otherwise.
func TestRunTimeoutSaysWhatWasDone(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		srv     killServer
		want    []string
		notWant string
	}{
		{"no PID", killServer{sayPID: false, killing: "fail"}, []string{"never reported its PID", "may still be running"}, "was killed"},
		{"kill channel refused", killServer{sayPID: true, killing: "reject"}, []string{"PID 4242", "no second channel opened", "may still be running"}, "was killed"},
		{"kill never answers", killServer{sayPID: true, killing: "silent"}, []string{"PID 4242", "reported no result", "not known"}, "was killed"},
		{"kill fails", killServer{sayPID: true, killing: "fail"}, []string{"PID 4242", "failed with status 1"}, "was killed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := tc.srv
			srv.started = make(chan struct{})
			o := srv.start(t)
			dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer dcancel()
			c, err := Dial(dctx, o)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx, cancel := context.WithCancel(context.Background())
			go func() { <-srv.started; cancel() }() // the deadline falls once the command runs
			r, err := c.Run(ctx, "sleep 100", RunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !r.TimedOut {
				t.Fatalf("not timed out: %+v", r)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.Note, w) {
					t.Errorf("note lacks %q: %s", w, r.Note)
				}
			}
			if strings.Contains(r.Note, tc.notWant) {
				t.Errorf("note claims a kill: %s", r.Note)
			}
		})
	}
}
