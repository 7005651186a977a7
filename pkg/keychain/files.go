package keychain

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Passwords for machines where no desktop keyring runs (a headless server,
// a container), in the conventions server people already use:
//
//   - a credentials file read only by dvvd, like ~/.pgpass: one
//     "HOST:PASSWORD" line per saved host (its name or id; the password is
//     the rest of the line), refused unless it is this user's, not a
//     symlink, and closed to group and others (chmod 600);
//   - systemd credentials: LoadCredential=dvv-HOST:/path in the unit puts
//     a file named dvv-HOST in $CREDENTIALS_DIRECTORY.
//
// Both are read on every lookup, so an edit applies without a restart.
// dvvd writes the credentials file only for a host's password: `dvv hosts
// add --password-stdin` when no keychain answers (SetWhere) replaces the
// host's line, and when a keychain does take it the host's line is
// dropped; other lines are kept as they were. The systemd directory is
// read-only. No error from here carries a line of the file.

// CredentialsPath is $XDG_CONFIG_HOME/dvv/credentials (~/.config/dvv/credentials).
func CredentialsPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "dvv", "credentials")
}

// Names gives the names a host id is known by (its saved name and the id),
// the keys the files use.
type Names func(hostID string) []string

// credentialsFile is the ~/.pgpass-style file.
type credentialsFile struct {
	path  string
	names Names
}

func (c *credentialsFile) lookup(hostID string) (string, bool, error) {
	f, err := openPrivate(c.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	want := map[string]bool{}
	for _, n := range c.names(hostID) {
		want[n] = true
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 64<<10)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		host, secret, ok := strings.Cut(text, ":")
		if !ok {
			return "", false, &UnavailableError{Reason: fmt.Sprintf("%s line %d has no ':' between the host and the password", c.path, line),
				Fix: "Write one HOST:PASSWORD line per saved host"}
		}
		if want[strings.TrimSpace(host)] {
			return secret, true, nil
		}
	}
	if sc.Err() != nil {
		return "", false, &UnavailableError{Reason: fmt.Sprintf("cannot read %s (a line over 64 KiB?)", c.path), Fix: "Keep one HOST:PASSWORD per line"}
	}
	return "", false, nil
}

// store writes the host's line (its first name:secret) into the file,
// replacing any line for one of names.
func (c *credentialsFile) store(names []string, secret string) error {
	return c.rewrite(names, names[0]+":"+secret)
}

// drop removes the lines for names from the file (best effort: the
// keychain now holds the secret, and a line left would be read first).
func (c *credentialsFile) drop(names []string) {
	c.rewrite(names, "")
}

// rewrite keeps every line of the file but those for names, and adds line
// (unless empty). The new file is written beside the old one (mode 0600)
// and renamed over it, so a reader never sees half of it and a symlink
// planted at the path is replaced, not followed; an existing file must
// pass openPrivate's rules first.
func (c *credentialsFile) rewrite(names []string, line string) error {
	var kept []string
	f, err := openPrivate(c.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 4096), 64<<10)
		for sc.Scan() {
			text := strings.TrimRight(sc.Text(), "\r")
			host, _, _ := strings.Cut(text, ":")
			if strings.HasPrefix(strings.TrimSpace(text), "#") || !slices.Contains(names, strings.TrimSpace(host)) {
				kept = append(kept, text)
			}
		}
		f.Close()
		if sc.Err() != nil {
			return &UnavailableError{Reason: fmt.Sprintf("cannot read %s (a line over 64 KiB?)", c.path), Fix: "Keep one HOST:PASSWORD per line"}
		}
	}
	if line != "" {
		kept = append(kept, line)
	}
	dir := filepath.Dir(c.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return &UnavailableError{Reason: fmt.Sprintf("cannot create %s", dir), Fix: "Create it, mode 0700"}
	}
	tmp, err := os.CreateTemp(dir, ".credentials-*") // mode 0600
	if err != nil {
		return &UnavailableError{Reason: fmt.Sprintf("cannot write in %s", dir), Fix: "Make it writable by you"}
	}
	defer os.Remove(tmp.Name()) // gone once renamed; removes a failed attempt
	out := strings.Join(kept, "\n")
	if len(kept) > 0 {
		out += "\n"
	}
	_, werr := tmp.WriteString(out)
	if serr := tmp.Sync(); werr == nil {
		werr = serr
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), c.path)
	}
	if werr != nil {
		return &UnavailableError{Reason: fmt.Sprintf("cannot write %s", c.path), Fix: "Check the disk and the directory's permissions"}
	}
	return nil
}

// openPrivate opens path only when it is a regular file of this user that
// group and others cannot read: a password file anyone else could read (or
// swap) is refused, as ssh and psql refuse theirs.
func openPrivate(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &UnavailableError{Reason: path + " is not a regular file (a symlink?); refusing it", Fix: "Replace it with a plain file, mode 0600"}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, &UnavailableError{Reason: fmt.Sprintf("%s belongs to uid %d, not to you; refusing it", path, st.Uid), Fix: "Use a file of your own, mode 0600"}
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, &UnavailableError{Reason: fmt.Sprintf("%s has mode %04o, readable beyond you; refusing it", path, fi.Mode().Perm()),
			Fix: "chmod 600 " + path}
	}
	return os.Open(path)
}

