// Package state is gh-ocdx's memory across rounds and runs: a bbolt file
// holding, per pull request, its runs and rounds, its stuck findings, the fix
// agent's work in progress and the lease of the run working on it.
//
// The file is opened for each operation and closed right after, so other
// processes (a second loop on another PR, `gh ocdx state show`) get their turn
// within Options.Timeout; a file busy for longer gives errBusy, never a hang.
// State is a leaf package: what other packages define (findings) it stores as
// opaque JSON.
package state

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// schemaVersion is the layout this package reads and writes. A file with a
// higher version is refused (errNewerVersion), never rewritten.
const schemaVersion = 1

// Layout: meta{version, indexed}, prs{<key>{summary, lease, stuck, wip,
// dismissed, runs{<seq>: Run}}}, index{<key>: Summary}.
var (
	bucketMeta = []byte("gh-ocdx")
	keyVersion = []byte("version")
	// keyIndexed is the ID of the last write transaction that kept the
	// index: when it is the file's last one, the index is whole.
	keyIndexed  = []byte("indexed")
	bucketIndex = []byte("index")
	bucketPRs   = []byte("prs")
	bucketRuns  = []byte("runs")
	keySummary  = []byte("summary")
	keyLease    = []byte("lease")
	keyStuck    = []byte("stuck")
	keyWIP      = []byte("wip")
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
	// Warn receives the notice that a damaged file was moved aside
	// (default os.Stderr).
	Warn io.Writer
	// Now is the clock of every time recorded and of lease staleness
	// (default time.Now); tests move it instead of sleeping.
	Now func() time.Time
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
	if opts.Warn == nil {
		opts.Warn = os.Stderr
	}
	if opts.Hostname == "" {
		opts.Hostname, _ = os.Hostname()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Store{path: path, o: opts}
}

// Path returns the state file's path: $OCDX_STATE_DIR/state.db,
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
		return "", errNoPath
	}
	return filepath.Abs(filepath.Join(dir, "state.db"))
}

// Path is the file this store reads and writes.
func (s *Store) Path() string { return s.path }

// fail wraps err with the file's path.
func (s *Store) fail(err error) error { return fmt.Errorf("state file %s: %w", s.path, err) }

// open opens the file with its lock. A reader gets (nil, nil) when there is
// no file yet: reading must not create one. at.held is set to the file bbolt
// locks, so that a damaged file can be told apart from its replacement.
func (s *Store) open(write bool, at *attempt) (*bolt.DB, error) {
	if write {
		if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
			return nil, s.fail(err)
		}
	} else if fi, err := os.Stat(s.path); errors.Is(err, os.ErrNotExist) || err == nil && fi.Size() == 0 {
		return nil, nil
	}
	for range 3 {
		openFile := func(name string, flag int, mode os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, mode)
			if err == nil {
				at.f = f
				at.held, _ = f.Stat()
			}
			return f, err
		}
		db, err := bolt.Open(s.path, 0o600, &bolt.Options{Timeout: s.o.Timeout, ReadOnly: !write, OpenFile: openFile})
		switch {
		case errors.Is(err, berrors.ErrTimeout):
			return nil, s.fail(fmt.Errorf("%w (waited %s); try again", errBusy, s.o.Timeout))
		case damagedOnOpen(err):
			return nil, &damaged{cause: err}
		case err != nil:
			return nil, s.fail(err)
		}
		// A compaction or a move aside may have replaced the file while we
		// waited for the lock of the old one: then open again.
		if cur, err := os.Stat(s.path); err == nil && at.held != nil && os.SameFile(cur, at.held) {
			return db, nil
		}
		_ = db.Close()
		if _, err := os.Stat(s.path); !write && errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
	}
	return nil, s.fail(errBusy)
}

// damagedOnOpen reports whether bbolt refused the file for its content
// (not a bbolt file, another format version, bad checksums, too short), as
// opposed to the system (permissions, lock, memory).
func damagedOnOpen(err error) bool {
	return errors.Is(err, berrors.ErrInvalid) || errors.Is(err, berrors.ErrVersionMismatch) ||
		errors.Is(err, berrors.ErrChecksum) || err != nil && strings.Contains(err.Error(), "file size too small")
}

