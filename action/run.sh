#!/usr/bin/env bash
# The steps of the gh-ocdx GitHub Action (action.yml only calls this file):
# install the pinned gh-ocdx release after checking its checksum, read the
# configuration from the PR's base branch, run
# `gh ocdx review-loop <pr> --yes --check-run --json`, write the run's summary to
# $GITHUB_STEP_SUMMARY and the outputs outcome and exit-code to
# $GITHUB_OUTPUT, then exit with review-loop's code.
#
# The inputs arrive as variables, never as script text, so nothing in a PR
# or an input can become a command here:
#   INPUT_PR       the pull request number (default: EVENT_PR, the event's)
#   INPUT_ARGS     more arguments for review-loop, separated by spaces
#   INPUT_CONFIG   a configuration file (OCDX_CONFIG), as a path in the
#                  repository: it is read from the PR's base branch
#   INPUT_VERSION  the release tag to install (default: the one ACTION_REF,
#                  the action's own ref, names or points at); "installed"
#                  uses the gh-ocdx already installed by an earlier step
#   INPUT_CHECK_RUN  true (default): review-loop publishes the gh-ocdx check
#                  run (--check-run); false: none
#   ACTION_REPOSITORY  the action's repository, whose releases are installed
#   EVENT_COMMENT_ID   on a comment event, the comment: the step runs
#                  `gh ocdx command <pr> --comment-id N` instead of review-loop
set -euo pipefail

# fail ends the step before review-loop ran: outcome error, the code, and
# the message on stderr (the step's log) and in the job's summary.
fail() {
  echo "gh-ocdx action: $2" >&2
  {
    echo "outcome=error"
    echo "exit-code=$1"
  } >> "${GITHUB_OUTPUT:-/dev/null}"
  {
    echo "## gh-ocdx review-loop"
    echo
    echo "**error** (exit $1): the action stopped before review-loop ran:"
    echo
    # An indented code block: Markdown reads nothing in it.
    sed 's/^/    /' <<< "$2"
  } >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
  exit "$1"
}

# tmpdir makes a private directory outside the checkout: under the
# runner's temp directory, which the runner empties after the job.
tmpdir() {
  mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/gh-ocdx-$1.XXXXXX"
}

# On GitHub Enterprise Server, gh talks to github.com unless GH_HOST names
# the server, and reads the token for a server from GH_ENTERPRISE_TOKEN,
# never from GH_TOKEN: the server is the runner's (GITHUB_SERVER_URL), and
# the token the one the step was given, so that the workflow as written for
# github.com runs there too. A GH_HOST or GH_ENTERPRISE_TOKEN the step sets
# wins.
if [ -z "${GH_HOST:-}" ] && [[ "${GITHUB_SERVER_URL:-}" =~ ^https://([A-Za-z0-9.-]+(:[0-9]+)?)/?$ ]] &&
  [ "${BASH_REMATCH[1]}" != github.com ]; then
  export GH_HOST="${BASH_REMATCH[1]}"
fi
# github.com and GHE.com's hosts take GH_TOKEN; a server does not.
if [ -n "${GH_HOST:-}" ] && [ "$GH_HOST" != github.com ] && [[ "$GH_HOST" != *.ghe.com ]] &&
  [ -z "${GH_ENTERPRISE_TOKEN:-}${GITHUB_ENTERPRISE_TOKEN:-}" ] && [ -n "${GH_TOKEN:-${GITHUB_TOKEN:-}}" ]; then
  export GH_ENTERPRISE_TOKEN="${GH_TOKEN:-$GITHUB_TOKEN}"
fi

# The inputs are checked before any request.
pr="${INPUT_PR:-${EVENT_PR:-}}"
if ! [[ "$pr" =~ ^[1-9][0-9]*$ ]]; then
  fail 2 "no pull request number: set the input pr, or run on a pull_request event"
fi
comment="${EVENT_COMMENT_ID:-}"
if [ -n "$comment" ] && ! [[ "$comment" =~ ^[1-9][0-9]*$ ]]; then
  fail 2 "the event's comment id $(printf '%q' "$comment") is not a number"
fi

check_run=()
case "${INPUT_CHECK_RUN:-true}" in
  true | "") check_run=(--check-run) ;;
  false) ;;
  *) fail 2 "check-run: $(printf '%q' "$INPUT_CHECK_RUN") is not true or false" ;;
esac

