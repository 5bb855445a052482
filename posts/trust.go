package posts

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ocdx/gh-ocdx/finding"
	"github.com/ocdx/gh-ocdx/github"
)

// The one permission rule (docs/architecture.md, Who may dismiss): who may
// run a command, dismiss, restore or resolve a blocker, and whose posts
// count; and what the PR's commands and newest ledger dismiss and restore.

// permissions reads a login's permission on a repository; *github.Client
// is one.
type permissions interface {
	Permission(ctx context.Context, repo github.Repo, login string) (github.Permission, error)
}

// Trust decides, for one run on one repository, whose posts count as
// gh-ocdx's own and whose commands change what it decides
// (docs/architecture.md, Who may dismiss; Whose posts count). Each login's
// permission is asked once per run, and only for a login whose post or
// command there is to judge.
type Trust struct {
	perms  permissions
	repo   github.Repo
	logins []string // the base branch's trustedLogins
	asked  map[string]permAnswer
}

type permAnswer struct {
	p   github.Permission
	err error
}

// NewTrust is the Trust of one run on repo, whose base branch's policy
// trusts the logins trusted (config.Policy.Trusted).
func NewTrust(perms permissions, repo github.Repo, trusted []string) *Trust {
	return &Trust{perms: perms, repo: repo, logins: trusted, asked: map[string]permAnswer{}}
}

// Permission is login's permission on the repository, read once per run
// (a failure too: it is not asked again).
func (t *Trust) Permission(ctx context.Context, login string) (github.Permission, error) {
	key := strings.ToLower(login)
	if a, ok := t.asked[key]; ok {
		return a.p, a.err
	}
	p, err := github.PermNone, error(nil)
	if login != "" && t.perms != nil {
		p, err = t.perms.Permission(ctx, t.repo, login)
	}
	t.asked[key] = permAnswer{p, err}
	return p, err
}

// listed reports whether login is one of trustedLogins.
func (t *Trust) listed(login string) bool {
	return slices.ContainsFunc(t.logins, func(l string) bool { return login != "" && strings.EqualFold(l, login) })
}

// MayOverrule is the one rule for a command that changes what gh-ocdx
// decides on a PR, verb being CmdDismiss or CmdRestore: it counts only from
// someone with write, maintain or admin permission on repo; never from the
// PR's author on their own PR unless an admin; and for a SEC- finding only
// from an admin. gh-ocdx's own login has no exemption. why says what
// refused it.
func MayOverrule(verb string, repo github.Repo, perm github.Permission, login, prAuthor, id string) (ok bool, why string) {
	switch {
	case !perm.CanWrite():
		return false, fmt.Sprintf("only people with write permission on %s can %s findings (%s has %s)", repo, verb, login, perm)
	case perm != github.PermAdmin && strings.EqualFold(login, prAuthor):
		return false, fmt.Sprintf("the PR's author can't %s findings on their own PR (unless an admin)", verb)
	case perm != github.PermAdmin && strings.HasPrefix(id, "SEC-"):
		return false, fmt.Sprintf("SEC- findings can only be %s by an admin of %s", overruled[verb], repo)
	}
	return true, ""
}

var overruled = map[string]string{CmdDismiss: "dismissed", CmdRestore: "restored"}

// Resolution is the rule for a person's resolved review thread on pr
// (docs/architecture.md, Who may dismiss): resolving it clears its finding
// as a dismissal does, so it counts only when the thread's author resolved
// it or someone MayOverrule allows to dismiss; when not, why. gh-ocdx's own
// threads are not judged: they are no findings.
func (t *Trust) Resolution(ctx context.Context, pr *github.PullRequest) func(th github.ReviewThread, first github.ThreadComment) (counts bool, why string) {
	return func(th github.ReviewThread, first github.ThreadComment) (bool, string) {
		by := th.ResolvedBy
		switch {
		case by == "":
			return false, "GitHub does not say who resolved it"
		case strings.EqualFold(by, first.Author):
			return true, ""
		}
		p, err := t.Permission(ctx, by)
		if err != nil {
			return false, fmt.Sprintf("their permission could not be read (%v)", err)
		}
		return MayOverrule(CmdDismiss, t.repo, p, by, pr.Author, ThreadID(first))
	}
}

