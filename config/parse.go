package config

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ocdx/gh-ocdx/effort"
	"github.com/ocdx/gh-ocdx/internal/glob"
	"github.com/ocdx/gh-ocdx/llm"
)

// The keys of the configuration file, in the order of the example.
var knownKeys = []string{"reviewerModels", "commentsAnalyzerModel", "prFixModel", "reviewPrModel", "verify", "allowApprove", "maxTokens", "outputTokens", "prices", "inlinePriorities", "maxInlineComments", "verifierModel", "replyModel", "maxReplies", "effort", "describeModel", "describe", "analyzers", "modelCutoffs"}

// roleKeys are the keys outputTokens may name: the roles' model keys.
var roleKeys = []string{"reviewerModels", "commentsAnalyzerModel", "prFixModel", "reviewPrModel", "verifierModel", "replyModel", "describeModel"}

// MaxOutputTokens bounds an outputTokens value; no model writes more at once.
const MaxOutputTokens = 1 << 20

// member is one key of a JSON object with the byte offset of its value, so
// that problems point at a line and column.
type member struct {
	key    string
	raw    json.RawMessage
	off    int // of the value
	keyOff int // of the key, in objects
}

// checker collects every problem of one file instead of stopping at the
// first, so that a user fixes them all in one edit.
type checker struct {
	data     []byte
	problems []Problem
}

func (c *checker) add(off int, key, format string, a ...any) {
	p := Problem{Key: key, Msg: fmt.Sprintf(format, a...)}
	if off >= 0 {
		p.Line, p.Column = position(c.data, off)
	}
	c.problems = append(c.problems, p)
}

