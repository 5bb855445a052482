package testkit

import (
	"net/http"
	"regexp"
	"strconv"
)

// Release is a release of a repository as the fake serves it: its tag, the
// commit the tag points at and its assets (name → content).
type Release struct {
	Tag, Commit string
	Assets      map[string][]byte
}

// release is a stored Release with the ids of its assets.
type release struct {
	Release
	ids map[string]int64 // asset name → id
}

// asset is a stored release asset.
type asset struct {
	repo, name string
	body       []byte
}

var (
	reRelease = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/releases/tags/([^/]+)$`)
	reAsset   = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/releases/assets/(\d+)$`)
	reTags    = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/tags$`)
	// GitHub answers an asset's bytes by a redirect to another address.
	reDownload = regexp.MustCompile(`^/release-assets/(\d+)$`)
)

// AddRelease adds a release (and its tag) to repo ("owner/name").
func (g *GitHub) AddRelease(repo string, rel Release) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.releases == nil {
		g.releases, g.assets = map[string][]*release{}, map[int64]asset{}
	}
	r := &release{Release: rel, ids: map[string]int64{}}
	for name, body := range rel.Assets {
		g.nextID++
		r.ids[name] = g.nextID
		g.assets[g.nextID] = asset{repo: repo, name: name, body: body}
	}
	g.releases[repo] = append(g.releases[repo], r)
}

// releaseKind is the kind of a releases or tags request, "" for another.
func releaseKind(path string) string {
	switch {
	case reRelease.MatchString(path):
		return "release"
	case reAsset.MatchString(path):
		return "asset"
	case reTags.MatchString(path):
		return "tags"
	case reDownload.MatchString(path):
		return "download"
	}
	return ""
}

// serveReleases answers as GitHub's REST API does: a release by tag with
// its assets, an asset's bytes when asked for application/octet-stream
// (through a redirect), and the repository's tags with the commits they
// point at.
func (g *GitHub) serveReleases(w http.ResponseWriter, r *http.Request, kind string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch kind {
	case "release":
		m := reRelease.FindStringSubmatch(r.URL.Path)
		for _, rel := range g.releases[m[1]] {
			if rel.Tag != m[2] {
				continue
			}
			assets := []map[string]any{}
			for name, id := range rel.ids {
				assets = append(assets, map[string]any{"id": id, "name": name, "size": len(rel.Assets[name]),
					"url": "https://" + g.Host() + "/api/v3/repos/" + m[1] + "/releases/assets/" + strconv.FormatInt(id, 10)})
			}
			writeJSON(w, http.StatusOK, map[string]any{"tag_name": rel.Tag, "target_commitish": rel.Commit, "assets": assets})
			return
		}
	case "asset":
		m := reAsset.FindStringSubmatch(r.URL.Path)
		id, _ := strconv.ParseInt(m[2], 10, 64)
		if a, ok := g.assets[id]; ok && a.repo == m[1] {
			if r.Header.Get("Accept") != "application/octet-stream" {
				writeJSON(w, http.StatusOK, map[string]any{"id": id, "name": a.name, "size": len(a.body)})
				return
			}
			http.Redirect(w, r, "/release-assets/"+m[2], http.StatusFound)
			return
		}
	case "download":
		id, _ := strconv.ParseInt(reDownload.FindStringSubmatch(r.URL.Path)[1], 10, 64)
		if a, ok := g.assets[id]; ok {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(a.body)
			return
		}
	case "tags":
		m := reTags.FindStringSubmatch(r.URL.Path)
		tags := []map[string]any{}
		for _, rel := range g.releases[m[1]] {
			tags = append(tags, map[string]any{"name": rel.Tag, "commit": map[string]any{"sha": rel.Commit}})
		}
		writeJSON(w, http.StatusOK, tags)
		return
	}
	notFound(w)
}
