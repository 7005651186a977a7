package sshx

import (
	"context"

	"golang.org/x/crypto/ssh"
)

// CheckTrust fetches the host key that o's endpoint presents and compares
// it with known_hosts without writing anything: nil when it is trusted, a
// *HostKeyError when it is unknown or changed, another error when the
// server could not be asked.
func CheckTrust(ctx context.Context, o Options) (fingerprint string, err error) {
	_, key, checkErr, err := presentedKey(ctx, o)
	if err != nil {
		return "", err
	}
	return ssh.FingerprintSHA256(key), checkErr
}

// presentedKey resolves o, fetches the key its server presents (asking for
// a recorded key type first, so a host already trusted under one type is
// compared like for like) and checks it against known_hosts; checkErr is
// that check's verdict, err a failure to get that far.
func presentedKey(ctx context.Context, o Options) (ep *Endpoint, key ssh.PublicKey, checkErr, err error) {
	ep, err = Resolve(o)
	if err != nil {
		return nil, nil, nil, err
	}
	checker, err := newHostKeyChecker(ep.KnownHosts)
	if err != nil {
		return nil, nil, nil, err
	}
	key, err = FetchHostKey(ctx, ep.HostName, ep.Port, checker.knownAlgorithms(ep.Addr(), fakeAddr(ep.Addr())))
	if err != nil {
		return nil, nil, nil, err
	}
	return ep, key, checker.check(ep.Addr(), fakeAddr(ep.Addr()), key), nil
}
