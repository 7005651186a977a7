package rfb

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/md5"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"math/big"
	"net"
	"testing"
)

// No Apple Remote Desktop server runs here, so the server side of security
// type 30 is played by this test: Diffie-Hellman over the 1024-bit Oakley
// group, then AES-128-ECB keyed with MD5 of the shared secret.
var oakley2, _ = new(big.Int).SetString("FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7EDEE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381FFFFFFFFFFFFFFFF", 16)

func ardServer(user, password string) func(c net.Conn) bool {
	return func(c net.Conn) bool {
		c.Write([]byte{1, secARD})
		var choice [1]byte
		if _, err := io.ReadFull(c, choice[:]); err != nil || choice[0] != secARD {
			return false
		}
		const keyLen = 128
		priv, _ := rand.Int(rand.Reader, oakley2)
		pub := new(big.Int).Exp(big.NewInt(2), priv, oakley2)
		msg := []byte{0, 2, 0, keyLen}
		msg = append(msg, oakley2.FillBytes(make([]byte, keyLen))...)
		c.Write(append(msg, pub.FillBytes(make([]byte, keyLen))...))
		resp := make([]byte, 128+keyLen)
		if _, err := io.ReadFull(c, resp); err != nil {
			return false
		}
		peer := new(big.Int).SetBytes(resp[128:])
		secret := new(big.Int).Exp(peer, priv, oakley2)
		key := md5.Sum(secret.FillBytes(make([]byte, keyLen)))
		block, _ := aes.NewCipher(key[:])
		creds := resp[:128]
		for i := 0; i < 128; i += 16 {
			block.Decrypt(creds[i:i+16], creds[i:i+16])
		}
		gotUser, _, _ := bytes.Cut(creds[:64], []byte{0})
		gotPass, _, _ := bytes.Cut(creds[64:], []byte{0})
		if string(gotUser) != user || string(gotPass) != password {
			reason := "Authentication failed"
			c.Write(append(binary.BigEndian.AppendUint32([]byte{0, 0, 0, 1}, uint32(len(reason))), reason...))
			return false
		}
		c.Write([]byte{0, 0, 0, 0})
		return true
	}
}

func TestARD(t *testing.T) {
	s := startFake(t, 32, 32, ardServer("alice", "s3cret"), drain)
	c, err := Dial(context.Background(), s.addr(), &Config{Username: "alice", Password: "s3cret"})
	if err != nil {
		t.Fatalf("ARD with the right credentials: %v", err)
	}
	if got := c.Capabilities().Security; got != "ARD" {
		t.Errorf("security %q", got)
	}
	c.Close()

	s2 := startFake(t, 32, 32, ardServer("alice", "s3cret"), drain)
	_, err = Dial(context.Background(), s2.addr(), &Config{Username: "alice", Password: "wrong"})
	var ae *AuthError
	if !errors.As(err, &ae) || ae.Reason != "Authentication failed" {
		t.Fatalf("ARD with a wrong password: %v, want *AuthError with the server's reason", err)
	}
}

func TestVNCAuthResponse(t *testing.T) {
	// The same challenge and password always give the same answer, and the
	// password is cut at 8 bytes as VNC servers do.
	ch := []byte("0123456789abcdef")
	a := vncAuthResponse("password", ch)
	if !bytes.Equal(a, vncAuthResponse("password-and-more", ch)) {
		t.Error("password not cut at 8 bytes")
	}
	if bytes.Equal(a, vncAuthResponse("passwore", ch)) || len(a) != 16 {
		t.Error("response does not depend on the password")
	}
}
