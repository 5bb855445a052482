package cmdutil

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/llm"
)

// LoadConfig loads and validates the configuration for a verb that needs it;
// call it before any network request, git command or state write.
func LoadConfig(d *Deps) (*config.Config, error) { return LoadConfigFor(d, nil) }

// UsesRole is a LoadConfigFor filter: the roles keys names.
func UsesRole(keys ...string) func(key string) bool {
	return func(key string) bool { return slices.Contains(keys, key) }
}

// LoadConfigFor is LoadConfig for a verb that uses only the roles uses
// names: the others' credentials are not required (config.LoadFor).
func LoadConfigFor(d *Deps, uses func(key string) bool) (*config.Config, error) {
	c, err := config.LoadFor(d.Getenv, uses)
	if err != nil {
		return nil, err
	}
	if err := checkTimeouts(d); err != nil {
		return nil, err
	}
	if c.Legacy {
		msg := "reading the legacy configuration " + c.Path
		if loc, err := config.Locate(d.Getenv); err == nil {
			msg += "; move it to " + loc.Preferred + " to silence this"
		}
		d.Info("%s", msg)
	}
	d.Log.Debug("configuration loaded", "path", c.Path)
	return c, nil
}

// LoadConfigForModel loads the configuration for a verb of one model
// role: with --model (model), that model's key only and no configuration
// file needed; else the keys of roles.
func LoadConfigForModel(d *Deps, model string, roles ...string) (*config.Config, error) {
	uses := UsesRole(roles...)
	if model != "" {
		uses = UsesRole()
	}
	cfg, err := LoadConfigFor(d, uses)
	if model != "" && errors.Is(err, fs.ErrNotExist) {
		cfg, err = &config.Config{}, checkTimeouts(d)
	}
	return cfg, err
}

// VerifierCredential checks, before any request, that the provider of the
// --verifier model has its key (the configuration's roles are checked when
// it is loaded).
func VerifierCredential(d *Deps, name string) error {
	if name == "" {
		return nil
	}
	m, err := llm.ParseModel(name)
	if err != nil {
		return err
	}
	if env := m.Provider.CredentialEnv; env != "" && strings.TrimSpace(d.Getenv(env)) == "" {
		return fmt.Errorf("--verifier %s needs $%s, which is not set: export it, or name a model of a provider whose key is set", name, env)
	}
	return nil
}
