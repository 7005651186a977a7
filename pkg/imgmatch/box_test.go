package imgmatch

import (
	"image"
)

// Box is the matched rectangle.
func (m Match) Box(t *Template) image.Rectangle { return image.Rect(0, 0, t.w, t.h).Add(m.At) }
