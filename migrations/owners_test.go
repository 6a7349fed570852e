package migrations

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// createRE finds the tables the migrations create.
var createRE = regexp.MustCompile(`(?i)\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)`)

// namedRE finds the tables a statement names: after FROM, JOIN, INTO, UPDATE, TABLE or USING,
// written in capitals as this code base writes SQL (so that "join game 4" in a message is no
// statement).
var namedRE = regexp.MustCompile(`\b(?:FROM|JOIN|INTO|UPDATE|TABLE|USING)\s+([a-z_][a-z0-9_]*)`)

// Ensure every table has one owner: of the module's packages, only one names it in the SQL of
// its code (the store next to its domain); every other package goes through that store. Tests
// may read any table. make check runs this test.
func TestTableOwners(t *testing.T) {
	tables := map[string]bool{}
	sqls, err := fs.Glob(files, "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range sqls {
		data, err := fs.ReadFile(files, name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range createRE.FindAllStringSubmatch(string(data), -1) {
			tables[strings.ToLower(m[1])] = true
		}
	}
	if len(tables) == 0 {
		t.Fatal("the migrations create no table")
	}
	owners := map[string]map[string][]string{} // table -> package folder -> files
	root := ".."
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "uploads") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		for _, table := range namedTables(t, path, tables) {
			pkg := filepath.ToSlash(filepath.Dir(rel))
			if owners[table] == nil {
				owners[table] = map[string][]string{}
			}
			if !slices.Contains(owners[table][pkg], rel) {
				owners[table][pkg] = append(owners[table][pkg], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for table := range owners {
		names = append(names, table)
	}
	sort.Strings(names)
	for _, table := range names {
		if pkgs := owners[table]; len(pkgs) > 1 {
			var where []string
			for pkg, files := range pkgs {
				where = append(where, pkg+" ("+strings.Join(files, ", ")+")")
			}
			sort.Strings(where)
			t.Errorf("table %s is named in SQL by %d packages: %s; give it one owner and let the others use its store",
				table, len(pkgs), strings.Join(where, "; "))
		}
	}
}

// namedTables returns the tables of the schema that the string literals of a Go file name as
// SQL does.
func namedTables(t *testing.T, path string, tables map[string]bool) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		for _, m := range namedRE.FindAllStringSubmatch(s, -1) {
			if name := strings.ToLower(m[1]); tables[name] && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
		return true
	})
	return out
}
