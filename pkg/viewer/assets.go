package viewer

import (
	"embed"
	"io/fs"
)

// The pages and scripts are ours; dist/ is produced by `make web` from
// npm packages (noVNC, xterm.js) and is not in the repository. A build
// without it still serves the pages, which then say what is missing.
//
//go:embed all:assets
var embedded embed.FS

func assetFS() fs.FS {
	sub, _ := fs.Sub(embedded, "assets")
	return sub
}
