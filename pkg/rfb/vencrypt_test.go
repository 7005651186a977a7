package rfb

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/dvvhq/dvv/internal/testbed"
)

// TestVeNCryptChoosesBySubtypesAndCredentials: against TigerVNC's Xvnc
// offering VeNCrypt subtypes, the client picks the one its credentials
// complete (the server then lets it in under that subtype), or refuses
// with the error that says why.
func TestVeNCryptChoosesBySubtypesAndCredentials(t *testing.T) {
	t.Parallel()
	user, userPassword := testbed.PasswordUser(t)
	for _, c := range []struct {
		name     string
		offer    string // Xvnc's -SecurityTypes
		password string // the server's VncAuth password
		cfg      Config
		want     string // the negotiated security, or the error's words
	}{
		{name: "X509None without credentials", offer: "X509None", want: "VeNCrypt X509None"},
		{name: "X509Vnc with a password", offer: "X509None,X509Vnc", password: "secret12", cfg: Config{Password: "secret12"}, want: "VeNCrypt X509Vnc"},
		{name: "X509None when no password is given", offer: "X509Vnc,X509None", password: "secret12", want: "VeNCrypt X509None"},
		{name: "X509Vnc before X509Plain", offer: "X509Vnc,X509Plain", password: "secret12", cfg: Config{Username: user, Password: "secret12"}, want: "VeNCrypt X509Vnc"},
		{name: "X509Plain only", offer: "X509Plain", cfg: Config{Username: user, Password: userPassword}, want: "VeNCrypt X509Plain"},
		{name: "Plain without TLS", offer: "Plain", cfg: Config{Username: user, Password: userPassword}, want: "VeNCrypt Plain"},
		{name: "X509Vnc without a password", offer: "X509Vnc", password: "secret12", want: "the server requires credentials (X509Vnc) and none fit those given"},
		{name: "X509Plain without a user", offer: "X509Plain", cfg: Config{Password: "pw"}, want: "the server requires credentials (X509Plain) and none fit those given"},
		{name: "Plain without a user", offer: "Plain", cfg: Config{Password: "pw"}, want: "anonymous TLS (TLSNone/TLSVnc/TLSPlain) needs anonymous Diffie-Hellman"},
		{name: "anonymous TLS only", offer: "TLSVnc,TLSNone", password: "secret12", cfg: Config{Password: "secret12"}, want: "anonymous TLS (TLSNone/TLSVnc/TLSPlain) needs anonymous Diffie-Hellman"},
		{name: "certificate only", offer: "X509Plain", cfg: Config{CertOnly: true}, want: "the certificate was accepted, but this connection was only to read it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v, der := testbed.StartXvncX509(t, c.offer, c.password, "-PlainUsers", user, "-PAMService", "tigervnc")
			cfg := c.cfg
			var verified bool
			cfg.TLS = &TLSPolicy{Verify: func(got []byte) error {
				verified = true
				if !bytes.Equal(got, der) {
					return errors.New("not the server's certificate")
				}
				return nil
			}}
			cfg.HandshakeTimeout = 10 * time.Second
			client, err := Dial(context.Background(), v.Addr, &cfg)
			if err != nil {
				if !strings.Contains(err.Error(), c.want) {
					t.Fatalf("offered %s: %v, want %q", c.offer, err, c.want)
				}
				return
			}
			defer client.Close()
			if got := client.Capabilities().Security; got != c.want {
				t.Fatalf("offered %s: negotiated %q, want %q", c.offer, got, c.want)
			}
			if tls := c.want != "VeNCrypt Plain"; tls != verified {
				t.Fatalf("offered %s: the certificate was checked: %v", c.offer, verified)
			}
			// The server's own log names the subtype it was asked for
			// (written before it answered, so before Dial returned).
			log, err := os.ReadFile(v.Server.Log)
			if err != nil {
				t.Fatal(err)
			}
			sub := strings.TrimPrefix(c.want, "VeNCrypt ")
			if !strings.Contains(string(log), "requests security type "+sub+" (") {
				t.Fatalf("offered %s: Xvnc's log does not show %s chosen:\n%s", c.offer, sub, log)
			}
		})
	}
}