// damaged is a file gh-ocdx cannot use: not a bbolt file, not ours, or
// corrupt enough that bbolt fails or panics reading it.
type damaged struct{ cause any }

func (d *damaged) Error() string { return fmt.Sprint(d.cause) }

// attempt is one opening of the file.
type attempt struct {
	f    *os.File    // the file bbolt opened, closed by hand if bbolt panics opening it
	held os.FileInfo // and its identity
}

// do opens the file and runs fn on it: the one place where transactions
// run. A damaged file is moved aside (never deleted), the move is reported
// on Options.Warn, and fn runs once more on a fresh file. A panic of bbolt
// on a corrupt page, or a fault reading past the end of a truncated file,
// counts as damage: bbolt asserts instead of returning errors there.
func (s *Store) do(write bool, fn func(db *bolt.DB) error) error {
	for range 2 {
		at := &attempt{}
		err := s.try(write, at, fn)
		var d *damaged
		if !errors.As(err, &d) {
			return err
		}
		if err := s.moveAside(at, d); err != nil {
			return err
		}
	}
	return s.fail(errForeign)
}

// try is one attempt of do; a panic inside it becomes *damaged.
func (s *Store) try(write bool, at *attempt, fn func(db *bolt.DB) error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	var db *bolt.DB
	defer func() {
		if p := recover(); p != nil {
			func() {
				defer func() { _ = recover() }()
				if db != nil {
					_ = db.Close()
				} else if at.f != nil {
					_ = at.f.Close() // releases the lock
				}
			}()
			err = &damaged{cause: p}
		}
	}()
	if db, err = s.open(write, at); err != nil || db == nil {
		return err
	}
	err = s.named(fn(db))
	if cerr := db.Close(); err == nil && cerr != nil {
		err = s.fail(cerr)
	}
	db = nil
	return err
}

// named adds the file's path to an error from inside a transaction, unless
// it is one that speaks of a PR or a run rather than of the file. A record
// that cannot be read back gets the way out: forget that PR.
func (s *Store) named(err error) error {
	var le *leaseError
	var d *damaged
	switch {
	case err == nil || errors.As(err, &d) || errors.As(err, &le) || strings.Contains(err.Error(), s.path):
		return err
	case errors.Is(err, errRecord):
		return s.fail(fmt.Errorf("%w; 'gh ocdx state clear --pr <number>' forgets that pull request's record", err))
	case errors.Is(err, ErrNotFound), errors.Is(err, errLeaseLost), errors.Is(err, errRunEnded), errors.Is(err, errNoRound):
		return err
	}
	return s.fail(err)
}

// moveAside renames a damaged file to state.db.corrupt-<UTC time>, so that
// what it held can still be looked at, and says so. The file is only moved
// while the path still names the file found damaged: another process may
// have moved it and started a fresh one already.
func (s *Store) moveAside(at *attempt, d *damaged) error {
	cur, err := os.Stat(s.path)
	if errors.Is(err, os.ErrNotExist) || err == nil && at.held != nil && !os.SameFile(cur, at.held) {
		return nil
	}
	if err != nil {
		return s.fail(err)
	}
	stamp := s.o.Now().UTC().Format("20060102T150405Z")
	for i := 1; ; i++ {
		to := s.path + ".corrupt-" + stamp
		if i > 1 {
			to += "-" + strconv.Itoa(i)
		}
		// A hard link never replaces an existing file, unlike a rename;
		// where links are not supported, rename to a name not taken.
		err := os.Link(s.path, to)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if errors.Is(err, os.ErrNotExist) {
			return nil // another process moved it between the Stat and here
		}
		if err == nil {
			if moved, serr := os.Stat(to); serr == nil && at.held != nil && !os.SameFile(moved, at.held) {
				_ = os.Remove(to) // the path named another process's fresh file by then
				return nil
			}
			if err = os.Remove(s.path); errors.Is(err, os.ErrNotExist) {
				err = nil
			}
		} else if _, serr := os.Lstat(to); errors.Is(serr, os.ErrNotExist) {
			if err = os.Rename(s.path, to); errors.Is(err, os.ErrNotExist) {
				return nil
			}
		}
		if err != nil {
			return s.fail(fmt.Errorf("%w: %v; moving it aside failed (%v): move it away by hand or set OCDX_STATE_DIR", errForeign, d, err))
		}
		fmt.Fprintf(s.o.Warn, "warning: the state file %s was unreadable (%v) and was moved to %s; what gh-ocdx remembered of your PRs is in it; a new one was started\n", s.path, d, to)
		return nil
	}
}

