package vtscreen

import (
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// guard registers handlers that run before the emulator's own (x/vt calls
// the last registered first, and the next when one answers false): they
// clamp counts in place and watch the scroll margins, then pass on.
func (s *Screen) guard() {
	e := s.emu
	dims := func() int { return max(e.Width(), e.Height()) + 1 }
	// Every count beyond the grid's largest side does what that side does:
	// a move stops at the edge, an erase, insert, delete or scroll of more
	// than the line or region clears it, a tab past the last stop stays.
	for _, final := range "@ABCDEFGILMPSTXZ`ade" {
		e.RegisterCsiHandler(int(final), clampFirst(dims))
	}
	// REP prints its character n times. Once n covers the screen and a
	// line more, every row in reach is that character and the cursor's
	// column repeats every width characters (REP repeats only one-cell
	// ASCII): n and any larger n' with n' ≡ n (mod width) give one screen.
	e.RegisterCsiHandler('b', func(p ansi.Params) bool {
		w := e.Width()
		floor := w * (e.Height() + 2)
		if n := first(p); n > floor {
			setFirst(p, floor+(n-floor)%w)
		}
		return false
	})
	e.RegisterCsiHandler('r', func(p ansi.Params) bool { // DECSTBM
		top, _, _ := p.Param(0, 1)
		top = max(top, 1)
		bottom, _, _ := p.Param(1, e.Height())
		if bottom < 1 {
			bottom = e.Height()
		}
		if top < bottom {
			s.margins.vertical[alt(e.IsAltScreen())] = !(top == 1 && bottom == e.Height())
		}
		return false
	})
	e.RegisterCsiHandler('s', func(p ansi.Params) bool { // DECSLRM when DECLRMM is set; SCOSC otherwise
		left, _, _ := p.Param(0, 1)
		left = max(left, 1)
		right, _, _ := p.Param(1, e.Width())
		if right < 1 {
			right = e.Width()
		}
		// Whether DECLRMM is set is not visible from outside: assume it
		// is, and never assume a later CSI s widened them again.
		if left < right && !(left == 1 && right == e.Width()) {
			s.margins.horizontal[alt(e.IsAltScreen())] = true
		}
		return false
	})
	e.RegisterEscHandler('c', func() bool { // RIS resets both screens
		s.margins = margins{}
		return false
	})
	clampMargins(e) // registered last: runs before the watchers above
}

// clampMargins keeps DECSTBM and DECSLRM inside the screen, as xterm
// does. x/vt takes a bottom or right margin past the edge as given and
// then indexes rows and columns that do not exist: `printf
// '\033[1;999r\033[L'` panics inside it.
func clampMargins(e *vt.Emulator) {
	clampSecond := func(limit func() int) vt.CsiHandler {
		return func(p ansi.Params) bool {
			if len(p) > 1 {
				if n, _, _ := p.Param(1, 0); n > limit() {
					p[1] = ansi.Param(ansi.Parameter(limit(), p[1].HasMore()))
				}
			}
			return false
		}
	}
	e.RegisterCsiHandler('r', clampSecond(e.Height))
	e.RegisterCsiHandler('s', clampSecond(e.Width))
}

// margins records which screens may have margins narrower than the
// screen (index 0 main, 1 alternate).
type margins struct {
	vertical, horizontal [2]bool
}

func (m margins) full(altScreen bool) bool {
	i := alt(altScreen)
	return !m.vertical[i] && !m.horizontal[i]
}

func alt(on bool) int {
	if on {
		return 1
	}
	return 0
}

func clampFirst(limit func() int) func(ansi.Params) bool {
	return func(p ansi.Params) bool {
		if l := limit(); first(p) > l {
			setFirst(p, l)
		}
		return false
	}
}

// first is the first parameter as the emulator reads it (1 when absent).
func first(p ansi.Params) int {
	n, _, _ := p.Param(0, 1)
	return n
}

func setFirst(p ansi.Params, n int) {
	p[0] = ansi.Param(ansi.Parameter(n, p[0].HasMore()))
}
