package sshx

import (
	"context"
	"fmt"

	"golang.org/x/crypto/ssh"
)

// TrustResult is what TrustIf recorded.
type TrustResult struct {
	Fingerprint string
	KeyType     string
	File        string
	Hashed      bool
	Already     bool // the key was trusted already; nothing was written
}

// TrustIf fetches the host key that o's endpoint presents and appends it
// to the first known_hosts file, hashed when HashKnownHosts says so
// (OpenSSH's own default is plain). A key that differs from a recorded one
// is not replaced: that is a HostKeyError with Changed set. It first asks
// accept about the presented key's fingerprint, with already true when
// known_hosts holds it: a non-nil answer is returned and nothing is
// written. accept sees the very key that
// would be written, so a server cannot swap it between check and write.
func TrustIf(ctx context.Context, o Options, accept func(fingerprint string, already bool) error) (*TrustResult, error) {
	ep, key, err, fetchErr := presentedKey(ctx, o)
	if fetchErr != nil {
		return nil, fetchErr
	}
	res := &TrustResult{Fingerprint: ssh.FingerprintSHA256(key), KeyType: key.Type(), File: ep.KnownHosts[0], Hashed: ep.HashKnownHosts}
	if he, ok := err.(*HostKeyError); err != nil && (!ok || he.Changed) {
		return nil, err
	}
	if accept != nil {
		if aerr := accept(res.Fingerprint, err == nil); aerr != nil {
			return nil, aerr
		}
	}
	if err == nil {
		res.Already = true
		return res, nil
	}
	if err := AppendKnownHost(res.File, ep.HostName, ep.Port, key, ep.HashKnownHosts); err != nil {
		return nil, fmt.Errorf("writing %s: %w", res.File, err)
	}
	return res, nil
}