// credentialsDir is systemd's $CREDENTIALS_DIRECTORY: one file per secret,
// named dvv-HOST.
type credentialsDir struct {
	dir   string
	names Names
}

func (c *credentialsDir) lookup(hostID string) (string, bool, error) {
	for _, n := range c.names(hostID) {
		if n == "" || strings.ContainsAny(n, "/\x00") || n == "." || n == ".." {
			continue
		}
		b, err := os.ReadFile(filepath.Join(c.dir, "dvv-"+n))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", false, &UnavailableError{Reason: fmt.Sprintf("cannot read the credential dvv-%s in %s", n, c.dir), Fix: "Check LoadCredential= in the unit"}
		}
		return strings.TrimRight(string(b), "\r\n"), true, nil
	}
	return "", false, nil
}

// source is one read-only place secrets come from.
type source interface {
	lookup(hostID string) (secret string, found bool, err error)
}

// WithFiles puts the credentials file at path (CredentialsPath() when
// empty) and, when dvvd runs under systemd with credentials,
// $CREDENTIALS_DIRECTORY in front of kc: Get reads them first, then kc;
// Set and Delete go to kc (nil kc: no keychain at all, files only).
func WithFiles(kc Keychain, path string, names Names) Keychain {
	if path == "" {
		path = CredentialsPath()
	}
	if names == nil {
		names = func(id string) []string { return []string{id} }
	}
	l := &layered{kc: kc, sources: []source{&credentialsFile{path: path, names: names}}}
	if d := os.Getenv("CREDENTIALS_DIRECTORY"); filepath.IsAbs(d) {
		l.sources = append(l.sources, &credentialsDir{dir: d, names: names})
	}
	return l
}

// layered reads the files first, then the keychain.
type layered struct {
	kc      Keychain
	sources []source
}

func (l *layered) Get(hostID string) (string, error) {
	if err := checkHostID(hostID); err != nil {
		return "", err
	}
	for _, s := range l.sources {
		secret, found, err := s.lookup(hostID)
		if err != nil {
			return "", err
		}
		if found {
			return secret, nil
		}
	}
	if l.kc == nil {
		return "", ErrNotFound
	}
	return l.kc.Get(hostID)
}

func (l *layered) Has(hostID string) bool {
	for _, s := range l.sources {
		if _, found, err := s.lookup(hostID); found && err == nil {
			return true
		}
	}
	return l.kc != nil && l.kc.Has(hostID)
}

func (l *layered) Set(hostID, label, secret string) error {
	_, err := l.SetWhere(hostID, label, secret)
	return err
}

// InFile is SetWhere's answer when the secret went to the credentials file.
const InFile = "file"

// SetWhere stores the secret in the keychain; when no keychain answers
// (none configured, no session bus, no Secret Service), in the credentials
// file, as the host's name (its first name), mode 0600. It says where:
// "keychain", or InFile. A line the file held for the host is dropped when
// the keychain takes the secret, since the file is read first.
func (l *layered) SetWhere(hostID, label, secret string) (string, error) {
	if err := checkHostID(hostID); err != nil {
		return "", err
	}
	file := l.file()
	if l.kc != nil {
		err := l.kc.Set(hostID, label, secret)
		var ue *UnavailableError
		switch {
		case err == nil:
			if file != nil {
				if _, found, ferr := file.lookup(hostID); found && ferr == nil {
					file.drop(l.namesOf(hostID))
				}
			}
			return "keychain", nil
		case !errors.As(err, &ue):
			return "", err
		}
	}
	if file == nil {
		return "", &UnavailableError{Reason: "no keychain is configured", Fix: "Put a HOST:PASSWORD line in " + CredentialsPath() + " (mode 0600) instead"}
	}
	if strings.ContainsAny(secret, "\r\n\x00") {
		return "", &UnavailableError{Reason: "no keychain answered, and a password with a line break cannot go to the credentials file", Fix: "Start a Secret Service provider (e.g. gnome-keyring) for dvvd"}
	}
	if err := file.store(l.namesOf(hostID), secret); err != nil {
		return "", err
	}
	return InFile, nil
}

// file is the credentials file among the sources.
func (l *layered) file() *credentialsFile {
	for _, s := range l.sources {
		if f, ok := s.(*credentialsFile); ok {
			return f
		}
	}
	return nil
}

func (l *layered) namesOf(hostID string) []string {
	if f := l.file(); f != nil {
		if n := f.names(hostID); len(n) > 0 {
			return n
		}
	}
	return []string{hostID}
}

func (l *layered) Delete(hostID string) error {
	return l.DeleteNamed(hostID, l.namesOf(hostID))
}

// DeleteNamed forgets a host's secret when the host (and so the names its
// credentials-file line goes by) may already be gone: its line is dropped
// from the file, then the keychain's entry deleted. A keychain that does
// not answer is no error when the file held the secret, as it does on a
// machine where no keychain answered hosts add.
func (l *layered) DeleteNamed(hostID string, names []string) error {
	inFile := false
	if f := l.file(); f != nil && len(names) > 0 {
		for _, n := range names {
			if _, found, err := f.lookup(n); found && err == nil {
				inFile = true
			}
		}
		if inFile {
			f.drop(names)
		}
	}
	if l.kc == nil {
		return nil
	}
	err := l.kc.Delete(hostID)
	var ue *UnavailableError
	if inFile && errors.As(err, &ue) {
		return nil
	}
	return err
}
