package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Cache keeps each model call's answer on disk, one file per call, written
// as soon as the call ends: a run killed halfway loses at most the calls
// in flight, and a rerun asks only what no file answers (docs/architecture.md,
// Eval).
type Cache struct {
	Dir string
}

// key names a call by what it asks: the role, the model, the case and the
// fingerprint of the prompt (Alone.Fingerprint).
func key(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

func (c *Cache) path(k string) string { return filepath.Join(c.Dir, k[:2], k+".json") }

// get reads the answer stored under k into v; false when there is none. A
// file that does not decode is no answer: the call is made again.
func (c *Cache) get(k string, v any) (bool, error) {
	b, err := os.ReadFile(c.path(k))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("eval cache: %w", err)
	}
	return json.Unmarshal(b, v) == nil, nil
}

// put stores v under k: written whole to a temporary file, then renamed,
// so that a kill leaves the old state or the new one, never half a file.
func (c *Cache) put(k string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	p := c.path(k)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("eval cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return fmt.Errorf("eval cache: %w", err)
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("eval cache: %w", werr)
	}
	return nil
}