// view runs fn in a read transaction on the root bucket of PRs. fn is not
// called when nothing was ever recorded.
func (s *Store) view(fn func(prs *bolt.Bucket) error) error {
	return s.do(false, func(db *bolt.DB) error {
		return db.View(func(tx *bolt.Tx) error {
			fresh, err := s.checkSchema(tx)
			if err != nil || fresh {
				return err
			}
			return fn(tx.Bucket(bucketPRs))
		})
	})
}

// update runs fn in a write transaction on the root bucket of PRs, creating
// the layout in a new file.
func (s *Store) update(fn func(prs *bolt.Bucket) error) error {
	return s.do(true, func(db *bolt.DB) error {
		err := db.Update(func(tx *bolt.Tx) error {
			fresh, err := s.checkSchema(tx)
			if err != nil {
				return err
			}
			if fresh {
				meta, err := tx.CreateBucket(bucketMeta)
				if err != nil {
					return err
				}
				if err := meta.Put(keyVersion, []byte(strconv.Itoa(schemaVersion))); err != nil {
					return err
				}
				if _, err := tx.CreateBucket(bucketPRs); err != nil {
					return err
				}
			}
			if err := fn(tx.Bucket(bucketPRs)); err != nil {
				return err
			}
			return keepIndex(tx)
		})
		if err == nil {
			s.maybeCompact(db)
		}
		return err
	})
}

// checkSchema accepts our file of a known version, and reports a bbolt file
// with no buckets at all (new, or created by a process that died before its
// first commit) as fresh.
func (s *Store) checkSchema(tx *bolt.Tx) (fresh bool, err error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		if k, _ := tx.Cursor().First(); k != nil {
			return false, &damaged{cause: "a bbolt file without gh-ocdx's records"}
		}
		return true, nil
	}
	v, err := strconv.Atoi(string(meta.Get(keyVersion)))
	switch {
	case err != nil || v < 1 || tx.Bucket(bucketPRs) == nil:
		return false, &damaged{cause: "gh-ocdx's records are incomplete"}
	case v > schemaVersion:
		return false, s.fail(fmt.Errorf("schema version %d, this gh-ocdx reads up to %d: %w", v, schemaVersion, errNewerVersion))
	}
	return false, nil
}

// The index holds each PR's row of `state show` (indexRow), in
// indexShards values of the index bucket, each PR's by a hash of its key:
// listing 10,000 PRs then reads a few contiguous MB of the file, not a
// page of each PR's bucket spread over all of it (every page the list
// touches is mapped with its neighbours, and counts in the command's
// memory), nor decodes their records (docs/architecture.md, State). writeSummary keeps a PR's row with every write to it, and
// rewrites its shard only when the row changed; keyIndexed says the index
// is whole. A gh-ocdx from before the index writes without keeping it: the
// next write of this one finds keyIndexed behind and rebuilds the index,
// and List reads PR by PR meanwhile.
const indexShards = 64

// indexRow is a PR's Summary without its lease, which a heartbeat
// changes every few seconds: List reads it from the PR's bucket, for the
// few PRs that have one (Leased).
type indexRow struct {
	Key                 string
	Runs, Rounds, Stuck int
	WIP                 string
	Last                *Run // without its rounds
	Leased              bool
}

func shardOf(key []byte) []byte {
	h := fnv.New32a()
	h.Write(key)
	return []byte(strconv.Itoa(int(h.Sum32() % indexShards)))
}

// readShard decodes a shard: its rows in key order.
func readShard(idx *bolt.Bucket, shard []byte) ([]indexRow, error) {
	v := idx.Get(shard)
	if v == nil {
		return nil, nil
	}
	rows, err := decodeRows(v)
	if err != nil {
		return nil, fmt.Errorf("%w: index shard %s: %v", errRecord, shard, err)
	}
	return rows, nil
}