// MayCommand is the same rule for any /ocdx command in a PR's comments
// (review, fix, ask, and a reply that would start a paid reply run): it
// counts only from someone with write, maintain or admin permission on
// repo. A dismissal or restore is further judged by MayOverrule.
func MayCommand(repo github.Repo, perm github.Permission, login string) (ok bool, why string) {
	if !perm.CanWrite() {
		return false, fmt.Sprintf("only people with write permission on %s can run /ocdx commands (%s has %s)", repo, login, perm)
	}
	return true, ""
}

// Judge sets pr.Trusted: the logins besides the viewer whose posts count
// as gh-ocdx's own. Those are trustedLogins and, of the other authors of
// posts carrying the marker, those with write permission (a forged report
// by someone who can push is no new power). Only such authors are asked
// about. A permission that cannot be read trusts nobody, said in warnings.
func (t *Trust) Judge(ctx context.Context, pr *github.PullRequest) (warnings []string) {
	pr.Trusted = slices.Clone(t.logins)
	var authors []string
	consider := func(body, author string) {
		if author == "" || !strings.Contains(body, Marker) || pr.Trusts(author) || slices.Contains(authors, author) {
			return
		}
		authors = append(authors, author)
	}
	for _, r := range pr.Reviews {
		consider(r.Body, r.Writer())
	}
	for _, c := range pr.Comments {
		consider(c.Body, c.Author)
	}
	for _, th := range pr.Threads {
		for _, c := range th.Comments {
			consider(c.Body, c.Author)
		}
	}
	for _, a := range authors {
		p, err := t.Permission(ctx, a)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("the posts of %s carrying gh-ocdx's marker are not taken as its own: %v", a, err))
			continue
		}
		if p.CanWrite() {
			pr.Trusted = append(pr.Trusted, a)
		}
	}
	return warnings
}

// Dismissal is a finding dismissed on the PR.
type Dismissal struct {
	ID  string
	By  string // "" when an earlier run's ledger names nobody
	URL string // the command's
	// Reason is what the command said after the IDs, or the ledger kept:
	// a person's words, one line, capped (LedgerReason).
	Reason string
}

// Refusal is a /ocdx dismiss that does not count, and why.
type Refusal struct {
	By, URL, Why string
	ID           string   // the command's comment, by its database id ("" when GitHub sent none)
	IDs          []string // the findings it could not dismiss
}

