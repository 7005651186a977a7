// Package layout holds the repository's rules about where code lives, read
// from the source itself: what the product may import and how branchy the
// request path may grow.
package layout

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/dvvhq/dvv/"

// root is the repository's top, two levels above this package.
func root(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// packageDirs lists every directory under top holding Go files.
func packageDirs(t *testing.T, top string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(top, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			if dir := filepath.Dir(path); len(dirs) == 0 || dirs[len(dirs)-1] != dir {
				dirs = append(dirs, dir)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// TestProductDoesNotImportInternal: internal/ holds the generators and the
// test beds; what ships (pkg/ and cmd/) must not depend on them, so a
// helper the product needs lives under pkg/.
func TestProductDoesNotImportInternal(t *testing.T) {
	top := root(t)
	for _, under := range []string{"pkg", "cmd"} {
		for _, dir := range packageDirs(t, filepath.Join(top, under)) {
			p, err := build.ImportDir(dir, 0)
			if err != nil {
				if _, ok := err.(*build.NoGoError); ok {
					continue
				}
				t.Fatal(err)
			}
			for _, imp := range p.Imports {
				if strings.HasPrefix(imp, module+"internal/") {
					rel, _ := filepath.Rel(top, dir)
					t.Errorf("%s imports %s outside its tests", rel, imp)
				}
			}
		}
	}
}
