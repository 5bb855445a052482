package loop

import (
	"testing"

	"github.com/ocdx/gh-ocdx/config"
	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/localchange"
	"github.com/ocdx/gh-ocdx/roles"
)

// The fingerprint of a local review changes with everything the reviewers
// would be given differently, and only with that.
func TestLocalFingerprintNamesWhatTheReviewRead(t *testing.T) {
	ch := localchange.Change{Branch: "feature", Base: "origin/main", MergeBase: "mb", Head: "h1", Tree: "t1", Untracked: []string{"notes.txt"}}
	pol := &config.Policy{Instructions: "wrap errors"}
	revs := []roles.Role{{Name: "reviewer-1", Model: "ollama/qwen-a"}}
	fp := LocalFingerprint(ch, pol, revs, nil, "", "")
	same := ch
	same.Untracked, same.Author = nil, "someone else" // never read by the reviewers
	if LocalFingerprint(same, &config.Policy{Instructions: "wrap errors"}, revs, nil, "", "") != fp {
		t.Error("the same review has another fingerprint")
	}
	for name, f := range map[string]string{
		"commit":        LocalFingerprint(localchange.Change{Branch: "feature", Base: "origin/main", MergeBase: "mb", Head: "h2", Tree: "t1"}, pol, revs, nil, "", ""),
		"working tree":  LocalFingerprint(localchange.Change{Branch: "feature", Base: "origin/main", MergeBase: "mb", Head: "h1", Tree: "t2"}, pol, revs, nil, "", ""),
		"merge base":    LocalFingerprint(localchange.Change{Branch: "feature", Base: "origin/main", MergeBase: "mb2", Head: "h1", Tree: "t1"}, pol, revs, nil, "", ""),
		"base":          LocalFingerprint(localchange.Change{Branch: "feature", Base: "origin/next", MergeBase: "mb", Head: "h1", Tree: "t1"}, pol, revs, nil, "", ""),
		"policy":        LocalFingerprint(ch, &config.Policy{Instructions: "wrap errors", Ignore: []string{"gen/**"}}, revs, nil, "", ""),
		"reviewers":     LocalFingerprint(ch, pol, append(revs, roles.Role{Name: "reviewer-2", Model: "ollama/qwen-b"}), nil, "", ""),
		"another model": LocalFingerprint(ch, pol, []roles.Role{{Name: "reviewer-1", Model: "ollama/llama"}}, nil, "", ""),
		"a verifier":    LocalFingerprint(ch, pol, revs, &roles.Role{Name: "verifier", Model: "ollama/judge"}, "", ""),
		"evidence":      LocalFingerprint(ch, pol, revs, nil, "", "analyzers"),
	} {
		if f == fp {
			t.Errorf("a change of %s keeps the fingerprint", name)
		}
	}
}

// The effort tier asked for is part of what a local review reads: a
// review asked at quick is not the one asked at deep.
func TestLocalFingerprintNamesTheEffortAsked(t *testing.T) {
	ch := localchange.Change{Branch: "feature", Base: "origin/main", MergeBase: "mb", Head: "h1", Tree: "t1"}
	revs := []roles.Role{{Name: "reviewer-1", Model: "ollama/qwen-a"}}
	auto := LocalFingerprint(ch, nil, revs, nil, "", "")
	if LocalFingerprint(ch, nil, revs, nil, effort.Auto, "") != auto || LocalFingerprint(ch, nil, revs, nil, effort.Quick, "") == auto {
		t.Error("the tier asked for does not name the review: \"\" is auto, quick is another")
	}
}
