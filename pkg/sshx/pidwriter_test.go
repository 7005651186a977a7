package sshx

import (
	"bytes"
	"testing"
)

func TestPIDWriter(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		pid    int
		rest   string
	}{
		{"one write", []string{"N 42\nerr"}, 42, "err"},
		{"split", []string{"N", " 4", "2\n", "e", "rr"}, 42, "err"},
		{"no pid line", []string{"sh: printf: not found, and much more text here\n"}, 0, "sh: printf: not found, and much more text here\n"},
		{"short and unfinished", []string{"oops"}, 0, "oops"},
		{"garbage pid", []string{"N x\nrest"}, 0, "rest"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out capWriter
			out.max = 1 << 20
			w := &pidWriter{next: &out, prefix: "N "}
			for _, s := range c.writes {
				w.Write([]byte(s))
			}
			w.flush()
			got, _ := out.result()
			if w.pid() != c.pid || string(got) != c.rest {
				t.Fatalf("pid %d rest %q", w.pid(), got)
			}
		})
	}
}

// FuzzPIDWriter: whatever the remote writes to stderr, and however it is
// split, the bytes after the PID line pass through unchanged and memory
// held for the first line stays small.
func FuzzPIDWriter(f *testing.F) {
	f.Add([]byte("N 123\nhello"), uint8(3))
	f.Add([]byte("no newline at all, quite long indeed"), uint8(1))
	f.Add([]byte{'N', ' ', 0xff, '\n'}, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		var out capWriter
		out.max = 1 << 20
		w := &pidWriter{next: &out, prefix: "N "}
		n := int(step%16) + 1
		for i := 0; i < len(data); i += n {
			w.Write(data[i:min(len(data), i+n)])
			if len(w.head) > len(w.prefix)+24+n {
				t.Fatalf("holding %d bytes", len(w.head))
			}
		}
		w.flush()
		got, _ := out.result()
		if !bytes.HasSuffix(data, got) {
			t.Fatalf("output %q is not a suffix of input %q", got, data)
		}
	})
}
