package rfb

import (
	"bufio"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
)

// VeNCrypt subtypes.
const (
	vcPlain     = 256
	vcTLSNone   = 257
	vcTLSVnc    = 258
	vcTLSPlain  = 259
	vcX509None  = 260
	vcX509Vnc   = 261
	vcX509Plain = 262
)

// TLSPolicy decides whether to trust a VeNCrypt server's certificate.
// VNC servers use self-signed certificates, so trust is pinned on first
// use by the caller rather than derived from a CA.
type TLSPolicy struct {
	// Verify receives the server's leaf certificate (DER). It returns nil
	// to trust it, or *UnknownCertError / *CertChangedError (see
	// Fingerprint). When Verify is nil the certificate must chain to the
	// system roots and match ServerName.
	Verify     func(certDER []byte) error
	ServerName string
}

// Fingerprint is the SHA-256 of a certificate as colon-separated upper-case
// hex, the form `openssl x509 -noout -fingerprint -sha256` prints.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	h := strings.ToUpper(hex.EncodeToString(sum[:]))
	var b strings.Builder
	for i := 0; i < len(h); i += 2 {
		if i > 0 {
			b.WriteByte(':')
		}
		b.WriteString(h[i : i+2])
	}
	return b.String()
}

// errAnonTLSOnly marks a VeNCrypt offer with only anonymous-TLS subtypes,
// so Dial can retry with another security type the server listed.
var errAnonTLSOnly = errors.New("anonymous TLS only")

// veNCrypt runs VeNCrypt's steps: agree on version 0.2, read the server's
// subtypes, choose the one the credentials complete, start TLS under it
// and authenticate as the subtype says.
func (h *handshake) veNCrypt() error {
	if err := h.veNCryptVersion(); err != nil {
		return err
	}
	subs, err := h.veNCryptSubtypes()
	if err != nil {
		return err
	}
	chosen, err := h.chooseSubtype(subs)
	if err != nil {
		return err
	}
	if err := h.startSubtype(chosen); err != nil {
		return err
	}
	if h.cfg.CertOnly {
		return protoErr("the certificate was accepted, but this connection was only to read it")
	}
	return subtypeAuth[chosen](h)
}

// veNCryptVersion agrees on VeNCrypt 0.2, the only version spoken.
func (h *handshake) veNCryptVersion() error {
	r := h.r
	major, minor := r.u8(), r.u8()
	if r.err != nil {
		return r.err
	}
	if major != 0 || minor < 2 {
		return &UnsupportedSecurityError{Offered: []string{"VeNCrypt " + string('0'+major) + "." + string('0'+minor)},
			Hint: "only VeNCrypt 0.2 is spoken"}
	}
	if err := h.write([]byte{0, 2}); err != nil {
		return err
	}
	if r.u8() != 0 {
		return protoErr("server refused VeNCrypt 0.2")
	}
	return r.err
}

// veNCryptSubtypes reads the subtypes the server offers.
func (h *handshake) veNCryptSubtypes() ([]uint32, error) {
	r := h.r
	n := int(r.u8())
	if r.err != nil {
		return nil, r.err
	}
	subs := make([]uint32, n)
	for i := range subs {
		subs[i] = r.u32()
	}
	return subs, r.err
}

// x509Preference is the order certificate subtypes are chosen in, each
// when the credentials given complete it: no password, no VNC password
// asked; a password, VncAuth before Plain (which also needs a user); and
// X509None whatever was given.
var x509Preference = []struct {
	subtype uint32
	fits    func(pw, user bool) bool
}{
	{vcX509None, func(pw, _ bool) bool { return !pw }},
	{vcX509Vnc, func(pw, _ bool) bool { return pw }},
	{vcX509Plain, func(pw, user bool) bool { return pw && user }},
	{vcX509None, func(bool, bool) bool { return true }},
}

