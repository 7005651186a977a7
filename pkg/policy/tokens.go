package policy

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dvvhq/dvv/pkg/hosts/configfile"
	"github.com/dvvhq/dvv/pkg/wire"
)

// TokenPrefix starts every token secret, so one is recognisable in a leak
// scan and never mistaken for a host password.
const TokenPrefix = "dvv_"

// tokenBytes is the secret's entropy. With 256 random bits a plain SHA-256
// is a sound verifier: there is nothing to brute-force, so a slow password
// hash would add cost and no safety.
const tokenBytes = 32

// tokensVersion is the tokens.json format version this build writes.
const tokensVersion = 1

// ErrBadToken is returned by Verify for an unknown, revoked or malformed
// token. The daemon answers it POLICY_DENIED.
var ErrBadToken = errors.New("token not recognised (unknown, revoked or mistyped); ask the owner for a new one: dvv token create")

// ErrNotFound is returned by Revoke for an id that names no token. The
// daemon answers it NOT_FOUND.
var ErrNotFound = errors.New("no such token")

// TokenInfo describes a token without its secret.
type TokenInfo struct {
	ID      string       `json:"id"`
	Role    string       `json:"role"`
	Caps    []Capability `json:"caps,omitempty"` // named on the token, beyond the role's bundle
	Created int64        `json:"created"`        // unix milliseconds
	Label   string       `json:"label,omitempty"`
}

// Wire converts to the socket's shape. Caps there are the extra
// capabilities as created; the role's bundle is documented, not repeated.
func (t TokenInfo) Wire() wire.TokenInfo {
	cs := make([]string, len(t.Caps))
	for i, c := range t.Caps {
		cs[i] = string(c)
	}
	return wire.TokenInfo{ID: t.ID, Role: t.Role, Caps: cs, Created: t.Created, Label: t.Label}
}

// storedToken is one entry of tokens.json: the info plus the hash.
type storedToken struct {
	TokenInfo
	Hash string `json:"sha256"` // hex SHA-256 of the whole secret string
}

type tokensFile struct {
	Version int           `json:"version"`
	Tokens  []storedToken `json:"tokens"`
}

// TokenStore keeps tokens in a file, hashed. It is safe for concurrent use,
// and re-reads the file when another process changed it, so a revoke by one
// dvvd takes effect in another sharing the file.
type TokenStore struct {
	path string

	mu     sync.Mutex
	tokens []storedToken
	hashes [][]byte // decoded Hash of each token (nil when malformed)
	stamp  fileStamp
}

// fileStamp tells whether the file changed since it was read. Every write
// is a rename of a new file, so the inode alone changes on each; size and
// time are kept for file systems that reuse inodes.
type fileStamp struct {
	ino     uint64
	size    int64
	modTime time.Time
	ok      bool
}

// DefaultTokenPath is $XDG_CONFIG_HOME/dvv/tokens.json.
func DefaultTokenPath() string { return filepath.Join(configfile.Dir(), "tokens.json") }

// OpenTokenStore reads the token file at path (missing is an empty store).
func OpenTokenStore(path string) (*TokenStore, error) {
	s := &TokenStore{path: path}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

func stampOf(path string) fileStamp {
	st, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	fs := fileStamp{size: st.Size(), modTime: st.ModTime(), ok: true}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		fs.ino = uint64(sys.Ino)
	}
	return fs
}

// load reads the file; s.mu is held.
func (s *TokenStore) load() error {
	stamp := stampOf(s.path)
	b, err := configfile.Read(s.path)
	if err != nil {
		return fmt.Errorf("read tokens: %w", err)
	}
	var f tokensFile
	if len(b) > 0 {
		if err := json.Unmarshal(b, &f); err != nil {
			return fmt.Errorf("%s is not a dvv token file (%v); move it away to start afresh (every token is then void)", s.path, err)
		}
		if f.Version > tokensVersion {
			return fmt.Errorf("%s has format version %d, newer than this dvv (%d); upgrade dvv", s.path, f.Version, tokensVersion)
		}
	}
	s.tokens = f.Tokens
	s.decodeHashes()
	s.stamp = stamp
	return nil
}

// decodeHashes keeps the binary hashes beside the tokens; s.mu is held.
func (s *TokenStore) decodeHashes() {
	s.hashes = make([][]byte, len(s.tokens))
	for i, t := range s.tokens {
		if h, err := hex.DecodeString(t.Hash); err == nil && len(h) == sha256.Size {
			s.hashes[i] = h
		}
	}
}

