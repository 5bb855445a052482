package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cli/go-gh/v2/pkg/api"
)

// Permission is a login's role on a repository, as GitHub names it.
type Permission string

const (
	PermAdmin    Permission = "admin"
	PermMaintain Permission = "maintain"
	PermWrite    Permission = "write"
	PermTriage   Permission = "triage"
	PermRead     Permission = "read"
	PermNone     Permission = "none"
)

// CanWrite reports whether p can push to the repository: write, maintain
// or admin.
func (p Permission) CanWrite() bool {
	return p == PermWrite || p == PermMaintain || p == PermAdmin
}

// Permission reads login's permission on repo (one REST request). GitHub's
// "permission" field folds maintain into write and triage into read, so
// "role_name" decides when it is one of the five roles; a custom role is
// taken at its base ("permission"). A login GitHub does not know (404) has
// none. The token's user needs push access to ask; without it GitHub
// answers 403, an error.
func (c *Client) Permission(ctx context.Context, repo Repo, login string) (Permission, error) {
	var out struct {
		Permission string `json:"permission"`
		RoleName   string `json:"role_name"`
	}
	path := fmt.Sprintf("repos/%s/%s/collaborators/%s/permission", repo.Owner, repo.Name, url.PathEscape(login))
	err := c.rest.DoWithContext(ctx, http.MethodGet, path, nil, &out)
	var he *api.HTTPError
	if errors.As(err, &he) && he.StatusCode == http.StatusNotFound {
		return PermNone, nil
	}
	if err != nil {
		return "", c.explain(err, "the permission of "+login, repo)
	}
	return permissionOf(out.RoleName, out.Permission), nil
}

// permissionOf is the role role_name names when it is a built-in one, else
// the base permission.
func permissionOf(roleName, permission string) Permission {
	known := []Permission{PermAdmin, PermMaintain, PermWrite, PermTriage, PermRead, PermNone}
	for _, s := range []string{roleName, permission} {
		for _, p := range known {
			if strings.EqualFold(s, string(p)) {
				return p
			}
		}
	}
	return PermNone
}