config=""
if [ -n "${INPUT_CONFIG:-}" ]; then
  config="${INPUT_CONFIG#./}"
  # A path in the repository, relative to its root: it becomes part of an
  # API path, so only plain characters, and never .. or an absolute path.
  if [[ "$config" == /* || "/$config/" == */../* || "/$config/" == */./* || "$config" == */ || "$config" == *//* ]] ||
    ! [[ "$config" =~ ^[A-Za-z0-9._/-]+$ ]]; then
    fail 2 "config: $(printf '%q' "$INPUT_CONFIG") is not a file's path in the repository: give it relative to the repository's root, without .. and in letters, digits, '.', '_', '-' and '/' (for example .github/ocdx-config.json)"
  fi
fi

action_repo="${ACTION_REPOSITORY:-ocdx/gh-ocdx}"
if ! [[ "$action_repo" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then
  fail 2 "the action's repository $(printf '%q' "$action_repo") is not OWNER/REPO"
fi

# release_at_commit sets version to the release tag that points at commit
# sha in the action's repository: the action is pinned by commit, and its
# ref names no release. Of several tags (v1 and v1.2.3 on one commit) the
# highest vX.Y.Z wins, a pre-release only when there is no other.
release_at_commit() {
  local sha="$1" names
  if ! names="$(gh api --paginate "repos/$action_repo/tags?per_page=100" | jq -r --arg sha "$sha" '.[] | select(.commit.sha == $sha) | .name')"; then
    fail 1 "the action is pinned at commit $sha, and the tags of $action_repo could not be listed to find its release: set the input version to the release tag of that commit (the one in the comment after the SHA, e.g. v1.2.3)"
  fi
  version="$(grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' <<< "$names" | sort -V | tail -n 1 || true)"
  if [ -z "$version" ]; then
    version="$(grep -E '^v[0-9]+\.[0-9]+\.[0-9]+-[0-9A-Za-z.-]+$' <<< "$names" | sort -V | tail -n 1 || true)"
  fi
  if [ -z "$version" ]; then
    fail 1 "the action is pinned at commit $sha, and no release tag (vX.Y.Z) of $action_repo points at it: pin the commit of a release, or set the input version to a release tag"
  fi
  echo "gh-ocdx action: the action is pinned at $sha, the commit of release $version"
}

version="${INPUT_VERSION:-}"
if [ -z "$version" ]; then
  if [[ "${ACTION_REF:-}" =~ ^[0-9a-f]{40}$ ]]; then
    release_at_commit "$ACTION_REF"
  else
    version="${ACTION_REF:-}"
  fi
fi
if [ -z "$version" ]; then
  fail 2 "no version to install: set the input version to a release tag (v1.2.3)"
fi
if [ "$version" != installed ] && ! [[ "$version" =~ ^[A-Za-z0-9][A-Za-z0-9._+-]*$ ]]; then
  fail 2 "version $(printf '%q' "$version") is not a release tag: set the input version to one (v1.2.3), or to installed"
fi

# sha256 prints the SHA-256 of a file in hex (coreutils on Linux and in
# Git Bash, shasum on macOS).
sha256() {
  if command -v sha256sum > /dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  else
    shasum -a 256 "$1" | cut -d ' ' -f 1
  fi
}

# install_release downloads this runner's binary of release version and
# the release's checksums file (script/build.sh writes it), and installs
# the binary only when its SHA-256 is the one the file lists: a binary
# that does not match is never run.
install_release() {
  local os arch ext="" asset sums release asset_id sums_id dir want got
  case "${RUNNER_OS:-$(uname -s)}" in
    Linux | linux) os=linux ;;
    macOS | Darwin) os=darwin ;;
    Windows | MINGW* | MSYS* | CYGWIN*) os=windows ext=.exe ;;
    FreeBSD) os=freebsd ;;
    *) fail 1 "no gh-ocdx release binary for this runner's system ${RUNNER_OS:-$(uname -s)}: install gh-ocdx in an earlier step and set the input version to installed" ;;
  esac
  case "${RUNNER_ARCH:-$(uname -m)}" in
    X64 | x86_64 | amd64) arch=amd64 ;;
    ARM64 | aarch64 | arm64) arch=arm64 ;;
    X86 | i386 | i686) arch=386 ;;
    ARM | armv6l | armv7l) arch=arm ;;
    *) fail 1 "no gh-ocdx release binary for this runner's architecture ${RUNNER_ARCH:-$(uname -m)}: install gh-ocdx in an earlier step and set the input version to installed" ;;
  esac
  asset="$os-$arch$ext"
  sums="gh-ocdx_${version}_checksums.txt"

  if ! release="$(gh api "repos/$action_repo/releases/tags/$version")"; then
    fail 1 "cannot read release $version of $action_repo (gh's error is above): set the input version to an existing release tag"
  fi
  asset_id="$(jq -r --arg n "$asset" '.assets[]? | select(.name == $n) | .id' <<< "$release")"
  sums_id="$(jq -r --arg n "$sums" '.assets[]? | select(.name == $n) | .id' <<< "$release")"
  if ! [[ "$asset_id" =~ ^[0-9]+$ ]]; then
    fail 1 "release $version of $action_repo has no binary $asset for this runner: install gh-ocdx in an earlier step and set the input version to installed"
  fi
  if ! [[ "$sums_id" =~ ^[0-9]+$ ]]; then
    fail 1 "release $version of $action_repo has no checksums file $sums, so its binary cannot be verified and is not run: use a release that has one"
  fi

  dir="$(tmpdir release)"
  if ! gh api -H 'Accept: application/octet-stream' "repos/$action_repo/releases/assets/$sums_id" > "$dir/$sums"; then
    fail 1 "cannot download $sums of release $version (gh's error is above): re-run the job"
  fi
  mkdir "$dir/gh-ocdx"
  if ! gh api -H 'Accept: application/octet-stream' "repos/$action_repo/releases/assets/$asset_id" > "$dir/download"; then
    fail 1 "cannot download $asset of release $version (gh's error is above): re-run the job"
  fi
  # One line "<sha256>  <name>" (or "*<name>", binary mode) for the asset.
  want="$(awk -v n="$asset" '$2 == n || $2 == "*" n { print $1 }' "$dir/$sums")"
  if ! [[ "$want" =~ ^[0-9a-f]{64}$ ]]; then
    fail 1 "$sums of release $version lists no single SHA-256 for $asset, so the binary cannot be verified and is not run"
  fi
  got="$(sha256 "$dir/download")"
  if [ "$got" != "$want" ]; then
    rm -f "$dir/download"
    fail 1 "the downloaded $asset of release $version has SHA-256 $got, but $sums lists $want: the binary was not run; re-run the job, and if it fails again, report it to $action_repo"
  fi
  echo "gh-ocdx action: $asset of release $version matches its SHA-256 in $sums"
  mv "$dir/download" "$dir/gh-ocdx/gh-ocdx$ext"
  chmod 0755 "$dir/gh-ocdx/gh-ocdx$ext"
  gh extension remove ocdx > /dev/null 2>&1 || true
  if ! (cd "$dir/gh-ocdx" && gh extension install .); then
    fail 1 "gh could not install the verified binary of release $version as an extension (gh's error is above)"
  fi
}

