package wire

import (
	"reflect"
	"testing"
)

// TestGistReadsEveryArgsField: for each op, every field its Args share
// with Gist (by JSON name) is what Gist() answers, and an op with a
// variant field answers it as Variant(); so generic code reading the gist
// sees what the handler sees.
func TestGistReadsEveryArgsField(t *testing.T) {
	gist := reflect.TypeFor[Gist]()
	for _, s := range Ops() {
		a := reflect.New(s.Args)
		args := a.Interface().(Args)
		set := map[string]reflect.Value{}
		for _, name := range fieldsOf(s.Args).names {
			f, _ := FieldOf(args, name)
			gf, ok := gist.FieldByName(upperFirst(name))
			if !ok || envelope[name] {
				continue
			}
			f.Set(nonZero(f.Type()))
			if gf.Type != f.Type() && gf.Type != reflect.PointerTo(f.Type()) {
				t.Errorf("%s.%s is %v, Gist.%s is %v", s.Args.Name(), name, f.Type(), gf.Name, gf.Type)
			}
			set[gf.Name] = f
		}
		g := reflect.ValueOf(GistOf(args))
		for i := 0; i < gist.NumField(); i++ {
			name := gist.Field(i).Name
			got := g.Field(i)
			want, ok := set[name]
			switch {
			case !ok && !got.IsZero():
				t.Errorf("%s: Gist().%s is set, but the op takes no such field", s.Name, name)
			case ok && got.Type() == want.Type() && !reflect.DeepEqual(got.Interface(), want.Interface()):
				t.Errorf("%s: Gist().%s = %v, the Args hold %v", s.Name, name, got, want)
			case ok && got.Type() != want.Type() && (got.IsNil() || !reflect.DeepEqual(got.Elem().Interface(), want.Interface())):
				t.Errorf("%s: Gist().%s does not point at the Args' field", s.Name, name)
			}
		}
		if s.Variant != "" {
			if _, ok := args.(Varied); !ok {
				t.Errorf("%s has a variant field but its Args have no Variant()", s.Name)
			}
		}
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// nonZero is a value of type t that is not its zero value.
func nonZero(t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		v.SetString("v")
	case reflect.Int, reflect.Int64, reflect.Uint64:
		v.Set(reflect.ValueOf(7).Convert(t))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(0.5)
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
		v.Elem().Set(nonZero(t.Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(t, 1, 1))
		if t.Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(`{}`))
		} else {
			v.Index(0).Set(nonZero(t.Elem()))
		}
	case reflect.Struct:
		if t.NumField() > 0 && t.Field(0).Type.Kind() == reflect.String {
			v.Field(0).SetString("v")
		}
	}
	return v
}

// TestRequiredValuesAreNotPointers: a field every variant needs, whose
// zero value is not one it takes, is the value itself (run's timeoutMs,
// group_shrink's n, host_add's host); one where zero counts (click's x)
// stays a pointer, so 0 is told from absent.
func TestRequiredValuesAreNotPointers(t *testing.T) {
	for _, c := range []struct {
		args  any
		field string
		ptr   bool
	}{
		{&RunArgs{}, "timeoutMs", false}, {&GroupShrinkArgs{}, "n", false}, {&HostAddArgs{}, "host", false},
		{&ClickArgs{}, "x", true}, {&TypeArgs{}, "text", true},
	} {
		f, ok := FieldOf(c.args, c.field)
		if !ok || (f.Kind() == reflect.Pointer) != c.ptr {
			t.Errorf("%T.%s: %v, want pointer %v", c.args, c.field, f.Type(), c.ptr)
		}
	}
}