// sort puts problems in file order, those without a place (missing keys) last.
func (c *checker) sort() {
	slices.SortStableFunc(c.problems, func(a, b Problem) int {
		if (a.Line == 0) != (b.Line == 0) {
			return cmp.Compare(b.Line, a.Line) // 0 sorts last
		}
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
}

// parse validates a configuration file. Every check adds its problems to
// the checker; the Config is nil when there are any.
func parse(data []byte, getenv func(string) string, uses func(key string) bool) (*Config, []Problem) {
	c := &checker{data: data}
	members := c.object()
	if members == nil {
		return nil, c.problems
	}
	byKey := c.keys(members, knownKeys)
	cfg := &Config{}
	c.models(cfg, byKey)
	c.settings(cfg, byKey)
	c.sort()

	// Credentials are checked only for models that parsed (a bad model
	// string is reported once, as such), and listed after the file's problems.
	var roles []role
	for _, r := range cfg.roles() {
		key, _, _ := strings.Cut(r.key, "[")
		if r.model.Provider.Name != "" && (uses == nil || uses(key)) {
			roles = append(roles, r)
		}
	}
	c.problems = append(c.problems, missingCredentials(roles, getenv)...)
	if len(c.problems) > 0 {
		return nil, c.problems
	}
	return cfg, nil
}

// models reads the configuration's models into cfg: the reviewers, the
// two required ones, and those that default to another (reviewPrModel,
// replyModel, describeModel) or to none (verifierModel).
func (c *checker) models(cfg *Config, byKey map[string]member) {
	if m, found := byKey["reviewerModels"]; !found {
		c.add(-1, "reviewerModels", `missing; list 1 to %d reviewer models, for example ["openai/gpt-4.1"]`, MaxReviewers)
	} else if elems, isList := c.list(m, "reviewerModels", `"provider/model" strings`); isList {
		switch {
		case len(elems) == 0:
			c.add(m.off, "reviewerModels", "is empty; list 1 to %d reviewer models", MaxReviewers)
		case len(elems) > MaxReviewers:
			c.add(m.off, "reviewerModels", "has %d models, at most %d are allowed; remove %d", len(elems), MaxReviewers, len(elems)-MaxReviewers)
		}
		for i, e := range elems {
			cfg.Reviewers = append(cfg.Reviewers, c.model(e, fmt.Sprintf("reviewerModels[%d]", i)))
		}
	}
	required := []struct {
		key, what, example string
		dst                *llm.ModelName
	}{
		{"commentsAnalyzerModel", "the model that analyses review comment threads", "openai/gpt-4.1-mini", &cfg.CommentsAnalyzer},
		{"prFixModel", "the model that fixes findings", "anthropic/claude-sonnet-4-5", &cfg.PRFix},
	}
	for _, r := range required {
		if m, found := byKey[r.key]; found {
			*r.dst = c.model(m, r.key)
		} else {
			c.add(-1, r.key, "missing; name %s, for example %q", r.what, r.example)
		}
	}
	if m, found := byKey["reviewPrModel"]; found {
		cfg.ReviewPR = c.model(m, "reviewPrModel")
	} else if len(cfg.Reviewers) > 0 {
		cfg.Defaults = append(cfg.Defaults, "reviewPrModel")
		cfg.ReviewPR = cfg.Reviewers[0]
	}
	// reply answers in gh-ocdx's threads with reviewPrModel unless told.
	if m, found := byKey["replyModel"]; found {
		cfg.Reply = c.model(m, "replyModel")
	} else {
		cfg.Reply = cfg.ReviewPR
	}
	// describe writes its description with the comments analyzer's model
	// unless told: one call over the context, a summary more than a review.
	if m, found := byKey["describeModel"]; found {
		cfg.Describe = c.model(m, "describeModel")
	} else {
		cfg.Describe = cfg.CommentsAnalyzer
	}
	// No default: without verifierModel no verifier runs.
	if m, found := byKey["verifierModel"]; found {
		cfg.Verifier = c.model(m, "verifierModel")
	}
}

// settings reads the rest of the configuration into cfg: limits, verify
// commands, the inline policy, effort, prices, the models' cutoffs.
func (c *checker) settings(cfg *Config, byKey map[string]member) {
	if m, found := byKey["maxReplies"]; found {
		cfg.MaxReplies = int(c.positive(m, "maxReplies", DefaultMaxReplies))
	}
	if m, found := byKey["verify"]; found {
		cfg.Verify = c.verify(m)
	} else {
		cfg.Defaults = append(cfg.Defaults, "verify")
	}
	if m, found := byKey["analyzers"]; found {
		cfg.Analyzers = c.analyzers(m)
	}
	if m, found := byKey["allowApprove"]; found {
		cfg.AllowApprove = c.boolean(m, "allowApprove")
	}
	if m, found := byKey["describe"]; found {
		cfg.DescribeFirst, cfg.ComplianceFindings = c.describe(m)
	}
	if m, found := byKey["inlinePriorities"]; found {
		cfg.InlinePriorities = c.priorities(m, "inlinePriorities")
	} else {
		cfg.InlinePriorities = DefaultInlinePriorities()
	}
	if m, found := byKey["maxInlineComments"]; found {
		cfg.MaxInlineComments = int(c.positive(m, "maxInlineComments", DefaultMaxInlineComments))
	}
	if m, found := byKey["maxTokens"]; found {
		cfg.MaxTokens = c.positive(m, "maxTokens", 2000000)
	}
	if m, found := byKey["effort"]; found {
		cfg.Effort = c.effort(m, "effort")
	}
	if m, found := byKey["prices"]; found {
		cfg.Prices = c.prices(m)
	}
	if m, found := byKey["outputTokens"]; found {
		cfg.OutputTokens = c.outputTokens(m)
	}
	if m, found := byKey["modelCutoffs"]; found {
		cfg.ModelCutoffs = c.cutoffs(m)
	}
}

// parseRepo validates a repository .ocdx.json (docs/architecture.md, Where
// the repository policy comes from). Every key is optional.
func parseRepo(data []byte) (*Policy, []Problem) {
	c := &checker{data: data}
	members := c.object()
	if members == nil {
		return nil, c.problems
	}
	byKey := c.keys(members, policyKeys)
	p := &Policy{}
	if m, found := byKey["verify"]; found {
		p.Verify = c.verify(m)
	}
	if m, found := byKey["instructions"]; found {
		p.Instructions, _ = c.str(m, "instructions", "Prefer table-driven tests.")
	}
	if m, found := byKey["paths"]; found {
		p.Paths = c.paths(m)
	}
	if m, found := byKey["ignoreDefaults"]; !found || c.boolean(m, "ignoreDefaults") {
		p.Ignore = append(p.Ignore, DefaultIgnore...)
	}
	if m, found := byKey["ignore"]; found {
		p.Ignore = append(p.Ignore, c.globs(m, "ignore")...)
	}
	if m, found := byKey["evidence"]; found {
		p.Evidence = c.globs(m, "evidence")
	}
	if m, found := byKey["analyzers"]; found {
		p.Analyzers = c.analyzers(m)
	}
	if m, found := byKey["trustedLogins"]; found {
		p.TrustedLogins = c.logins(m)
	}
	if m, found := byKey["inlinePriorities"]; found {
		p.InlinePriorities = c.priorities(m, "inlinePriorities")
	}
	if m, found := byKey["maxInlineComments"]; found {
		p.MaxInlineComments = int(c.positive(m, "maxInlineComments", DefaultMaxInlineComments))
	}
	if m, found := byKey["commands"]; found {
		p.CommandsFix = c.commands(m)
	}
	if m, found := byKey["describe"]; found {
		p.DescribeFirst, p.ComplianceFindings = c.describe(m)
	}
	c.sort()
	if len(c.problems) > 0 {
		return nil, c.problems
	}
	return p, nil
}

// paths decodes [{"glob": ..., "instructions": ..., "effort": ...}].
func (c *checker) paths(m member) []PathRule {
	elems, ok := c.list(m, "paths", `{"glob": "...", "instructions": "..."} objects`)
	if !ok {
		return nil
	}
	var rules []PathRule
	for i, e := range elems {
		key := fmt.Sprintf("paths[%d]", i)
		if len(e.raw) == 0 || e.raw[0] != '{' {
			c.add(e.off, key, `must be an object such as {"glob": "api/**", "instructions": "..."}, found %s`, kind(e.raw))
			continue
		}
		fields, err := c.members(e.raw, e.off)
		if err != nil {
			c.add(e.off, key, "%v", err)
			continue
		}
		byKey := c.keys(fields, []string{"glob", "instructions", "effort"})
		var r PathRule
		if g, found := byKey["glob"]; !found {
			c.add(e.off, key, `has no "glob"; name the files it is about, for example "api/**"`)
		} else if r.Glob, ok = c.str(g, key+".glob", "api/**"); ok {
			if msg := glob.Problem(r.Glob); msg != "" {
				c.add(g.off, key+".glob", "%s", msg)
			}
		}
		in, hasIn := byKey["instructions"]
		ef, hasEf := byKey["effort"]
		switch {
		case !hasIn && !hasEf:
			c.add(e.off, key, `has no "instructions" or "effort"; say what reviewers should check in these files, or how much review they get ("effort": "deep")`)
		case hasIn:
			r.Instructions, _ = c.str(in, key+".instructions", "Every handler checks the caller's permission.")
		}
		if hasEf {
			if r.Effort = c.effort(ef, key+".effort"); r.Effort == effort.Auto {
				c.add(ef.off, key+".effort", `"auto" is what a path without a rule gets: name "quick", "standard" or "deep"`)
			}
		}
		rules = append(rules, r)
	}
	return rules
}

// validLogin reports whether s is a GitHub login, or an App's bot account
// (name[bot]): a letter or digit, then up to 38 letters, digits or hyphens.
// It is checked by hand: a regular expression compiled at package
// initialisation cost 0.1 ms of every start of the binary.
func validLogin(s string) bool {
	s = strings.TrimSuffix(s, "[bot]")
	if s == "" || len(s) > 39 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return false
		}
	}
	return true
}