# The run's own files (the configuration, review-loop's JSON) live outside
# the checkout, and go when the step ends.
work="$(tmpdir run)"
trap 'rm -rf "$work"' EXIT

# The configuration names the models and the verify commands: it is read
# from the PR's base branch, as the base's .ocdx.json is, never from the
# checkout (the PR's head), so that a PR cannot change what it runs with.
# The PR is in GH_REPO's repository, else the workflow's.
if [ -n "$config" ]; then
  repo="${GH_REPO:-${GITHUB_REPOSITORY:-}}"
  if ! base="$(GH_REPO="$repo" gh api "repos/{owner}/{repo}/pulls/$pr" --jq '.base.sha + " " + .base.ref')"; then
    fail 1 "cannot read the base branch of PR #$pr (gh's error is above), from which the configuration $config is read"
  fi
  read -r base_sha base_ref <<< "$base"
  if ! [[ "${base_sha:-}" =~ ^[0-9a-f]{40}([0-9a-f]{24})?$ ]]; then
    fail 1 "PR #$pr has no base commit to read the configuration $config from"
  fi
  # Under its own path, so that what gh-ocdx says of "your configuration"
  # names the file the workflow gave.
  mkdir -p "$work/base/$(dirname "$config")"
  if ! GH_REPO="$repo" gh api -H 'Accept: application/vnd.github.raw' "repos/{owner}/{repo}/contents/$config?ref=$base_sha" > "$work/base/$config" 2> "$work/error"; then
    fail 1 "cannot read the configuration $config from PR #$pr's base branch $base_ref ($base_sha): $(tr -d '\r' < "$work/error" | head -n 3). The config input is read from the base branch, never from the PR's head: commit the file to $base_ref first."
  fi
  echo "gh-ocdx action: the configuration is $config of $base_ref ($base_sha)"
  export OCDX_CONFIG="$work/base/$config"
