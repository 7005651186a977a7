package redact

// Find lists the secrets in b, in order of offset.
func (s *Scanner) Find(b []byte) []Finding {
	var fs []Finding
	for _, sp := range s.spans(b) {
		fs = append(fs, Finding{Kind: sp.kind, Offset: sp.start})
	}
	return fs
}
