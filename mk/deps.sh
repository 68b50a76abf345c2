#!/bin/sh
# Install the Debian packages the build and tests need, only when they are absent.
# Called by `make deps` (a prerequisite of demo, check and bench).
set -eu
need=""
[ -f /usr/include/lz4frame.h ]      || need="$need liblz4-dev"
[ -f /usr/include/cjson/cJSON.h ]   || need="$need libcjson-dev"
[ -f /usr/include/archive.h ]       || need="$need libarchive-dev"
command -v bats >/dev/null 2>&1     || need="$need bats"
command -v parallel >/dev/null 2>&1 || need="$need parallel"
command -v jq >/dev/null 2>&1       || need="$need jq"
command -v lz4 >/dev/null 2>&1      || need="$need lz4"
command -v tar >/dev/null 2>&1      || need="$need tar"
command -v addr2line >/dev/null 2>&1 || need="$need binutils"
command -v python3 >/dev/null 2>&1  || need="$need python3"
[ -n "$need" ] || exit 0
echo "optrace: installing missing packages:$need" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet; update once if the first try fails.
$sudo apt-get install -y -q $need >/dev/null 2>&1 || {
	$sudo apt-get update -q >/dev/null
	$sudo apt-get install -y -q $need
}
