//go:build !darwin

package keychain

// Open connects to the keychain now, and fails with *UnavailableError when
// there is none. The returned Keychain reconnects by itself if the bus or
// the provider restarts.
func Open() (Keychain, error) {
	s := &secretService{}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.ensure(); err != nil {
		return nil, err
	}
	if _, err := s.defaultCollection(); err != nil {
		s.reset()
		return nil, err
	}
	return s, nil
}
