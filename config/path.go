package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Location is where the configuration lives.
type Location struct {
	Path   string // absolute path of the file to read
	Legacy bool   // Path is the legacy opencode file, read because Preferred is absent
	// Preferred is where gh-ocdx keeps its configuration and where
	// `config init` writes; it equals Path unless Legacy.
	Preferred string
}

// Locate resolves the configuration file: $OCDX_CONFIG, else
// $XDG_CONFIG_HOME/gh-ocdx/config.json (default ~/.config/gh-ocdx/config.json),
// else, when only it exists, the legacy ~/.config/opencode/ocdx.json.
func Locate(getenv func(string) string) (Location, error) {
	if p := getenv("OCDX_CONFIG"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			return Location{}, err
		}
		return Location{Path: abs, Preferred: abs}, nil
	}
	home := getenv("HOME")
	// The XDG spec says to ignore a relative XDG_CONFIG_HOME.
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		if home == "" {
			return Location{}, errors.New("cannot find the configuration: neither HOME nor XDG_CONFIG_HOME is set; set OCDX_CONFIG to the path of the configuration file")
		}
		dir = filepath.Join(home, ".config")
	}
	preferred, err := filepath.Abs(filepath.Join(dir, "gh-ocdx", "config.json"))
	if err != nil {
		return Location{}, err
	}
	loc := Location{Path: preferred, Preferred: preferred}
	if home == "" || exists(preferred) {
		return loc, nil
	}
	legacy, err := filepath.Abs(filepath.Join(home, ".config", "opencode", "ocdx.json"))
	if err == nil && exists(legacy) {
		loc.Path, loc.Legacy = legacy, true
	}
	return loc, nil
}

// exists reports whether something is at path; an unreadable entry counts as
// present so that its error is reported rather than silently skipped.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}
