package viewer

import (
	"net/http"
	"testing"
)

// presentedKey reads the bearer header, else the key subprotocol, and
// nothing else: not a cookie, not the query.
func TestPresentedKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		hdr  map[string][]string
		url  string
		want string
	}{
		{"bearer", map[string][]string{"Authorization": {"Bearer abc"}}, "/", "abc"},
		{"another scheme", map[string][]string{"Authorization": {"Basic abc"}}, "/", ""},
		{"subprotocol among others", map[string][]string{"Sec-Websocket-Protocol": {"binary, dvv-key.abc"}}, "/", "abc"},
		{"subprotocol in a second header", map[string][]string{"Sec-Websocket-Protocol": {"dvv", "dvv-key.abc"}}, "/", "abc"},
		{"a cookie", map[string][]string{"Cookie": {"dvv_viewer=abc"}}, "/", ""},
		{"the query", nil, "/?k=abc", ""},
	} {
		r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:1"+tc.url, nil)
		for k, vs := range tc.hdr {
			r.Header[k] = vs
		}
		if got := presentedKey(r); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// check grants each secret its mode and nothing to an empty or wrong one.
func TestCheckModes(t *testing.T) {
	s := &Server{full: newSecret(), readOnly: newSecret()}
	for k, want := range map[string]mode{s.full: driving, s.readOnly: watching, "": denied, s.full[:10]: denied, s.full + "0": denied} {
		if got := s.check(k); got != want {
			t.Errorf("check(%q) = %v, want %v", k, got, want)
		}
	}
}
