package redact

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

var markerRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\[SECRET:([a-z0-9-]+)\]`) })

// HasMarker reports whether s holds a [SECRET:kind] marker.
func HasMarker(s string) bool { return strings.Contains(s, markerPrefix) && markerRE().MatchString(s) }

// values lists the secret values of content by kind, as Mask would hide
// them: a model that read content saw each of them as its marker.
func values(content string) map[string][]string {
	out := map[string][]string{}
	vals := knownValues()
	if !hasSecret(content, vals) {
		return out
	}
	scan(content, vals, func(_ int, line string, sp []span, inKey bool) string {
		if inKey {
			v := line
			if v != "" && strings.ContainsRune("+- ", rune(v[0])) {
				v = v[1:]
			}
			out[KindPrivateKey] = append(out[KindPrivateKey], v)
		}
		for _, x := range sp {
			out[x.kind] = append(out[x.kind], line[x.start:x.end])
		}
		return line
	})
	return out
}

// MaskedEdit is old, a text a model copied from masked output, located in
// the real content: each marker in old stands for one secret value of its
// kind in content.
type MaskedEdit struct {
	content string
	re      *regexp.Regexp
	kinds   []string // the kind of each marker of old, in order
	matches [][]int
}

// Count is how many times old occurs in the content.
func (m *MaskedEdit) Count() int { return len(m.matches) }

// MatchMasked finds old in content, reading each [SECRET:kind] marker of
// old as any secret value of that kind found in content. An error says
// why a marker cannot match.
func MatchMasked(content, old string) (*MaskedEdit, error) {
	byKind := values(content)
	m := &MaskedEdit{content: content}
	var b strings.Builder
	last := 0
	for _, loc := range markerRE().FindAllStringSubmatchIndex(old, -1) {
		kind := old[loc[2]:loc[3]]
		vs := byKind[kind]
		if len(vs) == 0 {
			return nil, fmt.Errorf("old_string holds %s, but the file has no hidden %s: read the file again and copy the text as it is now", Marker(kind), kind)
		}
		b.WriteString(regexp.QuoteMeta(old[last:loc[0]]))
		b.WriteString("(" + alternation(vs) + ")")
		m.kinds = append(m.kinds, kind)
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(old[last:]))
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("old_string cannot be matched: %v", err)
	}
	m.re = re
	m.matches = re.FindAllStringSubmatchIndex(content, -1)
	return m, nil
}

func alternation(vs []string) string {
	vs = append([]string(nil), vs...)
	sort.Slice(vs, func(i, j int) bool { return len(vs[i]) > len(vs[j]) })
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = regexp.QuoteMeta(v)
	}
	return strings.Join(q, "|")
}

// Replace returns the content with the one occurrence of old replaced by
// new. A marker in new stands for the value the same kind's marker of old
// matched (in order, the last one reused), so a line can be changed around
// a secret; a marker of a kind old does not hold is an error, as its value
// is unknown.
func (m *MaskedEdit) Replace(new string) (string, error) {
	if len(m.matches) != 1 {
		return "", fmt.Errorf("old_string occurs %d times", len(m.matches))
	}
	loc := m.matches[0]
	got := map[string][]string{}
	for i, kind := range m.kinds {
		got[kind] = append(got[kind], m.content[loc[2*i+2]:loc[2*i+3]])
	}
	used := map[string]int{}
	var b strings.Builder
	last := 0
	for _, ml := range markerRE().FindAllStringSubmatchIndex(new, -1) {
		kind := new[ml[2]:ml[3]]
		vs := got[kind]
		if len(vs) == 0 {
			return "", fmt.Errorf("new_string holds %s, which old_string does not: the hidden value is unknown to you; write code that reads it from configuration or the environment instead", Marker(kind))
		}
		b.WriteString(new[last:ml[0]])
		b.WriteString(vs[min(used[kind], len(vs)-1)])
		used[kind]++
		last = ml[1]
	}
	b.WriteString(new[last:])
	return m.content[:loc[0]] + b.String() + m.content[loc[1]:], nil
}
