#!/usr/bin/env bash
# Cross-compiles release binaries for cli/gh-extension-precompile, which calls
# this script with the release tag as $1 and uploads every file of dist/:
# the binaries dist/<os>-<arch>[.exe] and dist/gh-ocdx_<tag>_checksums.txt,
# their SHA-256 sums, which the GitHub Action (action/run.sh) checks a
# binary against before it runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

tag="${1:-dev}"
platforms=(
  darwin-amd64 darwin-arm64
  linux-386 linux-amd64 linux-arm linux-arm64
  windows-386 windows-amd64 windows-arm64
  freebsd-amd64 freebsd-arm64
)

rm -rf dist
mkdir -p dist
assets=()
for p in "${platforms[@]}"; do
  goos="${p%-*}"
  goarch="${p#*-}"
  ext=""
  [ "$goos" = windows ] && ext=".exe"
  echo "building dist/${p}${ext}"
  CGO_ENABLED=0 GOOS="$goos" GOARCH="$goarch" \
    go build -trimpath -ldflags "-s -w -X main.version=${tag}" -o "dist/${p}${ext}" .
  assets+=("${p}${ext}")
done

sums="gh-ocdx_${tag}_checksums.txt"
echo "writing dist/${sums}"
if command -v sha256sum >/dev/null 2>&1; then
  (cd dist && sha256sum -- "${assets[@]}") > "dist/${sums}"
else
  (cd dist && shasum -a 256 -- "${assets[@]}") > "dist/${sums}"
fi