// setRow puts key's row in its shard (nil: takes it out), writing the
// shard only when that changes it.
func setRow(tx *bolt.Tx, key []byte, row *indexRow) error {
	idx, err := tx.CreateBucketIfNotExists(bucketIndex)
	if err != nil {
		return err
	}
	shard := shardOf(key)
	rows, err := readShard(idx, shard)
	if err != nil {
		// A damaged shard: the end of the transaction rebuilds the index.
		return tx.Bucket(bucketMeta).Delete(keyIndexed)
	}
	i, found := slices.BinarySearchFunc(rows, string(key), func(r indexRow, k string) int { return strings.Compare(r.Key, k) })
	switch {
	case row == nil && !found:
		return nil
	case row == nil:
		rows = slices.Delete(rows, i, i+1)
	case found:
		if string(encodeRows(rows[i:i+1])) == string(encodeRows([]indexRow{*row})) {
			return nil
		}
		rows[i] = *row
	default:
		rows = slices.Insert(rows, i, *row)
	}
	return idx.Put(shard, encodeRows(rows))
}

// indexed reports whether tx's index is whole: the file's last write kept
// it.
func indexed(tx *bolt.Tx) bool {
	meta := tx.Bucket(bucketMeta)
	return meta != nil && tx.Bucket(bucketIndex) != nil && string(meta.Get(keyIndexed)) == strconv.Itoa(tx.ID())
}

// keepIndex ends a write transaction: the index is rebuilt when a write
// that did not keep it came before, and marked whole.
func keepIndex(tx *bolt.Tx) error {
	meta := tx.Bucket(bucketMeta)
	if string(meta.Get(keyIndexed)) != strconv.Itoa(tx.ID()-1) {
		if whole, err := rebuildIndex(tx); err != nil || !whole {
			return err
		}
	}
	return meta.Put(keyIndexed, []byte(strconv.Itoa(tx.ID())))
}

// rebuildIndex writes the index afresh from every PR's bucket. It is not
// whole when a record cannot be read: List then reads PR by PR, and says
// which record is damaged.
func rebuildIndex(tx *bolt.Tx) (whole bool, err error) {
	if tx.Bucket(bucketIndex) != nil {
		if err := tx.DeleteBucket(bucketIndex); err != nil {
			return false, err
		}
	}
	idx, err := tx.CreateBucket(bucketIndex)
	if err != nil {
		return false, err
	}
	whole = true
	shards := map[string][]indexRow{}
	prs := tx.Bucket(bucketPRs)
	err = prs.ForEachBucket(func(name []byte) error {
		key, err := ParseKey(string(name))
		if err != nil {
			whole = false
			return nil
		}
		sum, err := rowOf(key, prs.Bucket(name))
		if err != nil {
			whole = false
			return nil
		}
		shard := string(shardOf(name))
		shards[shard] = append(shards[shard], rowFor(sum)) // in key order, as the PRs are
		return nil
	})
	if err != nil {
		return false, err
	}
	for shard, rows := range shards {
		if err := idx.Put([]byte(shard), encodeRows(rows)); err != nil {
			return false, err
		}
	}
	return whole, nil
}

// rowFor is sum as the index holds it.
func rowFor(sum Summary) indexRow {
	return indexRow{Key: sum.Key.String(), Runs: sum.Runs, Last: sum.Last, Rounds: sum.Rounds, Stuck: sum.Stuck, WIP: sum.WIP, Leased: sum.Lease != nil}
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
	if err == nil {
		// The copy's transactions are numbered afresh: its index, whole
		// as db's last write left it, is marked so again.
		err = dst.Update(func(tx *bolt.Tx) error {
			return tx.Bucket(bucketMeta).Put(keyIndexed, []byte(strconv.Itoa(tx.ID())))
		})
	}
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
		return true, fmt.Errorf("%w: %s: %v", errRecord, key, err)
	}
	return true, nil
}

func unmarshal(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%w: a run: %v", errRecord, err)
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
