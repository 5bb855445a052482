package posts

import (
	"strings"
	"testing"

	"github.com/ocdx/gh-ocdx/github"
)

// The rule for who may dismiss or restore, in one table
// (docs/architecture.md, Who may dismiss).
func TestMayOverrule(t *testing.T) {
	repo := github.Repo{Owner: "o", Name: "r"}
	for _, tc := range []struct {
		verb      string
		perm      github.Permission
		login, id string
		ok        bool
		why       string
	}{
		{CmdDismiss, github.PermWrite, "carol", "QUAL-0badf00d", true, ""},
		{CmdDismiss, github.PermMaintain, "carol", "PERF-12ab34cd", true, ""},
		{CmdDismiss, github.PermAdmin, "carol", "SEC-b0bf205b", true, ""},
		{CmdDismiss, github.PermAdmin, "alice", "SEC-b0bf205b", true, ""}, // an admin, on their own PR
		{CmdDismiss, github.PermTriage, "carol", "QUAL-0badf00d", false, "only people with write permission on o/r can dismiss findings (carol has triage)"},
		{CmdDismiss, github.PermRead, "carol", "QUAL-0badf00d", false, "only people with write permission"},
		{CmdDismiss, github.PermNone, "carol", "QUAL-0badf00d", false, "only people with write permission"},
		{CmdDismiss, github.PermWrite, "alice", "QUAL-0badf00d", false, "the PR's author can't dismiss findings on their own PR"},
		{CmdDismiss, github.PermMaintain, "Alice", "QUAL-0badf00d", false, "the PR's author can't dismiss"},
		{CmdDismiss, github.PermWrite, "carol", "SEC-b0bf205b", false, "SEC- findings can only be dismissed by an admin of o/r"},
		{CmdDismiss, github.PermMaintain, "carol", "SEC-b0bf205b", false, "SEC- findings can only be dismissed by an admin"},
		// A restore overrules the verifier by the same rule, and says so.
		{CmdRestore, github.PermWrite, "carol", "QUAL-0badf00d", true, ""},
		{CmdRestore, github.PermRead, "carol", "QUAL-0badf00d", false, "only people with write permission on o/r can restore findings (carol has read)"},
		{CmdRestore, github.PermWrite, "alice", "QUAL-0badf00d", false, "the PR's author can't restore findings on their own PR (unless an admin)"},
		{CmdRestore, github.PermWrite, "carol", "SEC-b0bf205b", false, "SEC- findings can only be restored by an admin of o/r"},
		{CmdRestore, github.PermAdmin, "alice", "SEC-b0bf205b", true, ""},
	} {
		ok, why := MayOverrule(tc.verb, repo, tc.perm, tc.login, "alice", tc.id)
		if ok != tc.ok || !strings.Contains(why, tc.why) || ok && why != "" {
			t.Errorf("MayOverrule(%s, %s, %s, %s) = %v, %q; want %v, %q", tc.verb, tc.perm, tc.login, tc.id, ok, why, tc.ok, tc.why)
		}
	}
}

// A comment is answered when one of gh-ocdx's own posts carries its
// command tag, in the conversation or a thread, or the refused tag an
// earlier version wrote for its URL; a person writing either answers
// nothing.
func TestCommandAnswered(t *testing.T) {
	const url = "https://github.com/o/r/pull/7#issuecomment-42"
	answer := Marker + "\n" + CommandTag("42") + "\n@eve: no."
	legacy := Marker + "\n" + Refusal{URL: url}.Tag() + "\n@eve: no."
	for _, tc := range []struct {
		name    string
		conv    []github.Comment
		threads []github.ReviewThread
		want    bool
	}{
		{"nothing", nil, nil, false},
		{"own answer", []github.Comment{{Author: "ocdx-bot", Body: answer}}, nil, true},
		{"own answer in a thread", nil, []github.ReviewThread{{ID: "T1", Comments: []github.ThreadComment{{Author: "ocdx-bot", Body: answer}}}}, true},
		{"earlier version's answer", []github.Comment{{Author: "ocdx-bot", Body: legacy}}, nil, true},
		{"another comment's answer", []github.Comment{{Author: "ocdx-bot", Body: Marker + "\n" + CommandTag("420")}}, nil, false},
		{"a person's forged tag", []github.Comment{{Author: "eve", Body: answer}}, nil, false},
		{"own post without the marker", []github.Comment{{Author: "ocdx-bot", Body: CommandTag("42")}}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := &github.PullRequest{Viewer: "ocdx-bot", Comments: tc.conv, Threads: tc.threads}
			if got := CommandAnswered(pr, pr.Comments, "42", url); got != tc.want {
				t.Errorf("CommandAnswered = %v, want %v", got, tc.want)
			}
		})
	}
}