// logins decodes trustedLogins: GitHub logins.
func (c *checker) logins(m member) []string {
	elems, ok := c.list(m, "trustedLogins", "GitHub logins")
	if !ok {
		return nil
	}
	var out []string
	for i, e := range elems {
		key := fmt.Sprintf("trustedLogins[%d]", i)
		if s, ok := c.str(e, key, "github-actions[bot]"); ok {
			if !validLogin(s) {
				c.add(e.off, key, "%q is not a GitHub login: give one such as \"octocat\" or an App's bot, \"github-actions[bot]\"", s)
				continue
			}
			out = append(out, s)
		}
	}
	return out
}

// globs decodes a list of globs, the value of key.
func (c *checker) globs(m member, key string) []string {
	elems, ok := c.list(m, key, "glob strings")
	if !ok {
		return nil
	}
	var out []string
	for i, e := range elems {
		key := fmt.Sprintf("%s[%d]", key, i)
		if s, ok := c.str(e, key, "generated/**"); ok {
			if msg := glob.Problem(s); msg != "" {
				c.add(e.off, key, "%s", msg)
			}
			out = append(out, s)
		}
	}
	return out
}

// object splits the file's top-level JSON object into members. It returns
// nil after reporting a problem when the file is not a JSON object.
func (c *checker) object() []member {
	if len(bytes.TrimSpace(c.data)) == 0 {
		c.add(-1, "", "the file is empty")
		return nil
	}
	var v any
	if err := json.Unmarshal(c.data, &v); err != nil {
		var syn *json.SyntaxError
		if !errors.As(err, &syn) {
			c.add(-1, "", "not valid JSON: %v", err)
			return nil
		}
		// Offset counts the bytes read, the offending one included; at the
		// end of the input it points just past the last byte.
		off := int(syn.Offset) - 1
		if strings.HasPrefix(syn.Error(), "unexpected end") {
			off = int(syn.Offset)
		}
		c.add(off, "", "JSON syntax error: %v%s", err, syntaxHint(syn.Error()))
		return nil
	}
	start := len(c.data) - len(bytes.TrimLeft(c.data, " \t\r\n"))
	if _, isObject := v.(map[string]any); !isObject {
		c.add(start, "", "the file must hold a JSON object ({ ... }), found %s", kind(bytes.TrimSpace(c.data)))
		return nil
	}
	members, err := c.members(c.data[start:], start)
	if err != nil { // not expected once Unmarshal accepted the file
		c.add(-1, "", "not valid JSON: %v", err)
		return nil
	}
	if members == nil {
		members = []member{} // {}: no keys, yet an object
	}
	return members
}