// chooseSubtype picks the subtype to ask for: a certificate subtype the
// credentials complete, or Plain without TLS. Anonymous TLS alone is
// refused (Go's TLS has no anonymous Diffie-Hellman), marked so Dial can
// try another security type the server listed.
func (h *handshake) chooseSubtype(subs []uint32) (uint32, error) {
	if h.cfg.CertOnly {
		// Any certificate subtype reaches the TLS handshake, where the
		// policy's Verify takes the certificate and ends the connection
		// before any credential could be asked for.
		for _, t := range []uint32{vcX509None, vcX509Vnc, vcX509Plain} {
			if slices.Contains(subs, t) {
				return t, nil
			}
		}
	}
	pw, user := h.cfg.Password != "", h.cfg.Username != ""
	for _, p := range x509Preference {
		if slices.Contains(subs, p.subtype) && p.fits(pw, user) {
			return p.subtype, nil
		}
	}
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = SecurityName(s)
	}
	if slices.Contains(subs, vcX509Vnc) || slices.Contains(subs, vcX509Plain) {
		return 0, &AuthError{Reason: "the server requires credentials (" + strings.Join(names, ", ") + ") and none fit those given"}
	}
	if slices.Contains(subs, vcPlain) && pw && user {
		return vcPlain, nil // the server offers no TLS at all
	}
	e := &UnsupportedSecurityError{Offered: append([]string{"VeNCrypt"}, names...),
		Hint: "anonymous TLS (TLSNone/TLSVnc/TLSPlain) needs anonymous Diffie-Hellman, which Go's TLS lacks; " +
			"give the server a certificate, e.g. TigerVNC `-SecurityTypes X509Vnc -X509Cert cert.pem -X509Key key.pem` " +
			"(or add VncAuth to its SecurityTypes)"}
	return 0, &anonTLSError{e}
}

// startSubtype asks for the chosen subtype and, unless it is Plain,
// starts TLS once the server agrees.
func (h *handshake) startSubtype(chosen uint32) error {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], chosen)
	if err := h.write(b[:]); err != nil {
		return err
	}
	h.security = "VeNCrypt " + SecurityName(chosen)
	if chosen == vcPlain {
		return nil
	}
	r := h.r
	if ok := r.u8(); r.err != nil || ok != 1 {
		if r.err != nil {
			return r.err
		}
		return &ServerError{Reason: "the server could not start TLS"}
	}
	return h.startTLS()
}

// subtypeAuth is each subtype's authentication once TLS (if any) is up.
var subtypeAuth = map[uint32]func(h *handshake) error{
	vcX509None:  func(*handshake) error { return nil },
	vcX509Vnc:   (*handshake).vncAuth,
	vcX509Plain: (*handshake).plainAuth,
	vcPlain:     (*handshake).plainAuth,
}

// plainAuth sends the user name and password, their lengths first.
func (h *handshake) plainAuth() error {
	u, p := h.cfg.Username, h.cfg.Password
	msg := binary.BigEndian.AppendUint32(nil, uint32(len(u)))
	msg = binary.BigEndian.AppendUint32(msg, uint32(len(p)))
	return h.write(append(append(msg, u...), p...))
}

// anonTLSError is the unsupported-security error with a marker for Dial.
type anonTLSError struct{ *UnsupportedSecurityError }

func (e *anonTLSError) Unwrap() []error { return []error{e.UnsupportedSecurityError, errAnonTLSOnly} }

func (h *handshake) startTLS() error {
	if h.r.src.(*bufio.Reader).Buffered() > 0 {
		return protoErr("server sent data before the TLS handshake")
	}
	pol := h.cfg.TLS
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if pol != nil {
		tc.ServerName = pol.ServerName
	}
	if pol != nil && pol.Verify != nil {
		tc.InsecureSkipVerify = true // replaced by the pin check below
		tc.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return protoErr("TLS server sent no certificate")
			}
			return pol.Verify(cs.PeerCertificates[0].Raw)
		}
	}
	tconn := tls.Client(h.conn, tc)
	if err := tconn.Handshake(); err != nil {
		var unknown *UnknownCertError
		var changed *CertChangedError
		var pe *ProtocolError
		var ue x509.UnknownAuthorityError
		switch {
		case errors.As(err, &unknown), errors.As(err, &changed), errors.As(err, &pe):
			return err
		case errors.As(err, &ue) && ue.Cert != nil:
			return &UnknownCertError{Fingerprint: Fingerprint(ue.Cert.Raw), Subject: ue.Cert.Subject.String()}
		}
		return &ProtocolError{Msg: "TLS handshake", Err: err}
	}
	h.conn = tconn
	h.r = newReader(bufio.NewReaderSize(tconn, bufSize))
	return nil
}
