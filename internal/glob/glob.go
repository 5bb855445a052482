// Package glob is the one glob rule of gh-ocdx's configuration: the
// paths, ignore and effort rules of a repository's .ocdx.json.
package glob

import (
	"fmt"
	"path"
	"strings"
)

// Match reports whether file (slash-separated, relative to the repository
// root) matches glob. A glob without a slash matches the file's base name
// in any directory ("*.lock"); one with a slash matches from the root, where
// "**" stands for any number of directories ("vendor/**", "docs/**/*.md")
// and the other elements are path.Match patterns.
func Match(glob, file string) bool {
	file = strings.TrimPrefix(file, "/")
	if !strings.Contains(glob, "/") {
		ok, _ := path.Match(glob, path.Base(file))
		return ok
	}
	return matchParts(strings.Split(strings.TrimPrefix(glob, "/"), "/"), strings.Split(file, "/"))
}

func matchParts(glob, file []string) bool {
	for len(glob) > 0 {
		if glob[0] == "**" {
			rest := glob[1:]
			for i := 0; i <= len(file); i++ {
				if matchParts(rest, file[i:]) {
					return true
				}
			}
			return false
		}
		if len(file) == 0 {
			return false
		}
		if ok, _ := path.Match(glob[0], file[0]); !ok {
			return false
		}
		glob, file = glob[1:], file[1:]
	}
	return len(file) == 0
}

// Problem says what is wrong with a glob, or "".
func Problem(g string) string {
	if strings.TrimSpace(g) == "" {
		return "is empty; give a glob such as \"docs/**\" or \"*.lock\""
	}
	for _, part := range strings.Split(g, "/") {
		if _, err := path.Match(part, ""); err != nil {
			return fmt.Sprintf("%q is not a valid glob (%v): use *, ?, [a-z] and ** for any number of directories", g, err)
		}
	}
	return ""
}
