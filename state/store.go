// Package state is gh-ocdx's memory across rounds and runs: a bbolt file
// holding, per pull request, its runs and rounds, its stuck findings, the fix
// agent's work in progress and the lease of the run working on it.
//
// The file is opened for each operation and closed right after, so other
// processes (a second loop on another PR, `gh ocdx state show`) get their turn
// within Options.Timeout; a file busy for longer gives ErrBusy, never a hang.
// State is a leaf package: what other packages define (findings) it stores as
// opaque JSON.
package state

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the layout this package reads and writes. A file with a
// higher version is refused (ErrNewerVersion), never rewritten.
const SchemaVersion = 1

// Layout: meta{version}, prs{<key>{summary, lease, stuck, wip, runs{<seq>: Run}}}.
var (
	bucketMeta = []byte("gh-ocdx")
	keyVersion = []byte("version")
	bucketPRs  = []byte("prs")
	bucketRuns = []byte("runs")
	keySummary = []byte("summary")
	keyLease   = []byte("lease")
	keyStuck   = []byte("stuck")
	keyWIP     = []byte("wip")
)

// Options tune a Store. The zero value gives the defaults.
type Options struct {
	// Timeout is how long an operation waits for the file lock (default 2s).
	Timeout time.Duration
	// HeartbeatEvery is how often a run refreshes its lease (default 15s).
	HeartbeatEvery time.Duration
	// StaleAfter is the heartbeat age after which a lease is taken over
	// even if its process seems alive (default 2m).
	StaleAfter time.Duration
	// KeepRuns bounds the runs kept per PR, newest first (default 10).
	KeepRuns int
	// CompactAbove is the file size from which a file that is more than half
	// free space is rewritten smaller (default 1 MiB). bbolt reuses freed
	// pages but never shrinks a file on its own.
	CompactAbove int64
	// Hostname names this machine in leases (default os.Hostname).
	Hostname string
}

// Store is the state file at one path. It holds no open file between calls
// and is safe for concurrent use.
type Store struct {
	path string
	o    Options
}

// New returns the store at path; nothing is opened or created until used.
func New(path string, o *Options) *Store {
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 2 * time.Second
	}
	if opts.HeartbeatEvery <= 0 {
		opts.HeartbeatEvery = 15 * time.Second
	}
	if opts.StaleAfter <= 0 {
		opts.StaleAfter = 2 * time.Minute
	}
	if opts.KeepRuns <= 0 {
		opts.KeepRuns = 10
	}
	if opts.CompactAbove <= 0 {
		opts.CompactAbove = 1 << 20
	}
	if opts.Hostname == "" {
		opts.Hostname, _ = os.Hostname()
	}
	return &Store{path: path, o: opts}
}

// Path returns the state file's path (DESIGN.md §6): $OCDX_STATE_DIR/state.db,
// else $XDG_STATE_HOME/gh-ocdx/state.db, else ~/.local/state/gh-ocdx/state.db.
func Path(getenv func(string) string) (string, error) {
	var dir string
	switch {
	case getenv("OCDX_STATE_DIR") != "":
		dir = getenv("OCDX_STATE_DIR")
	case filepath.IsAbs(getenv("XDG_STATE_HOME")): // relative values are invalid per XDG
		dir = filepath.Join(getenv("XDG_STATE_HOME"), "gh-ocdx")
	case getenv("HOME") != "":
		dir = filepath.Join(getenv("HOME"), ".local", "state", "gh-ocdx")
	default:
		return "", ErrNoPath
	}
	return filepath.Abs(filepath.Join(dir, "state.db"))
}

// Path is the file this store reads and writes.
func (s *Store) Path() string { return s.path }

// fail wraps err with the file's path.
func (s *Store) fail(err error) error { return fmt.Errorf("state file %s: %w", s.path, err) }

