package rfb

import (
	"crypto/aes"
	"crypto/md5"
	"crypto/rand"
	"math/big"
)

// Apple Remote Desktop authentication (security type 30): an anonymous
// Diffie-Hellman exchange whose MD5-hashed secret keys AES-128-ECB over the
// user name and password, 64 bytes each.

const maxARDKeyLen = 1024 // 8192-bit groups; Apple uses 128 bytes

func (h *handshake) ard() error {
	r := h.r
	gen := r.u16()
	keyLen := int(r.u16())
	if r.err != nil {
		return r.err
	}
	if keyLen == 0 || keyLen > maxARDKeyLen {
		return protoErr("ARD key length %d", keyLen)
	}
	prime := new(big.Int).SetBytes(r.bytes(keyLen))
	peer := new(big.Int).SetBytes(r.bytes(keyLen))
	if r.err != nil {
		return r.err
	}
	one := big.NewInt(1)
	pm1 := new(big.Int).Sub(prime, one)
	if prime.Cmp(big.NewInt(3)) < 0 || prime.Bit(0) == 0 || peer.Cmp(one) <= 0 || peer.Cmp(pm1) >= 0 {
		return protoErr("ARD Diffie-Hellman parameters out of range")
	}
	if len(h.cfg.Username) > 63 || len(h.cfg.Password) > 63 {
		return &AuthError{Reason: "ARD user names and passwords are limited to 63 bytes"}
	}
	resp, err := ardResponse(big.NewInt(int64(gen)), prime, peer, keyLen, h.cfg.Username, h.cfg.Password)
	if err != nil {
		return err
	}
	return h.write(resp)
}

// ardResponse builds the client's answer: the encrypted credentials then
// our public key, both as the server expects them.
func ardResponse(gen, prime, peer *big.Int, keyLen int, user, password string) ([]byte, error) {
	privBytes := make([]byte, keyLen)
	if _, err := rand.Read(privBytes); err != nil {
		return nil, err
	}
	priv := new(big.Int).SetBytes(privBytes)
	pub := new(big.Int).Exp(gen, priv, prime)
	secret := new(big.Int).Exp(peer, priv, prime)
	key := md5.Sum(secret.FillBytes(make([]byte, keyLen)))

	creds := make([]byte, 128)
	if _, err := rand.Read(creds); err != nil {
		return nil, err
	}
	copy(creds[:64], user+"\x00")
	copy(creds[64:], password+"\x00")
	block, _ := aes.NewCipher(key[:])
	for i := 0; i < len(creds); i += aes.BlockSize {
		block.Encrypt(creds[i:i+aes.BlockSize], creds[i:i+aes.BlockSize])
	}
	return append(creds, pub.FillBytes(make([]byte, keyLen))...), nil
}
