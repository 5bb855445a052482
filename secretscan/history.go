package secretscan

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/ocdx/gh-ocdx/diff"
	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/internal/redact"
	"github.com/ocdx/gh-ocdx/internal/text"
)

// History opens the PR's own commits in the checkout (git.Repo): their
// patches (each after a line "commit <ID> <parents' IDs>", none for a
// merge), then the raw objects (git cat-file --batch) of the commits the
// patches named. Close reports a stream that was not whole: an
// fs.ErrNotExist when base or head is not there.
type History interface {
	OpenHistory(ctx context.Context, base, head string) (patches io.ReadCloser, ok bool)
	OpenCommits(ctx context.Context, ids []string) (objects io.ReadCloser, ok bool)
}

// binaryPrefix is how much of a file's added text git looks at for a NUL
// to call it binary: the history is read as text whatever the PR's
// .gitattributes say, and a file that is binary by its content is
// skipped, as GitHub's diff and the scan of the PR's result skip it.
const binaryPrefix = 8000

// HistoryScan is what the scan of the PR's history found: each finding
// with the identity of its secret (0: never in the PR's result, as a
// commit's message), and how many commits it read.
type HistoryScan struct {
	Findings []finding.Finding
	found    []uint64
	Commits  int
	// ids are the commits the patches named, merges included: those whose
	// messages are read.
	ids []string
}

// ScanHistory scans the PR's history, base..head, read from h: the added
// lines of each of its commits (merges left out), the name of each file
// they add or rename to, and every commit's message. ok is false when h
// could not read the commits. It needs nothing of the scan of the PR's
// diff, and runs beside it; Scan.AddHistory keeps what only the
// history holds.
func ScanHistory(ctx context.Context, h History, base, head, now string) (hs HistoryScan, ok bool, err error) {
	read := func(open func() (io.ReadCloser, bool), scan func(io.Reader, string) error, what string) (bool, error) {
		r, ok := open()
		if !ok {
			return false, nil
		}
		err := scan(r, now)
		cerr := r.Close()
		if errors.Is(cerr, fs.ErrNotExist) {
			return false, nil // the commits are not in the checkout
		}
		if err == nil {
			err = cerr
		}
		if err != nil {
			return true, fmt.Errorf("reading %s for the secret scan: %w", what, err)
		}
		return true, nil
	}
	patches := func() (io.ReadCloser, bool) { return h.OpenHistory(ctx, base, head) }
	if ok, err = read(patches, hs.scanPatches, "the PR's history"); !ok || err != nil || len(hs.ids) == 0 {
		return hs, ok, err
	}
	objects := func() (io.ReadCloser, bool) { return h.OpenCommits(ctx, hs.ids) }
	ok, err = read(objects, hs.scanMessages, "the PR's commit messages")
	return hs, ok, err
}

// add records a finding of the history and the identity of its secret.
func (hs *HistoryScan) add(f finding.Finding, id uint64) {
	hs.Findings = append(hs.Findings, f)
	hs.found = append(hs.found, id)
}

// AddHistory adds to s, the scan of the PR's result, the secrets only
// its history holds: a secret the result holds (the same line, the same
// name) is reported there, once.
func (s *Scan) AddHistory(hs HistoryScan) {
	s.History = hs.Commits
	for i, f := range hs.Findings {
		if id := hs.found[i]; id == 0 || !s.known[id] {
			s.keep(f)
		}
	}
}

// WithHistory runs net, the scan of the PR's diff, while the history
// of base..head is read beside it from h (nil: no history is read, and
// historyRead is true), then adds what only the history holds:
// two scans of the same size take the time of about one on two cores
// (loop's BenchmarkSecretScanHistory250Commits20MB). historyRead is false
// when the checkout could not give the commits; historyErr says why git
// failed.
func WithHistory(ctx context.Context, h History, base, head, now string, net func() (Scan, error)) (scan Scan, historyRead bool, historyErr, err error) {
	if h == nil {
		scan, err = net()
		return scan, true, nil, err
	}
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		hs  HistoryScan
		ok  bool
		err error
	}
	done := make(chan result, 1)
	go func() {
		hs, ok, err := ScanHistory(hctx, h, base, head, now)
		done <- result{hs, ok, err}
	}()
	scan, err = net()
	if err != nil {
		cancel()
		<-done
		return scan, false, nil, err
	}
	r := <-done
	scan.AddHistory(r.hs) // what a failed read found stands
	return scan, r.ok && r.err == nil, r.err, nil
}