// refresh re-reads the file if it changed since the last read; s.mu is held.
func (s *TokenStore) refresh() error {
	if stampOf(s.path) == s.stamp {
		return nil
	}
	return s.load()
}

// modify runs a read-modify-write cycle under the file lock.
func (s *TokenStore) modify(change func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	release, err := configfile.Lock(s.path)
	if err != nil {
		return err
	}
	defer release()
	if err := s.load(); err != nil {
		return err
	}
	before := append([]storedToken(nil), s.tokens...)
	defer s.decodeHashes()
	if err := change(); err != nil {
		s.tokens = before
		return err
	}
	b, err := json.MarshalIndent(tokensFile{Version: tokensVersion, Tokens: s.tokens}, "", "  ")
	if err != nil {
		s.tokens = before
		return err
	}
	if err := configfile.WriteAtomic(s.path, append(b, '\n')); err != nil {
		s.tokens = before
		return fmt.Errorf("write tokens: %w", err)
	}
	s.stamp = stampOf(s.path)
	return nil
}

func hashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// Create makes a token for a role plus extra capabilities. The secret is
// returned once and never stored; only its hash is written.
func (s *TokenStore) Create(role string, extra []Capability, label string) (secret string, info TokenInfo, err error) {
	if _, err := NewGrant(role, extra, ""); err != nil {
		return "", TokenInfo{}, err
	}
	if len(label) > 200 || strings.ContainsAny(label, "\n\r\x00") {
		return "", TokenInfo{}, wire.Errorf(wire.BadRequest, "a token label is one line of at most 200 bytes")
	}
	raw := make([]byte, tokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", TokenInfo{}, err
	}
	secret = TokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	info = TokenInfo{Role: role, Caps: dedupCaps(extra), Created: time.Now().UnixMilli(), Label: label}
	err = s.modify(func() error {
		for {
			id := make([]byte, 4)
			if _, err := rand.Read(id); err != nil {
				return err
			}
			info.ID = "tok-" + hex.EncodeToString(id)
			if s.find(info.ID) < 0 {
				break
			}
		}
		s.tokens = append(s.tokens, storedToken{TokenInfo: info, Hash: hashSecret(secret)})
		return nil
	})
	if err != nil {
		return "", TokenInfo{}, err
	}
	return secret, info, nil
}

func dedupCaps(cs []Capability) []Capability {
	seen := map[Capability]bool{}
	out := []Capability{}
	for _, c := range cs {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (s *TokenStore) find(id string) int {
	for i, t := range s.tokens {
		if t.ID == id {
			return i
		}
	}
	return -1
}

// List returns every live token, oldest first, without secrets.
func (s *TokenStore) List() []TokenInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh() // on a read error keep what was known
	out := make([]TokenInfo, len(s.tokens))
	for i, t := range s.tokens {
		out[i] = t.TokenInfo
		out[i].Caps = append([]Capability(nil), t.Caps...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Created < out[j].Created })
	return out
}

// Revoke deletes a token; its secret is void at once, here and in any other
// dvvd sharing the file (see Valid).
func (s *TokenStore) Revoke(id string) error {
	return s.modify(func() error {
		i := s.find(id)
		if i < 0 {
			return fmt.Errorf("%w: %q (dvv token ls lists them)", ErrNotFound, id)
		}
		s.tokens = append(s.tokens[:i], s.tokens[i+1:]...)
		return nil
	})
}

// Verify turns a presented secret into its grant. Every stored hash is
// compared in constant time, all of them, so timing says nothing about
// which (or whether one) matched.
func (s *TokenStore) Verify(secret string) (Grant, error) {
	if !strings.HasPrefix(secret, TokenPrefix) || len(secret) > 256 {
		return Grant{}, ErrBadToken
	}
	want := sha256.Sum256([]byte(secret))
	s.mu.Lock()
	if err := s.refresh(); err != nil {
		s.mu.Unlock()
		return Grant{}, err
	}
	match := -1
	for i, got := range s.hashes {
		if got != nil && subtle.ConstantTimeCompare(got, want[:]) == 1 {
			match = i
		}
	}
	var info TokenInfo
	if match >= 0 {
		info = s.tokens[match].TokenInfo
	}
	s.mu.Unlock()
	if match < 0 {
		return Grant{}, ErrBadToken
	}
	return NewGrant(info.Role, info.Caps, info.ID)
}

// Valid reports whether a token id is still live. The daemon checks it
// before each op of a token-bearing attachment, so a revoke cuts off an
// attachment that is already connected.
func (s *TokenStore) Valid(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_ = s.refresh()
	return s.find(id) >= 0
}
