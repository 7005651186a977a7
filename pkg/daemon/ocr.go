package daemon

import (
	"sync"

	"github.com/dvvhq/dvv/pkg/ocr"
)

// textReaders holds a desktop limb's text readers, made on first use.
type textReaders struct {
	mu sync.Mutex
	by map[string]*ocr.Reader
}
