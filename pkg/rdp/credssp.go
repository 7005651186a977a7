package rdp

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"errors"
	"fmt"
	"io"
	"time"
)

// CredSSP (MS-CSSP) carries NTLM inside DER-encoded TSRequest messages over
// the TLS connection, binds the exchange to the TLS certificate's public key
// and finally hands the server the password.

const (
	credSSPVersion = 6
	// maxTSRequest bounds one TSRequest read from the server.
	maxTSRequest = 64 << 10
	// NTSTATUS values servers put in TSRequest.errorCode.
	statusLogonFailure    = 0xC000006D
	statusAccountLocked   = 0xC0000234
	statusPasswordExpired = 0xC0000071
	statusAccountDisabled = 0xC0000072
	statusWrongPassword   = 0xC000006A
	statusNoSuchUser      = 0xC0000064
)

type negoToken struct {
	Token []byte `asn1:"explicit,tag:0"`
}

// tsRequest is TSRequest (MS-CSSP 2.2.1).
type tsRequest struct {
	Version     int         `asn1:"explicit,tag:0"`
	NegoTokens  []negoToken `asn1:"explicit,optional,tag:1"`
	AuthInfo    []byte      `asn1:"explicit,optional,tag:2"`
	PubKeyAuth  []byte      `asn1:"explicit,optional,tag:3"`
	ErrorCode   int64       `asn1:"explicit,optional,tag:4"`
	ClientNonce []byte      `asn1:"explicit,optional,tag:5"`
}

type tsCredentials struct {
	CredType    int    `asn1:"explicit,tag:0"`
	Credentials []byte `asn1:"explicit,tag:1"`
}

type tsPasswordCreds struct {
	Domain   []byte `asn1:"explicit,tag:0"`
	User     []byte `asn1:"explicit,tag:1"`
	Password []byte `asn1:"explicit,tag:2"`
}

func marshalTSRequest(t *tsRequest) []byte {
	b, err := asn1.Marshal(*t)
	if err != nil {
		panic("rdp: TSRequest encoding: " + err.Error()) // only our own values reach here
	}
	return b
}

// parseTSRequest decodes one DER TSRequest.
func parseTSRequest(b []byte) (*tsRequest, error) {
	var t tsRequest
	rest, err := asn1.Unmarshal(b, &t)
	if err != nil {
		return nil, protoErr("CredSSP TSRequest", "%v", err)
	}
	if len(rest) != 0 {
		return nil, protoErr("CredSSP TSRequest", "%d trailing bytes", len(rest))
	}
	if len(t.NegoTokens) > 1 {
		return nil, protoErr("CredSSP TSRequest", "%d NTLM tokens, want at most 1", len(t.NegoTokens))
	}
	return &t, nil
}

// readDER reads one DER element (tag, length, value) from r, refusing
// lengths above max before allocating.
func readDER(r io.Reader, max int) ([]byte, error) {
	var hdr [2]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	if hdr[0] != 0x30 {
		return nil, protoErr("CredSSP TSRequest", "starts with tag 0x%02X, not a SEQUENCE", hdr[0])
	}
	out := []byte{hdr[0], hdr[1]}
	n := int(hdr[1])
	if hdr[1]&0x80 != 0 {
		k := int(hdr[1] & 0x7F)
		if k == 0 || k > 4 {
			return nil, protoErr("CredSSP TSRequest", "length of %d bytes", k)
		}
		lb := make([]byte, k)
		if _, err := io.ReadFull(r, lb); err != nil {
			return nil, unexpectedEOF(err)
		}
		out = append(out, lb...)
		n = 0
		for _, c := range lb {
			n = n<<8 | int(c)
		}
	}
	if n > max {
		return nil, protoErr("CredSSP TSRequest", "%d bytes is over the %d limit", n, max)
	}
	body := make([]byte, len(out)+n)
	copy(body, out)
	if _, err := io.ReadFull(r, body[len(out):]); err != nil {
		return nil, unexpectedEOF(err)
	}
	return body, nil
}

// subjectPublicKey extracts the subjectPublicKey BIT STRING contents from a
// DER certificate: what CredSSP binds the exchange to.
func subjectPublicKey(der []byte) ([]byte, error) {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, protoErr("TLS certificate", "%v", err)
	}
	var spki struct {
		Algo      asn1.RawValue
		PublicKey asn1.BitString
	}
	if _, err := asn1.Unmarshal(cert.RawSubjectPublicKeyInfo, &spki); err != nil {
		return nil, protoErr("TLS certificate public key", "%v", err)
	}
	return spki.PublicKey.Bytes, nil
}