// open opens the file with its lock. A reader gets (nil, nil) when there is
// no file yet: reading must not create one.
func (s *Store) open(write bool) (*bolt.DB, error) {
	if write {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			return nil, s.fail(err)
		}
	} else if fi, err := os.Stat(s.path); errors.Is(err, os.ErrNotExist) || err == nil && fi.Size() == 0 {
		return nil, nil
	}
	for range 3 {
		var held *os.File // the file bbolt locks, to compare with the path below
		openFile := func(name string, flag int, mode os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, mode)
			held = f
			return f, err
		}
		db, err := bolt.Open(s.path, 0o600, &bolt.Options{Timeout: s.o.Timeout, ReadOnly: !write, OpenFile: openFile})
		switch {
		case errors.Is(err, berrors.ErrTimeout):
			return nil, s.fail(fmt.Errorf("%w (waited %s); try again", ErrBusy, s.o.Timeout))
		case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrVersionMismatch):
			return nil, s.fail(ErrForeign)
		case err != nil:
			return nil, s.fail(err)
		}
		// A compaction may have replaced the file while we waited for the
		// lock of the old one: then open again.
		cur, err1 := os.Stat(s.path)
		fi, err2 := held.Stat()
		if err1 == nil && err2 == nil && os.SameFile(cur, fi) {
			return db, nil
		}
		_ = db.Close()
	}
	return nil, s.fail(ErrBusy)
}

// view runs fn in a read transaction on the root bucket of PRs. fn is not
// called when nothing was ever recorded.
func (s *Store) view(fn func(prs *bolt.Bucket) error) error {
	db, err := s.open(false)
	if err != nil || db == nil {
		return err
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		fresh, err := s.checkSchema(tx)
		if err != nil || fresh {
			return err
		}
		return fn(tx.Bucket(bucketPRs))
	})
}

// update runs fn in a write transaction on the root bucket of PRs, creating
// the layout in a new file.
func (s *Store) update(fn func(prs *bolt.Bucket) error) error {
	db, err := s.open(true)
	if err != nil {
		return err
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		fresh, err := s.checkSchema(tx)
		if err != nil {
			return err
		}
		if fresh {
			meta, err := tx.CreateBucket(bucketMeta)
			if err != nil {
				return err
			}
			if err := meta.Put(keyVersion, []byte(strconv.Itoa(SchemaVersion))); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(bucketPRs); err != nil {
				return err
			}
		}
		return fn(tx.Bucket(bucketPRs))
	})
	if err == nil {
		s.maybeCompact(db)
	}
	return err
}

// checkSchema accepts our file of a known version, and reports a bbolt file
// with no buckets at all (new, or created by a process that died before its
// first commit) as fresh.
func (s *Store) checkSchema(tx *bolt.Tx) (fresh bool, err error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		if k, _ := tx.Cursor().First(); k != nil {
			return false, s.fail(ErrForeign)
		}
		return true, nil
	}
	v, err := strconv.Atoi(string(meta.Get(keyVersion)))
	switch {
	case err != nil || v < 1 || tx.Bucket(bucketPRs) == nil:
		return false, s.fail(ErrForeign)
	case v > SchemaVersion:
		return false, s.fail(fmt.Errorf("schema version %d, this gh-ocdx reads up to %d: %w", v, SchemaVersion, ErrNewerVersion))
	}
	return false, nil
}

// maybeCompact rewrites the file into a smaller copy once it is big and
// mostly free pages (after decay, clears and trimmed history). It runs while
// db still holds the exclusive lock; processes waiting on the old file notice
// the swap in open. Failure only means the file stays big.
func (s *Store) maybeCompact(db *bolt.DB) {
	var size int64
	_ = db.View(func(tx *bolt.Tx) error { size = tx.Size(); return nil })
	st := db.Stats() // refreshed when the View above closed
	free := int64(st.FreePageN+st.PendingPageN) * int64(db.Info().PageSize)
	if size < s.o.CompactAbove || free*2 < size {
		return
	}
	tmp := s.path + ".compact"
	_ = os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, &bolt.Options{Timeout: s.o.Timeout})
	if err != nil {
		return
	}
	err = bolt.Compact(dst, db, 8<<20)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return
	}
	if d, err := os.Open(filepath.Dir(s.path)); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}

// get decodes the JSON value at key into v; it reports whether there was one.
func get(b *bolt.Bucket, key []byte, v any) (bool, error) {
	raw := b.Get(key)
	if raw == nil {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("decoding %s: %w", key, err)
	}
	return true, nil
}

func unmarshal(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decoding a record: %w", err)
	}
	return nil
}

func put(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

func seqKey(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// keyBytes is a PR's bucket name; bbolt's byte order keeps listings stable.
func keyBytes(k Key) []byte { return []byte(k.String()) }