// Dismissals are the findings dismissed on pr (Judged): those the ledger
// led (the PR's newest) says were, and those a /ocdx dismiss command
// dismisses by MayOverrule; refused are the commands, or the IDs of a
// command, that do not count. A permission that cannot be read refuses
// nothing and dismisses nothing; warnings say so.
func (t *Trust) Dismissals(ctx context.Context, pr *github.PullRequest, led Ledger) (ds []Dismissal, refused []Refusal, warnings []string) {
	for _, e := range led.Findings {
		if e.Status == finding.StatusDismissed {
			ds = append(ds, Dismissal{ID: e.ID, By: e.DismissedBy, Reason: e.Reason})
		}
	}
	judge := func(author, url, commentID, reason string, ids []string) {
		if len(ids) == 0 {
			return
		}
		p, err := t.Permission(ctx, author)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("the /ocdx dismiss of %s (%s) does not count: %v", author, url, err))
			return
		}
		r := Refusal{By: author, URL: url, ID: commentID}
		var whys []string
		for _, id := range ids {
			if ok, why := MayOverrule(CmdDismiss, t.repo, p, author, pr.Author, id); !ok {
				r.IDs = append(r.IDs, id)
				if !slices.Contains(whys, why) {
					whys = append(whys, why)
				}
				continue
			}
			// A command names who dismissed what a ledger carries.
			switch i := slices.IndexFunc(ds, func(d Dismissal) bool { return d.ID == id }); {
			case i < 0:
				ds = append(ds, Dismissal{ID: id, By: author, URL: url, Reason: reason})
			case ds[i].URL == "":
				ds[i].By, ds[i].URL, ds[i].Reason = author, url, cmp.Or(reason, ds[i].Reason)
			}
		}
		if len(r.IDs) > 0 {
			r.Why = strings.Join(whys, "; ")
			refused = append(refused, r)
		}
	}
	for _, th := range OwnThreads(pr) {
		for _, c := range th.Replies {
			if _, reason, ok := findingCommand(c.Body, CmdDismiss); ok {
				judge(c.Author, c.URL, c.DatabaseID, reason, []string{th.Finding.ID})
			}
		}
	}
	legacy := legacyThreadIDs(pr)
	for _, c := range pr.Comments {
		if ids, reason, ok := findingCommand(c.Body, CmdDismiss); ok {
			for i, id := range ids {
				ids[i] = cmp.Or(legacy[id], id) // a thread named as before
			}
			judge(c.Author, c.URL, commentID(c), reason, ids)
		}
	}
	return ds, refused, warnings
}

// commentID is c's database id as tags write it; "" when unknown.
func commentID(c github.Comment) string {
	if c.ID == 0 {
		return ""
	}
	return strconv.FormatInt(c.ID, 10)
}

// DismissedOn is what counts as dismissed on pr for a verb that reads it
// once (fix, dismiss): the dismissals of its newest trusted ledger and the
// /ocdx dismiss commands of the people allowed to dismiss.
func (t *Trust) DismissedOn(ctx context.Context, pr *github.PullRequest) []Dismissal {
	t.Judge(ctx, pr)
	led, _, _, _ := t.Ledger(ctx, pr)
	ds, _, _ := t.Dismissals(ctx, pr, led)
	return ds
}

// IDs are the findings xs name: the IDs of dismissals, restores or
// concessions.
func IDs[T interface{ finding() string }](xs []T) []string {
	ids := make([]string, 0, len(xs))
	for _, x := range xs {
		ids = append(ids, x.finding())
	}
	return ids
}

func (d Dismissal) finding() string { return d.ID }
func (r Restore) finding() string   { return r.ID }

// Restore is a refuted finding someone restored on the PR.
type Restore struct {
	ID, By, URL string
}

// Restores are the findings restored on pr (Judged) by a /ocdx restore
// comment in its conversation from someone MayOverrule allows; refused are
// the commands, or the IDs of a command, that do not count. A permission
// that cannot be read restores nothing; warnings say so.
func (t *Trust) Restores(ctx context.Context, pr *github.PullRequest) (rs []Restore, refused []Refusal, warnings []string) {
	for _, c := range pr.Comments {
		ids, _, ok := findingCommand(c.Body, CmdRestore)
		if !ok || len(ids) == 0 {
			continue
		}
		p, err := t.Permission(ctx, c.Author)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("the /ocdx restore of %s (%s) does not count: %v", c.Author, c.URL, err))
			continue
		}
		r := Refusal{By: c.Author, URL: c.URL, ID: commentID(c)}
		var whys []string
		for _, id := range ids {
			if ok, why := MayOverrule(CmdRestore, t.repo, p, c.Author, pr.Author, id); !ok {
				r.IDs = append(r.IDs, id)
				if !slices.Contains(whys, why) {
					whys = append(whys, why)
				}
				continue
			}
			if !slices.ContainsFunc(rs, func(x Restore) bool { return x.ID == id }) {
				rs = append(rs, Restore{ID: id, By: c.Author, URL: c.URL})
			}
		}
		if len(r.IDs) > 0 {
			r.Why = strings.Join(whys, "; ")
			refused = append(refused, r)
		}
	}
	return rs, refused, warnings
}