// syntaxHint guesses the usual cause of a JSON syntax error.
func syntaxHint(msg string) string {
	switch {
	case strings.HasSuffix(msg, "after object key:value pair"), strings.HasSuffix(msg, "after array element"):
		return " (is a comma missing before it?)"
	case strings.HasPrefix(msg, "invalid character '}' looking for beginning of object key"),
		strings.HasPrefix(msg, "invalid character ']' looking for beginning of value"):
		return " (JSON allows no comma before it)"
	}
	return ""
}

// members walks a valid JSON object or array (raw, at offset base in the
// file) and returns its values with their offsets; keys are "" for arrays.
func (c *checker) members(raw []byte, base int) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // { or [
		return nil, err
	}
	var out []member
	for dec.More() {
		var m member
		if raw[0] == '{' {
			m.keyOff = base + skipSeparators(raw, int(dec.InputOffset()))
			tok, err := dec.Token()
			if err != nil {
				return nil, err
			}
			m.key, _ = tok.(string)
		}
		m.off = base + skipSeparators(raw, int(dec.InputOffset()))
		if err := dec.Decode(&m.raw); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// skipSeparators returns the offset of the first byte at or after i that is
// not a blank, comma or colon: where the next key or value starts.
func skipSeparators(raw []byte, i int) int {
	return len(raw) - len(bytes.TrimLeft(raw[i:], " \t\r\n,:"))
}

// keys indexes members by key, reporting unknown and repeated keys.
func (c *checker) keys(members []member, known []string) map[string]member {
	byKey := map[string]member{}
	for _, m := range members {
		_, seen := byKey[m.key]
		switch {
		case !slices.Contains(known, m.key):
			msg := fmt.Sprintf("unknown key %q", m.key)
			if s := suggest(m.key, known); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else {
				msg += "; known keys: " + strings.Join(known, ", ")
			}
			c.add(m.keyOff, "", "%s", msg)
		case seen:
			c.add(m.keyOff, m.key, "appears more than once; keep one")
		default:
			byKey[m.key] = m
		}
	}
	return byKey
}

// list decodes an array value, reporting any other kind.
func (c *checker) list(m member, key, of string) ([]member, bool) {
	if len(m.raw) == 0 || m.raw[0] != '[' {
		c.add(m.off, key, "must be an array of %s, found %s", of, kind(m.raw))
		return nil, false
	}
	elems, err := c.members(m.raw, m.off)
	if err != nil {
		c.add(m.off, key, "%v", err)
		return nil, false
	}
	return elems, true
}

func (c *checker) str(m member, key, example string) (string, bool) {
	var s string
	if len(m.raw) == 0 || m.raw[0] != '"' || json.Unmarshal(m.raw, &s) != nil {
		c.add(m.off, key, "must be a string such as %q, found %s", example, kind(m.raw))
		return "", false
	}
	return s, true
}

// priorities decodes a list of distinct finding priorities, P0 to P3.
func (c *checker) priorities(m member, key string) []string {
	elems, ok := c.list(m, key, `priorities such as ["P0", "P1", "P2", "P3"]`)
	if !ok {
		return nil
	}
	out := []string{} // [] is no priority, unlike an absent key
	for i, e := range elems {
		p, ok := c.str(e, fmt.Sprintf("%s[%d]", key, i), "P3")
		switch {
		case !ok:
		case !slices.Contains([]string{"P0", "P1", "P2", "P3"}, p):
			c.add(e.off, fmt.Sprintf("%s[%d]", key, i), "is %q; a priority is P0, P1, P2 or P3", p)
		case slices.Contains(out, p):
			c.add(e.off, fmt.Sprintf("%s[%d]", key, i), "repeats %s; list each priority once", p)
		default:
			out = append(out, p)
		}
	}
	return out
}

// boolean decodes true or false, reporting any other value.
func (c *checker) boolean(m member, key string) bool {
	var b bool
	if len(m.raw) == 0 || (m.raw[0] != 't' && m.raw[0] != 'f') || json.Unmarshal(m.raw, &b) != nil {
		c.add(m.off, key, "must be true or false, found %s", kind(m.raw))
	}
	return b
}

// describe decodes "describe": true or false, or {"compliance":
// "finding"|"report"}, which describes too and says whether a requirement
// of a linked issue the PR does not meet is a P2 finding
// (docs/architecture.md, Describe).
func (c *checker) describe(m member) (first, findings bool) {
	if len(m.raw) == 0 || m.raw[0] != '{' {
		return c.boolean(m, "describe"), false
	}
	fields, err := c.members(m.raw, m.off)
	if err != nil {
		c.add(m.off, "describe", "%v", err)
		return false, false
	}
	byKey := c.keys(fields, []string{"compliance"})
	if v, found := byKey["compliance"]; found {
		switch s, _ := c.str(v, "describe.compliance", "finding"); s {
		case "finding":
			findings = true
		case "report":
		default:
			c.add(v.off, "describe.compliance", `must be "finding" (a requirement the PR does not meet is a P2 finding) or "report" (it is only reported), found %q`, s)
		}
	}
	return true, findings
}

// prices decodes {"provider/model": {"input": $, "cachedInput": $, "output": $}}.
func (c *checker) prices(m member) map[string]Price {
	out := map[string]Price{}
	for _, e := range c.perModel(m, "prices", "prices per model in dollars per million tokens", `{"openai/gpt-4.1": {"input": 2, "cachedInput": 0.5, "output": 8}}`) {
		key := fmt.Sprintf("prices[%q]", e.key)
		if len(e.raw) == 0 || e.raw[0] != '{' {
			c.add(e.off, key, `must be an object such as {"input": 2, "output": 8}, found %s`, kind(e.raw))
			continue
		}
		fields, err := c.members(e.raw, e.off)
		if err != nil {
			c.add(e.off, key, "%v", err)
			continue
		}
		byKey := c.keys(fields, []string{"input", "cachedInput", "output"})
		var p Price
		for _, f := range []struct {
			name string
			dst  *float64
		}{{"input", &p.Input}, {"cachedInput", &p.CachedInput}, {"output", &p.Output}} {
			v, found := byKey[f.name]
			if !found {
				if f.name != "cachedInput" {
					c.add(e.off, key, "has no %q; give the price in dollars per million tokens", f.name)
				}
				continue
			}
			if json.Unmarshal(v.raw, f.dst) != nil || *f.dst < 0 {
				c.add(v.off, key+"."+f.name, "must be a number of dollars per million tokens, 0 or more, found %s", strings.TrimSpace(string(v.raw)))
			}
		}
		if _, found := byKey["cachedInput"]; !found {
			p.CachedInput = p.Input
		}
		out[e.key] = p
	}
	return out
}

// perModel checks that m is an object of what per model, keyed by
// "provider/model" names, and returns its members (none when it is not).
func (c *checker) perModel(m member, key, what, example string) []member {
	if len(m.raw) == 0 || m.raw[0] != '{' {
		c.add(m.off, key, "must be an object of %s, such as %s, found %s", what, example, kind(m.raw))
		return nil
	}
	models, err := c.members(m.raw, m.off)
	if err != nil {
		c.add(m.off, key, "%v", err)
		return nil
	}
	for _, e := range models {
		if _, err := llm.ParseModel(e.key); err != nil {
			c.add(e.keyOff, fmt.Sprintf("%s[%q]", key, e.key), "%v", err)
		}
	}
	return models
}

// cutoffs decodes {"provider/model": "YYYY-MM-DD"}: each model's training
// cutoff, before which gh ocdx eval history does not count a pull request
// for it (docs/architecture.md, Eval).
func (c *checker) cutoffs(m member) map[string]time.Time {
	out := map[string]time.Time{}
	for _, e := range c.perModel(m, "modelCutoffs", "training cutoff dates per model", `{"openai/gpt-4.1": "2024-06-01"}`) {
		key := fmt.Sprintf("modelCutoffs[%q]", e.key)
		var s string
		t, err := time.Time{}, json.Unmarshal(e.raw, &s)
		if err == nil {
			t, err = time.Parse(time.DateOnly, s)
		}
		if err != nil {
			c.add(e.off, key, "must be a date as \"YYYY-MM-DD\", such as \"2024-06-01\", found %s", strings.TrimSpace(string(e.raw)))
			continue
		}
		out[e.key] = t
	}
	return out
}

// positive decodes a whole number above zero.
func (c *checker) positive(m member, key string, example int64) int64 {
	var n int64
	if len(m.raw) == 0 || json.Unmarshal(m.raw, &n) != nil || n <= 0 {
		c.add(m.off, key, "must be a whole number above zero, such as %d, found %s", example, strings.TrimSpace(string(m.raw)))
		return 0
	}
	return n
}

// model decodes a "provider/model" string; the zero Model after a problem.
func (c *checker) model(m member, key string) llm.ModelName {
	s, ok := c.str(m, key, "openai/gpt-4.1")
	if !ok {
		return llm.ModelName{}
	}
	if strings.TrimSpace(s) == "" {
		c.add(m.off, key, "is empty; name a model as provider/model, for example \"openai/gpt-4.1\"")
		return llm.ModelName{}
	}
	model, err := llm.ParseModel(s)
	if err != nil {
		c.add(m.off, key, "%v", err)
	}
	return model
}

// outputTokens decodes {"prFixModel": 16384, …}: an output cap per role.
func (c *checker) outputTokens(m member) map[string]int64 {
	const example = `{"prFixModel": 16384}`
	if len(m.raw) == 0 || m.raw[0] != '{' {
		c.add(m.off, "outputTokens", "must be an object of role keys and token counts such as %s, found %s", example, kind(m.raw))
		return nil
	}
	members, err := c.members(m.raw, m.off)
	if err != nil {
		c.add(m.off, "outputTokens", "%v", err)
		return nil
	}
	out := map[string]int64{}
	for key, e := range c.keys(members, roleKeys) {
		var n int64
		if json.Unmarshal(e.raw, &n) != nil || n < 1 || n > MaxOutputTokens {
			c.add(e.off, "outputTokens."+key, "must be a whole number of tokens from 1 to %d, found %s", MaxOutputTokens, e.raw)
			continue
		}
		out[key] = n
	}
	return out
}

// commands decodes {"fix": bool}: whether /ocdx commands may fix.
func (c *checker) commands(m member) bool {
	if len(m.raw) == 0 || m.raw[0] != '{' {
		c.add(m.off, "commands", `must be an object such as {"fix": true}, found %s`, kind(m.raw))
		return false
	}
	members, err := c.members(m.raw, m.off)
	if err != nil {
		c.add(m.off, "commands", "%v", err)
		return false
	}
	fix := false
	for key, e := range c.keys(members, []string{"fix"}) {
		if key == "fix" {
			fix = c.boolean(e, "commands.fix")
		}
	}
	return fix
}

// verify decodes a list of commands.
func (c *checker) verify(m member) []string {
	elems, ok := c.list(m, "verify", "command strings")
	if !ok {
		return nil
	}
	if len(elems) == 0 {
		c.add(m.off, "verify", "is empty; list at least one command that checks a change (for example \"go test ./...\" or \"make test\"), or remove the key")
	}
	var cmds []string
	for i, e := range elems {
		key := fmt.Sprintf("verify[%d]", i)
		s, ok := c.str(e, key, "go test ./...")
		switch {
		case !ok: // reported
		case strings.TrimSpace(s) == "":
			c.add(e.off, key, "is empty; give a command such as \"go test ./...\", or remove the entry")
		default:
			cmds = append(cmds, s)
		}
	}
	return cmds
}

// kind names the JSON type of a raw value for messages.
func kind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

// effort decodes an effort tier's name (docs/architecture.md, Effort tiers).
func (c *checker) effort(m member, key string) effort.Tier {
	s, ok := c.str(m, key, "deep")
	if !ok {
		return ""
	}
	t, err := effort.Parse(s)
	if err != nil || s == "" {
		c.add(m.off, key, "%q is not an effort tier: use one of %s", s, strings.Join(effort.Names, ", "))
		return ""
	}
	return t
}
