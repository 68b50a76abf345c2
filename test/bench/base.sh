#!/bin/sh
# Build the tools of another revision for compare.sh and prints the
# directory of its binaries:
#
#   sh test/bench/base.sh REV [DIR]
#
# REV: any git revision of this checkout (main, HEAD~3, a tag); DIR: where
# to build (default a fresh directory under $TMPDIR or /tmp, kept).  The
# build's messages go to DIR/build.log.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: base.sh REV [DIR]" >&2; exit 2; }
rev=$(git -C "$top" rev-parse --verify --quiet "$1^{commit}") ||
	{ echo "base.sh: $1: not a revision of $top" >&2; exit 2; }
dir=${2:-$(mktemp -d "${TMPDIR:-/tmp}/optrace-base.XXXXXX")}
mkdir -p "$dir/src"
git -C "$top" archive "$rev" | tar -x -C "$dir/src"
make -C "$dir/src" -j"$(nproc)" build/bin/.ok >"$dir/build.log" 2>&1 ||
	{ echo "base.sh: the build of $1 failed: see $dir/build.log" >&2; exit 4; }
echo "$dir/src/build/bin"