// scanPatches reads git log -p as OpenHistory writes it.
func (hs *HistoryScan) scanPatches(r io.Reader, now string) error {
	br, walk := bufio.NewReaderSize(r, 64<<10), bufio.NewReaderSize(nil, 64<<10)
	var c chunk
	var commit, file string
	var binary bool
	var seen int // bytes of the file's added text looked at for a NUL
	scan := func() {
		if file != "" && !binary {
			c.scan(func(i int, kind string, continued bool) {
				if !continued {
					hs.add(historyFinding(kind, file, c.nums[i], commit, now), identity(c.lines, i, kind))
				}
			})
		}
		c.reset()
	}
	v := diff.Visitor{
		File: func(f *diff.File) error {
			scan()
			file, binary, seen = f.NewPath, false, 0
			if file != "" && (f.IsNew || f.IsRename || f.IsCopy) {
				for _, kind := range nameSecrets(file) {
					hs.add(nameFinding(kind, file, commit, now), nameID(file))
				}
			}
			return nil
		},
		Line: func(_ *diff.File, l diff.Line) error {
			if l.Kind != diff.Add || binary {
				return nil
			}
			if seen < binaryPrefix {
				head := l.Text[:min(len(l.Text), binaryPrefix-seen)]
				seen += len(l.Text) + 1
				if strings.IndexByte(head, 0) >= 0 {
					binary = true
					c.reset()
					return nil
				}
			}
			if c.full() {
				scan()
			}
			c.add(l.Text, l.New)
			return nil
		},
	}
	for {
		l, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		ids, isCommit := strings.CutPrefix(l, "commit ")
		if !isCommit {
			continue
		}
		id := strings.Fields(ids) // the commit, then its parents
		if len(id) == 0 {
			return fmt.Errorf("git log: %q", text.OneLine(l[:min(len(l), 100)]))
		}
		hs.ids = append(hs.ids, id[0])
		if len(id) > 2 {
			continue // a merge: no patch, its message only
		}
		hs.Commits++
		commit, file = id[0], ""
		seg := &segment{br: br, atStart: true}
		// diff.Walk reads through a bufio.Reader of 64 KiB: given one, it
		// uses it, and 250 commits do not cost 250 buffers.
		walk.Reset(seg)
		err = diff.Walk(walk, v)
		scan()
		if err != nil {
			return err
		}
		if seg.err != nil {
			return seg.err
		}
	}
}

// historyFinding is the finding of a secret that a commit of the PR adds
// on line n of file and that the PR's result does not add as it is.
func historyFinding(kind, file string, n int, commit, now string) finding.Finding {
	short := text.ShortOID(commit)
	shown := redact.Mask(file)
	return finding.Finding{Priority: "P0", Category: "security", File: shown,
		Title:       fmt.Sprintf("Hard-coded %s in commit %s (history only)", kind, short),
		Description: fmt.Sprintf("Commit %s adds a %s (shown to the models as %s) on line %d of %s. A later commit changed or removed that line, so the diff does not show it, but the branch's history keeps it: a merge commit or a rebase merge puts it in the base branch's history, readable by everyone who can read the repository.", short, kind, redact.Marker(kind), n, shown),
		Suggestion:  fmt.Sprintf("%s Then take it out of the branch's history (git rebase -i to edit commit %s, then a force push) or squash-merge. %s", revokeAdvice, short, rewriteAdvice),
		Source:      &finding.Source{Type: "agent", Name: Scanner, Timestamp: now}}
}

// revokeAdvice and rewriteAdvice end the suggestion of every finding that
// NeedsRewrite.
const (
	revokeAdvice  = "Revoke the exposed secret if the commit was ever pushed: a pushed secret is exposed."
	rewriteAdvice = "gh-ocdx never rewrites history; dismiss the finding once that is done (on a PR, only an admin can)."
)

