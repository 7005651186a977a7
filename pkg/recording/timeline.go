package recording

import (
	"fmt"
	"sort"
	"time"
)

// What an export renders, whatever a recording's file claims. A recording
// stamps its events on a 32-bit millisecond clock, so one file can say that
// its next change comes 49 days later; at 10 frames a second that is 42
// million frames of an unchanged screen. So a quiet stretch (no change on
// the screen, no act) longer than maxQuietMs is shown for maxQuietMs, as
// asciinema's idle time limit does, and a video that would still last
// longer than maxVideo is refused before anything is rendered.
const (
	maxQuietMs = 10_000
	maxVideo   = 4 * time.Hour
)

// timeline maps a recording's clock to the video's: equal, except that
// each quiet stretch beyond maxQuietMs is cut to it.
type timeline struct {
	rec   []uint32 // event times on the recording's clock, sorted, from 0
	video []uint32 // the same events on the video's clock
}

// newTimeline is the timeline of events (ms, in any order; acts' times
// belong here too, so that acts in a quiet stretch keep their spacing).
func newTimeline(events []uint32) *timeline {
	ev := append([]uint32{0}, events...)
	sort.Slice(ev, func(i, j int) bool { return ev[i] < ev[j] })
	tl := &timeline{rec: ev[:1], video: []uint32{0}}
	for _, t := range ev[1:] {
		last := len(tl.rec) - 1
		if t == tl.rec[last] {
			continue
		}
		tl.rec = append(tl.rec, t)
		tl.video = append(tl.video, tl.video[last]+min(t-tl.rec[last], maxQuietMs))
	}
	return tl
}

// recAt is the recording's instant shown at the video's instant v.
func (tl *timeline) recAt(v uint32) uint32 {
	i := sort.Search(len(tl.video), func(i int) bool { return tl.video[i] > v }) - 1
	return tl.rec[i] + (v - tl.video[i])
}

// videoAt is where the recording's instant r is in the video.
func (tl *timeline) videoAt(r uint32) uint32 {
	i := sort.Search(len(tl.rec), func(i int) bool { return tl.rec[i] > r }) - 1
	return tl.video[i] + min(r-tl.rec[i], maxQuietMs)
}

// check refuses a video longer than maxVideo: durationMs on the video's
// clock, at fps.
func (tl *timeline) check(durationMs uint32, fps int) error {
	if d := time.Duration(durationMs) * time.Millisecond; d > maxVideo {
		return fmt.Errorf("%w: the video would last %v (%d frames at %d a second) even with each quiet stretch cut to %v; an export makes at most %v",
			ErrTooLong, d.Round(time.Second), int64(durationMs)*int64(fps)/1000+1, fps, time.Duration(maxQuietMs)*time.Millisecond, maxVideo)
	}
	return nil
}

// ErrTooLong is wrapped by Export's error for a recording whose video
// would be longer than an export makes.
var ErrTooLong = fmt.Errorf("recording: too long to export")

// msOf is seconds on a recording's clock as its milliseconds, clamped to
// the 32-bit clock.
func msOf(s float64) uint32 {
	switch {
	case !(s > 0):
		return 0
	case s*1000 >= float64(^uint32(0)):
		return ^uint32(0)
	}
	return uint32(s * 1000)
}

// onVideoClock is acts with their times moved to the video's clock.
func (tl *timeline) onVideoClock(acts []Act) []Act {
	out := make([]Act, len(acts))
	for i, a := range acts {
		a.T = float64(tl.videoAt(msOf(a.T))) / 1000
		if a.End != 0 {
			a.End = float64(tl.videoAt(msOf(a.End))) / 1000
		}
		out[i] = a
	}
	return out
}

// actTimes is each act's time, in ms, for newTimeline.
func actTimes(acts []Act) []uint32 {
	out := make([]uint32, 0, len(acts))
	for _, a := range acts {
		out = append(out, msOf(a.T))
	}
	return out
}
