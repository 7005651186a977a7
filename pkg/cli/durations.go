package cli

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// duration is a time-valued flag: one name per meaning that takes a
// duration ("5s", "1500ms"), and hidden aliases in whole milliseconds for
// the spellings dvv had before (--timeout-ms) and the tool reference's
// (--timeoutMs). set tells a given value from the default.
type duration struct {
	d   time.Duration
	set bool
}

// ms is the value in whole milliseconds, for a request's *Ms field.
func (v *duration) ms() *int { return intp(int(v.d.Milliseconds())) }

// durationValue is the --name form.
type durationValue struct {
	v    *duration
	name string
}

func (f durationValue) String() string {
	if f.v == nil || (!f.v.set && f.v.d == 0) {
		return ""
	}
	return f.v.d.String()
}

func (f durationValue) Type() string { return "duration" }

func (f durationValue) Set(s string) error {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return fmt.Errorf("%q has no unit: write 5s or 1500ms (or --%s-ms %s)", s, f.name, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return fmt.Errorf("%q is not a duration such as 5s, 1500ms or 2m", s)
	}
	f.v.d, f.v.set = d, true
	return nil
}

// millisValue is an alias in whole milliseconds.
type millisValue struct{ v *duration }

func (f millisValue) String() string { return "" }
func (f millisValue) Type() string   { return "ms" }
func (f millisValue) Set(s string) error {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a whole number of milliseconds", s)
	}
	f.v.d, f.v.set = time.Duration(n)*time.Millisecond, true
	return nil
}

// addDuration registers --name (a duration, default def; def 0 prints no
// default, for flags whose default is dvvd's) and its hidden millisecond
// aliases: --name-ms and --nameMs.
func addDuration(fs *pflag.FlagSet, v *duration, name string, def time.Duration, usage string) {
	v.d = def
	fs.Var(durationValue{v: v, name: name}, name, usage)
	if def > 0 {
		fs.Lookup(name).DefValue = def.String()
	}
	camel := name + "Ms"
	if i := strings.IndexByte(name, '-'); i >= 0 { // wait-timeout: waitTimeoutMs
		camel = name[:i] + strings.ToUpper(name[i+1:i+2]) + name[i+2:] + "Ms"
	}
	for _, alias := range []string{name + "-ms", camel} {
		fs.Var(millisValue{v}, alias, "the same as --"+name+", in milliseconds")
		fs.MarkHidden(alias)
	}
}
