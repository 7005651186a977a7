package rfb

import (
	"crypto/des"
	"fmt"
	"math/bits"
)

// Security types.
const (
	secInvalid  = 0
	secNone     = 1
	secVNCAuth  = 2
	secTight    = 16
	secVeNCrypt = 19
	secARD      = 30
)

// SecurityName names a security type (or VeNCrypt subtype) for messages.
func SecurityName(t uint32) string {
	switch t {
	case secNone:
		return "None"
	case secVNCAuth:
		return "VncAuth"
	case 5:
		return "RA2"
	case 6:
		return "RA2ne"
	case secTight:
		return "Tight"
	case 17:
		return "Ultra"
	case 18:
		return "TLS"
	case secVeNCrypt:
		return "VeNCrypt"
	case 20:
		return "SASL"
	case 21:
		return "MD5"
	case secARD:
		return "ARD"
	case vcPlain:
		return "Plain"
	case vcTLSNone:
		return "TLSNone"
	case vcTLSVnc:
		return "TLSVnc"
	case vcTLSPlain:
		return "TLSPlain"
	case vcX509None:
		return "X509None"
	case vcX509Vnc:
		return "X509Vnc"
	case vcX509Plain:
		return "X509Plain"
	}
	return fmt.Sprintf("type %d", t)
}

// chooseSecurity picks the strongest type we can complete with the
// credentials given: VeNCrypt (TLS with a certificate), then ARD, then VNC
// authentication, then None. A server that offers None is used without
// credentials when none were given.
func chooseSecurity(offered []byte, cfg *Config, avoidVeNCrypt bool) (byte, error) {
	has := func(t byte) bool {
		for _, o := range offered {
			if o == t {
				return true
			}
		}
		return false
	}
	if cfg.Password == "" && has(secNone) {
		return secNone, nil
	}
	if has(secVeNCrypt) && !avoidVeNCrypt {
		return secVeNCrypt, nil
	}
	if has(secARD) && cfg.Username != "" {
		return secARD, nil
	}
	if has(secVNCAuth) && cfg.Password != "" {
		return secVNCAuth, nil
	}
	if has(secNone) {
		return secNone, nil
	}
	if has(secVNCAuth) || has(secARD) {
		what := "a VNC password"
		if !has(secVNCAuth) {
			what = "a user name and password (Apple Remote Desktop)"
		}
		return 0, &AuthError{Reason: "the server requires " + what + " and none was given"}
	}
	names := make([]string, len(offered))
	for i, o := range offered {
		names[i] = SecurityName(uint32(o))
	}
	return 0, &UnsupportedSecurityError{Offered: names,
		Hint: "configure the server for None, VncAuth, VeNCrypt with X509 certificates, or ARD"}
}

// vncAuthResponse encrypts the 16-byte challenge with DES keyed by the
// password, each key byte bit-reversed as VNC's historical DES does.
func vncAuthResponse(password string, challenge []byte) []byte {
	var key [8]byte
	copy(key[:], password)
	for i, b := range key {
		key[i] = bits.Reverse8(b)
	}
	c, _ := des.NewCipher(key[:]) // 8-byte key: cannot fail
	out := make([]byte, 16)
	c.Encrypt(out[:8], challenge[:8])
	c.Encrypt(out[8:], challenge[8:16])
	return out
}
