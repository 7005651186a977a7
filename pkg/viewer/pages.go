package viewer

import "sync"

// pages are the limb pages open now, each under an id the page makes for
// itself and sends on its event socket and with Take over. A Take over
// pressed on a page is that page driving, so closing the page (its event
// socket ends) hands the limb back like closing a page that typed or
// clicked.
type pages struct {
	mu sync.Mutex
	m  map[pageKey]Session
}

type pageKey struct{ page, limb string }

// maxPageID bounds what a page may send as its id.
const maxPageID = 64

func (p *pages) add(page, limb string, s Session) bool {
	if len(page) > maxPageID {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[pageKey]Session{}
	}
	k := pageKey{page, limb}
	if _, dup := p.m[k]; dup {
		return false
	}
	p.m[k] = s
	return true
}

func (p *pages) get(page, limb string) Session {
	if page == "" {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[pageKey{page, limb}]
}

// remove forgets a closed page and ends its session.
func (p *pages) remove(page, limb string) {
	p.mu.Lock()
	s := p.m[pageKey{page, limb}]
	delete(p.m, pageKey{page, limb})
	p.mu.Unlock()
	if s != nil {
		s.End()
	}
}