// messageFinding is the finding of a secret on line n of a commit's
// message.
func messageFinding(kind string, n int, commit, now string) finding.Finding {
	short := text.ShortOID(commit)
	return finding.Finding{Priority: "P0", Category: "security",
		Title:       fmt.Sprintf("Hard-coded %s in the message of commit %s", kind, short),
		Description: fmt.Sprintf("Line %d of the message of commit %s holds a %s (shown here as %s). A merge commit or a rebase merge puts the message in the base branch's history, readable by everyone who can read the repository; a squash merge offers it as its own message.", n, short, kind, redact.Marker(kind)),
		Suggestion:  fmt.Sprintf("%s Then reword the commit (git rebase -i, reword %s, then a force push) or squash-merge with a message without it. %s", revokeAdvice, short, rewriteAdvice),
		Source:      &finding.Source{Type: "agent", Name: Scanner, Timestamp: now}}
}

// scanMessages reads the commits' raw objects as OpenCommits writes them
// and scans each message, its headers left out.
func (hs *HistoryScan) scanMessages(r io.Reader, now string) error {
	br := bufio.NewReaderSize(r, 64<<10)
	body := bufio.NewReaderSize(nil, 64<<10)
	var c chunk
	for {
		l, err := readLine(br)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		// "<ID> commit <size>"; "<ID> missing" would be a commit that
		// git log named and cat-file did not find.
		f := strings.Fields(l)
		if len(f) != 3 || f[1] != "commit" {
			return fmt.Errorf("git cat-file: %q", text.OneLine(l[:min(len(l), 100)]))
		}
		commit := f[0]
		size, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("git cat-file: %q", text.OneLine(l[:min(len(l), 100)]))
		}
		obj := io.LimitReader(br, size)
		body.Reset(obj)
		inMessage, n := false, 0
		scan := func() {
			c.scan(func(i int, kind string, continued bool) {
				if !continued {
					hs.add(messageFinding(kind, c.nums[i], commit, now), 0)
				}
			})
			c.reset()
		}
		for {
			line, err := readLine(body)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			if !inMessage {
				inMessage = line == "" // the headers end at the first empty line
				continue
			}
			if c.full() {
				scan()
			}
			n++
			c.add(line, n)
		}
		scan()
		if _, err := io.Copy(io.Discard, obj); err != nil {
			return err
		}
		if b, err := br.ReadByte(); err != nil || b != '\n' {
			return fmt.Errorf("git cat-file: the object of %s does not end as announced", text.ShortOID(commit))
		}
	}
}

// readLine reads a line without its "\n", keeping at most maxLineRead
// bytes of it (as package diff does): a line the PR wrote is never held
// whole.
func readLine(br *bufio.Reader) (string, error) {
	var buf []byte
	read := 0
	for {
		part, err := br.ReadSlice('\n')
		read += len(part)
		if room := maxLineRead - len(buf); room > 0 {
			buf = append(buf, part[:min(len(part), room)]...)
		}
		switch {
		case err == nil:
			return string(bytes.TrimSuffix(buf, []byte("\n"))), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && read > 0:
			return string(buf), nil
		default:
			return "", err
		}
	}
}

// maxLineRead bounds a line of a commit's message or of git's own lines.
const maxLineRead = 1 << 20

// segment reads one commit's patch from git log -p: up to the next line
// that starts with "commit ", which no line of a patch does (a hunk's
// lines start with a space, + or -, and the message is not in the
// stream).
type segment struct {
	br      *bufio.Reader
	atStart bool // at the start of a line
	rest    []byte
	done    bool
	err     error
}

func (g *segment) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(g.rest) == 0 {
			if g.done {
				break
			}
			if g.atStart {
				if b, _ := g.br.Peek(len("commit ")); string(b) == "commit " {
					g.done = true
					break
				}
			}
			part, err := g.br.ReadSlice('\n')
			g.rest = part
			g.atStart = err == nil
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
				g.done = true
				if !errors.Is(err, io.EOF) {
					g.err = err
				}
			}
			if len(part) == 0 {
				continue
			}
		}
		k := copy(p[n:], g.rest)
		g.rest = g.rest[k:]
		n += k
		if len(g.rest) > 0 {
			break // the rest of the slice is read before br moves on
		}
	}
	if n == 0 && g.done {
		return 0, io.EOF
	}
	return n, nil
}
