package stateview

import (
	"encoding/json"
	"fmt"

	"github.com/ocdx/gh-ocdx/internal/jsonout"
	"github.com/ocdx/gh-ocdx/state"
)

// JSON is state records (a state.PR, a []state.Summary) as --json gives
// them for every verb: the fields asked for (nil: every field, each there
// even when empty), pr as {number, repository, url} (a local review's as
// {repository, branch}), durations in seconds. The state file keeps its
// own shapes.
func JSON(v any, fields []string) (any, error) {
	// Every field asked for, from the record's type, before it is reshaped.
	b, err := jsonout.Select(v, fields)
	if err != nil {
		return nil, err
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		return nil, err
	}
	return outputShapes(x), nil
}

func outputShapes(x any) any {
	switch v := x.(type) {
	case []any:
		for i := range v {
			v[i] = outputShapes(v[i])
		}
	case map[string]any:
		for k, val := range v {
			switch s, isString := val.(string); {
			case k == "pr" && isString:
				v[k] = prOutput(s)
			case k == "duration":
				if ns, ok := val.(float64); ok {
					delete(v, k)
					v["durationSeconds"] = ns / 1e9
				}
			default:
				v[k] = outputShapes(val)
			}
		}
	}
	return x
}

// prOutput is a state key as --json names a pull request.
func prOutput(key string) any {
	k, err := state.ParseKey(key)
	switch {
	case err != nil:
		return key
	case k.IsLocal():
		return map[string]any{"repository": k.Local, "branch": k.Branch}
	}
	// The fields of every verb's pr, in their order (a map's are sorted).
	return map[string]any{"number": k.Number, "repository": k.Owner + "/" + k.Repo,
		"url": fmt.Sprintf("https://%s/%s/%s/pull/%d", k.Host, k.Owner, k.Repo, k.Number)}
}