func credSSPHash(magic string, nonce, pub []byte) []byte {
	h := sha256.New()
	h.Write([]byte(magic))
	h.Write(nonce)
	h.Write(pub)
	return h.Sum(nil)
}

const (
	clientServerHashMagic = "CredSSP Client-To-Server Binding Hash\x00"
	serverClientHashMagic = "CredSSP Server-To-Client Binding Hash\x00"
)

// credSSP runs NLA over rw (the TLS connection) with the server's
// certificate public key.
func credSSP(rw io.ReadWriter, pubKey []byte, user, domain, password string) error {
	neg := ntlmNegotiateMessage()
	if _, err := rw.Write(marshalTSRequest(&tsRequest{Version: credSSPVersion, NegoTokens: []negoToken{{neg}}})); err != nil {
		return err
	}
	resp, err := readTSRequest(rw, "NTLM challenge")
	if err != nil {
		return err
	}
	if len(resp.NegoTokens) != 1 {
		return protoErr("CredSSP TSRequest", "no NTLM challenge token")
	}
	ch, err := parseNTLMChallenge(resp.NegoTokens[0].Token)
	if err != nil {
		return err
	}
	peerVersion := resp.Version
	auth, err := ntlmAuthenticate(neg, ch, user, domain, password, time.Now())
	if err != nil {
		return err
	}
	req := &tsRequest{Version: credSSPVersion, NegoTokens: []negoToken{{auth.Message}}}
	var nonce []byte
	if peerVersion >= 5 {
		nonce = make([]byte, 32)
		if _, err := rand.Read(nonce); err != nil {
			return err
		}
		req.ClientNonce = nonce
		req.PubKeyAuth = auth.seal(credSSPHash(clientServerHashMagic, nonce, pubKey))
	} else {
		req.PubKeyAuth = auth.seal(pubKey)
	}
	if _, err := rw.Write(marshalTSRequest(req)); err != nil {
		return err
	}
	resp, err = readTSRequest(rw, "public key check")
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || isConnReset(err) {
		// Servers that do not send an error code just hang up on a user
		// they refuse.
		return &AuthError{Msg: "the server closed the connection after our credentials (wrong user name or password?)"}
	}
	if err != nil {
		return err
	}
	if len(resp.PubKeyAuth) == 0 {
		return protoErr("CredSSP TSRequest", "no pubKeyAuth in the server's answer")
	}
	got, err := auth.unseal(resp.PubKeyAuth)
	if err != nil {
		return err
	}
	var want []byte
	if peerVersion >= 5 {
		want = credSSPHash(serverClientHashMagic, nonce, pubKey)
	} else {
		want = append([]byte{}, pubKey...)
		if len(want) > 0 {
			want[0]++
		}
	}
	if !bytes.Equal(got, want) {
		return &AuthError{Msg: "the server's public key proof does not match its TLS certificate (possible interception)"}
	}
	creds, err := asn1.Marshal(tsPasswordCreds{Domain: utf16le(domain), User: utf16le(user), Password: utf16le(password)})
	if err != nil {
		return err
	}
	outer, err := asn1.Marshal(tsCredentials{CredType: 1, Credentials: creds})
	if err != nil {
		return err
	}
	_, err = rw.Write(marshalTSRequest(&tsRequest{Version: credSSPVersion, AuthInfo: auth.seal(outer)}))
	return err
}

// readTSRequest reads the server's next TSRequest and turns an errorCode
// into an AuthError.
func readTSRequest(r io.Reader, step string) (*tsRequest, error) {
	b, err := readDER(r, maxTSRequest)
	if err != nil {
		return nil, err
	}
	t, err := parseTSRequest(b)
	if err != nil {
		return nil, err
	}
	if t.ErrorCode != 0 {
		return nil, statusError(uint32(t.ErrorCode), step)
	}
	return t, nil
}

func statusError(st uint32, step string) error {
	msg := "the server refused the credentials"
	switch st {
	case statusLogonFailure, statusWrongPassword, statusNoSuchUser:
		msg = "wrong user name or password"
	case statusAccountLocked:
		msg = "the account is locked out"
	case statusPasswordExpired:
		msg = "the password has expired; change it on the server"
	case statusAccountDisabled:
		msg = "the account is disabled"
	}
	return &AuthError{Msg: fmt.Sprintf("%s (at the %s step)", msg, step), Status: st}
}
