package recording

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// A recording is two files named after its limb and its start, to the
// millisecond in UTC: <limb>-<stamp>.cast or .fbs (the media) and
// <limb>-<stamp>.acts.jsonl (the act log). What is said about a recording
// after the fact (its start, its acts) is read from them, so an answer given
// while it runs and a listing made later agree.
const stampLayout = "20060102T150405.000"

// ActsExt ends an act log's name.
const ActsExt = ".acts.jsonl"

// Base is the path, without extension, of a recording of limb started at
// start, in dir.
func Base(dir, limb string, start time.Time) string {
	return filepath.Join(dir, limb+"-"+start.UTC().Format(stampLayout))
}

// ActsPath is the act log beside a media file.
func ActsPath(media string) string {
	return strings.TrimSuffix(media, filepath.Ext(media)) + ActsExt
}

// Started reads a recording's start from its media file's name; false when
// the name does not carry one.
func Started(media string) (time.Time, bool) {
	name := strings.TrimSuffix(filepath.Base(media), filepath.Ext(media))
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return time.Time{}, false
	}
	t, err := time.Parse(stampLayout, name[i+1:])
	return t, err == nil
}

// CountActs is how many acts an act log holds: its complete lines (a line
// being written is not one yet).
func CountActs(path string) (int, error) {
	// O_NONBLOCK: a named pipe in its place must not hold the caller (the
	// viewer's listing) until a writer comes.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return 0, fmt.Errorf("%s is not a regular file", path)
	}
	n := 0
	buf := make([]byte, 64<<10)
	for {
		k, err := f.Read(buf)
		n += bytes.Count(buf[:k], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