fi

if [ "$version" != installed ]; then
  install_release
fi
if ! gh ocdx version; then
  fail 1 "gh ocdx does not run (its error is above): with the input version installed, install gh-ocdx in an earlier step (gh extension install ocdx/gh-ocdx)"
fi

# A comment event: gh ocdx command acts on that one comment (an /ocdx
# command or a reply in gh-ocdx's threads), checking its author's
# permission before anything runs; it answers on the PR itself.
if [ -n "$comment" ]; then
  read -r -a extra <<< "${INPUT_ARGS:-}"
  set +e
  gh ocdx command "$pr" --comment-id "$comment" "${extra[@]}"
  code=$?
  set -e
  outcome=command
  if [ "$code" -ne 0 ] && [ "$code" -ne 3 ]; then
    outcome=error
  fi
  {
    echo "outcome=$outcome"
    echo "exit-code=$code"
  } >> "${GITHUB_OUTPUT:-/dev/null}"
  {
    echo "## gh-ocdx command: PR #$pr, comment $comment"
    echo
    echo "**$outcome** (exit $code): the answer is on the pull request; the step's log has the run."
  } >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
  exit "$code"
fi

# review-loop's JSON goes to $out; its stderr to the step's log as it
# comes, and to $log, whose last error line the summary quotes.
out="$work/out.json"
log="$work/log"
read -r -a extra <<< "${INPUT_ARGS:-}"
set +e
{
  # --json last: a word after it would be read as its fields.
  gh ocdx review-loop "$pr" --yes "${check_run[@]}" "${extra[@]}" --json 2>&1 >&3 3>&- | tee "$log" >&2
  code=${PIPESTATUS[0]}
} 3> "$out"
set -e

# The outcome is the run's (converged, blocked, failed); a run that stopped
# before it could print one is an error.
outcome="$(jq -r '.outcome // empty' "$out" 2> /dev/null || true)"
if [ -z "$outcome" ]; then
  outcome=error
fi
{
  echo "outcome=$outcome"
  echo "exit-code=$code"
} >> "${GITHUB_OUTPUT:-/dev/null}"

# The summary is written however the run ended. Its error line is quoted
# as an indented code block: Markdown reads nothing in it.
error_line="$(grep -E '^error: ' "$log" | tail -n 1 | cut -c 1-500 || true)"
{
  echo "## gh-ocdx review-loop: PR #$pr"
  echo
  if [ "$outcome" = error ]; then
    echo "**error** (exit $code): the run stopped before its first round."
  elif ! jq -r --arg code "$code" '
      . as $r
      # The reason often starts with the outcome ("converged: consensus approve, …"):
      # said once, after the label.
      | ($r.reason // "" | ltrimstr($r.label + ": ") | ltrimstr($r.outcome + ": ") | ltrimstr($r.outcome + " — ")) as $why
      | ([$r.rounds[]?.comments[]?.url] | last) as $report
      | "**\($r.label)** (exit \($code)): \($why)",
        "",
        (if ($r.rounds | length) > 0 then
          "| round | head | consensus | P0 | P1 | P2 | P3 | stuck |",
          "|---|---|---|---|---|---|---|---|",
          ($r.rounds[] | "| \(.n) | `\(.headOid[0:7])` | \(.consensus // "-" | if . == "" then "-" else . end) | \(.counts.p0) | \(.counts.p1) | \(.counts.p2) | \(.counts.p3) | \(.stuck | length) |"),
          ""
        else empty end),
        (if ($r.remaining | length) > 0 then "Remaining P0–P2: " + ([$r.remaining[].id] | join(", ")) else "No P0–P2 finding remains." end),
        "",
        (if $report then "[The report on the pull request](\($report)) · " else "" end) + "[The pull request](\($r.pr.url))"' "$out"; then
    echo "**$outcome** (exit $code): the run's result could not be read; the step's log has it."
  fi
  if [ -n "$error_line" ]; then
    echo
    echo "    $error_line"
    echo
    echo "The step's log has the whole run."
  fi
} >> "${GITHUB_STEP_SUMMARY:-/dev/null}"

exit "$code"
