package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/dvvhq/dvv/pkg/limb"
	"github.com/dvvhq/dvv/pkg/wire"
)

// hostileSSH is a small SSH server on 127.0.0.1 that accepts anyone and
// then misbehaves the way its test says. Its host key is trusted in a
// home of its own, so a dial reaches the misbehaviour.
type hostileSSH struct {
	ln   net.Listener
	port int
	home string
	wg   sync.WaitGroup
}

// sessionFunc serves one accepted session channel; nc is the raw
// connection, for servers that drop it.
type sessionFunc func(nc net.Conn, ch ssh.Channel, reqs <-chan *ssh.Request)

// rawFunc serves a TCP connection without any SSH at all.
type rawFunc func(nc net.Conn)

func startHostileSSH(t testing.TB, session sessionFunc, raw rawFunc) *hostileSSH {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hostileSSH{ln: ln, port: ln.Addr().(*net.TCPAddr).Port, home: t.TempDir()}
	sshDir := filepath.Join(h.home, ".ssh")
	os.MkdirAll(sshDir, 0o700)
	line := knownhosts.Line([]string{knownhosts.Normalize(net.JoinHostPort("127.0.0.1", strconv.Itoa(h.port)))}, signer.PublicKey())
	if err := os.WriteFile(filepath.Join(sshDir, "known_hosts"), []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(sshDir, "config"), nil, 0o600)
	cfg := &ssh.ServerConfig{NoClientAuth: true}
	cfg.AddHostKey(signer)
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			h.wg.Add(1)
			go func() {
				defer h.wg.Done()
				defer nc.Close()
				if raw != nil {
					raw(nc)
					return
				}
				_, chans, reqs, err := ssh.NewServerConn(nc, cfg)
				if err != nil {
					return
				}
				go ssh.DiscardRequests(reqs)
				for nch := range chans {
					if nch.ChannelType() != "session" {
						nch.Reject(ssh.UnknownChannelType, "sessions only")
						continue
					}
					ch, creqs, err := nch.Accept()
					if err != nil {
						return
					}
					session(nc, ch, creqs)
				}
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); h.wg.Wait() })
	return h
}

func (h *hostileSSH) opts() Options {
	return Options{Home: h.home, AgentSocket: "none", ConfigFiles: []string{filepath.Join(h.home, ".ssh", "config")}}
}

func (h *hostileSSH) target() limb.Target {
	return limb.Target{Protocol: wire.ProtoSSH, Address: "127.0.0.1", Port: h.port}
}

// acceptShell answers pty-req and shell with success, and everything else
// with failure; it returns once the shell has started.
func acceptShell(reqs <-chan *ssh.Request) bool {
	for r := range reqs {
		switch r.Type {
		case "pty-req", "env", "window-change":
			r.Reply(true, nil)
		case "shell":
			r.Reply(true, nil)
			go func() {
				for r := range reqs {
					r.Reply(false, nil)
				}
			}()
			return true
		default:
			r.Reply(false, nil)
		}
	}
	return false
}
