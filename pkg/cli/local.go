package cli

import "github.com/dvvhq/dvv/pkg/client"

// writeLocal replaces path with data, only once all of it is written: a
// new 0600 file beside path, renamed over it, so a symlink or another
// user's file at path is replaced, never written through or into. The
// local files a request names are moved by the client itself
// (client.Options.InlineFiles).
func writeLocal(path string, data []byte) error { return client.WriteLocal(path, data, 0o600) }
