package client

import (
	"strings"
	"testing"
)

func TestParseRemote(t *testing.T) {
	good := map[string]Remote{
		"ssh://lab":                  {Host: "lab", ID: "default"},
		"ssh://pat@lab.example:2222": {User: "pat", Host: "lab.example", Port: "2222", ID: "default"},
		"ssh://pat@10.0.0.5/work":    {User: "pat", Host: "10.0.0.5", ID: "work"},
		"ssh://[::1]:22/a.b-c_d":     {Host: "::1", Port: "22", ID: "a.b-c_d"},
	}
	for in, want := range good {
		got, err := ParseRemote(in)
		if err != nil || got != want {
			t.Errorf("%s: %+v %v", in, got, err)
		}
	}
	for _, in := range []string{"ssh://", "ssh://-oProxyCommand=x", "ssh://lab/../x", "ssh://lab/a/b", "ssh://u:pw@lab",
		"ssh://-l@lab", "ssh://lab?x=1", "ssh://lab/-id", "ssh://la b", "http://lab", "ssh://lab/" + strings.Repeat("a", 65)} {
		if r, err := ParseRemote(in); err == nil {
			t.Errorf("%s accepted: %+v", in, r)
		}
	}
}

// The remote command reaches the remote shell quoted; options cannot be
// smuggled in as the host.
func TestSSHArgs(t *testing.T) {
	r := Remote{User: "pat", Host: "lab", Port: "2222", ID: "work"}
	got := strings.Join(r.sshArgs("/opt/my dvv/dvv"), " ")
	if got != "-T -l pat -p 2222 -- lab '/opt/my dvv/dvv' stdio-proxy --id work" {
		t.Errorf("args: %s", got)
	}
	if q := shellQuote("it's"); q != `'it'\''s'` {
		t.Errorf("quote: %s", q)
	}
}
