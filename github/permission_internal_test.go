package github

import "testing"

// A custom repository role is taken at its base permission; a built-in
// role_name wins over the folded permission.
func TestPermissionOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		roleName, permission string
		want                 Permission
	}{
		{"maintain", "write", PermMaintain},
		{"triage", "read", PermTriage},
		{"admin", "admin", PermAdmin},
		{"security-manager", "write", PermWrite},
		{"", "read", PermRead},
		{"", "", PermNone},
		{"odd", "odder", PermNone},
	} {
		if got := permissionOf(tc.roleName, tc.permission); got != tc.want {
			t.Errorf("permissionOf(%q, %q) = %q, want %q", tc.roleName, tc.permission, got, tc.want)
		}
	}
}
