#!/usr/bin/env bash
# The steps of the gh-ocdx GitHub Action (action.yml only calls this file):
# install the pinned gh-ocdx, run `gh ocdx review-loop <pr> --yes --json`,
# write the run's summary to $GITHUB_STEP_SUMMARY and the outputs outcome
# and exit-code to $GITHUB_OUTPUT, then exit with review-loop's code.
#
# The inputs arrive as variables, never as script text, so nothing in a PR
# or an input can become a command here:
#   INPUT_PR       the pull request number (default: EVENT_PR, the event's)
#   INPUT_ARGS     more arguments for review-loop, separated by spaces
#   INPUT_CONFIG   a configuration file (OCDX_CONFIG)
#   INPUT_VERSION  the release tag to install (default: ACTION_REF, the
#                  action's own); "installed" uses the gh-ocdx already
#                  installed by an earlier step
set -euo pipefail

pr="${INPUT_PR:-${EVENT_PR:-}}"
if ! [[ "$pr" =~ ^[1-9][0-9]*$ ]]; then
  echo "gh-ocdx action: no pull request number: set the input pr, or run on a pull_request event" >&2
  exit 2
fi
version="${INPUT_VERSION:-${ACTION_REF:-}}"
if [ -z "$version" ]; then
  echo "gh-ocdx action: no version to install: set the input version to a release tag (v1.2.3)" >&2
  exit 2
fi
if [ -n "${INPUT_CONFIG:-}" ]; then
  export OCDX_CONFIG="$INPUT_CONFIG"
fi

if [ "$version" != "installed" ]; then
  if [ "$(gh ocdx version 2>/dev/null || true)" != "gh-ocdx $version" ]; then
    gh extension remove ocdx >/dev/null 2>&1 || true
    gh extension install ocdx/gh-ocdx --pin "$version"
  fi
fi
gh ocdx version

read -r -a extra <<< "${INPUT_ARGS:-}"
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
set +e
gh ocdx review-loop "$pr" --yes --json "${extra[@]}" > "$out"
code=$?
set -e

# The outcome is the run's (converged, blocked, failed); a run that stopped
# before it could print one is an error.
outcome="$(jq -r '.outcome // empty' "$out" 2>/dev/null || true)"
if [ -z "$outcome" ]; then
  outcome=error
fi
{
  echo "outcome=$outcome"
  echo "exit-code=$code"
} >> "${GITHUB_OUTPUT:-/dev/null}"

{
  echo "## gh-ocdx review-loop: PR #$pr"
  echo
  if [ "$outcome" = error ]; then
    echo "**error** (exit $code): the run stopped before its first round; the step's log says why."
  else
    jq -r --arg code "$code" '
      "**\(.label)** (exit \($code)): \(.reason)",
      "",
      "| round | head | consensus | P0 | P1 | P2 | P3 | stuck |",
      "|---|---|---|---|---|---|---|---|",
      (.rounds[] | "| \(.n) | `\(.headOid[0:7])` | \(.consensus) | \(.counts.p0) | \(.counts.p1) | \(.counts.p2) | \(.counts.p3) | \(.stuck | length) |"),
      "",
      (if (.remaining | length) > 0 then "Remaining P0–P2: " + ([.remaining[].id] | join(", ")) else "No P0–P2 finding remains." end),
      "",
      "[The pull request](\(.pr.url))"' "$out"
  fi
} >> "${GITHUB_STEP_SUMMARY:-/dev/null}"

exit "$code"