// PRLedger is the newest ledger in a report of gh-ocdx's own (Own: its
// login's, or a login pr trusts) on pr (its reviews and the conversation's
// last comments) and the report's URL. A ledger that cannot be read is
// skipped, and said in warnings.
func PRLedger(pr *github.PullRequest) (l Ledger, url string, warnings []string, ok bool) {
	l, url, _, warnings, ok = prLedger(pr)
	return l, url, warnings, ok
}

// prLedger is PRLedger with the login that posted the ledger.
func prLedger(pr *github.PullRequest) (l Ledger, url, by string, warnings []string, ok bool) {
	type report struct{ at, body, url, by string }
	var reports []report
	for _, r := range pr.Reviews {
		// A report someone edited is theirs: its ledger counts as they do.
		if Own(pr, r.Body, r.Writer()) {
			reports = append(reports, report{r.SubmittedAt, r.Body, r.URL, r.Writer()})
		}
	}
	for _, c := range pr.Comments {
		if Own(pr, c.Body, c.Author) {
			reports = append(reports, report{c.Created, c.Body, c.URL, c.Author})
		}
	}
	// Newest first; GitHub lists each kind oldest first, so among equal
	// times the later one is the newer.
	slices.Reverse(reports)
	slices.SortStableFunc(reports, func(a, b report) int { return -cmp.Compare(a.at, b.at) })
	for _, r := range reports {
		got, left, err := parseLedgerWarn(r.body)
		switch {
		case err == errNoLedger:
			continue
		case err != nil:
			warnings = append(warnings, fmt.Sprintf("ignored the ledger of %s: %v", r.url, err))
			continue
		}
		for _, w := range left {
			warnings = append(warnings, fmt.Sprintf("the ledger of %s: %s", r.url, w))
		}
		return got, r.url, r.by, warnings, true
	}
	return Ledger{}, "", "", warnings, false
}

// Ledger is PRLedger on pr (Judged). A ledger posted by someone trusted
// only for their write permission keeps only the dismissals they could
// have made themselves (MayOverrule), and never says a head converged: a
// report cannot do what its author's command could not.
func (t *Trust) Ledger(ctx context.Context, pr *github.PullRequest) (l Ledger, url string, warnings []string, ok bool) {
	l, url, by, warnings, ok := prLedger(pr)
	// A thread as earlier ledgers named it, by its first comment's node id.
	legacy := legacyThreadIDs(pr)
	for i, e := range l.Findings {
		if id, found := legacy[e.ID]; found && !slices.ContainsFunc(l.Findings, func(x LedgerEntry) bool { return x.ID == id }) {
			l.Findings[i].ID = id
		}
	}
	if !ok || pr.ByViewer(by) || t.listed(by) {
		return l, url, warnings, ok
	}
	// Nor can it say a head converged or was reviewed: that would spare the
	// head its review, its secret scan included, on its author's word. (As
	// a current ledger, it then names no reviewed head: ReviewedHead.)
	l.Converged, l.Reviewed, l.Basis, l.Sampled, l.V = false, "", "", "", max(l.V, ledgerVersion)
	p, err := t.Permission(ctx, by)
	for _, id := range l.With(finding.StatusDismissed) {
		if may, _ := MayOverrule(CmdDismiss, t.repo, p, by, pr.Author, id); err != nil || !may {
			l.Set(id, finding.StatusOpen, "")
			warnings = append(warnings, fmt.Sprintf("the ledger of %s says %s is dismissed, which %s may not do: taken as open", url, id, by))
			continue
		}
		// What it keeps is their dismissal, whomever it names.
		l.Dismissed(id, by, "")
	}
	// And a concession it records is theirs too, to whomever it says it
	// was made: they could have dismissed the finding themselves.
	for _, id := range l.With(finding.StatusDisputed) {
		l.Conceded(id, by)
	}
	return l, url, warnings, ok
}
