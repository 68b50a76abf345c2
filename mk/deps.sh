#!/bin/sh
# The Debian packages the build and the tests need.
#   mk/deps.sh [install]   install those that are absent (make deps, and the
#                          targets that install: check, demo, bench, fuzz)
#   mk/deps.sh build       only say which packages the build lacks, in one
#                          line, and fail (a plain make: never installs)
#   mk/deps.sh tests       the same for the build and the tests (check-bats)
#   mk/deps.sh fuzz        install what make fuzz needs besides (clang)
set -eu
mode=${1:-install}

# What compiling needs: headers of the libraries, and python3 for a
# generated sample case of the stand-in simulator.
build=""
[ -f /usr/include/lz4frame.h ]      || build="$build liblz4-dev"
[ -f /usr/include/cjson/cJSON.h ]   || build="$build libcjson-dev"
[ -f /usr/include/archive.h ]       || build="$build libarchive-dev"
command -v python3 >/dev/null 2>&1  || build="$build python3"
# What the tests and the demo run.
tests=""
command -v bats >/dev/null 2>&1     || tests="$tests bats"
command -v parallel >/dev/null 2>&1 || tests="$tests parallel"
command -v jq >/dev/null 2>&1       || tests="$tests jq"
command -v lz4 >/dev/null 2>&1      || tests="$tests lz4"
command -v tar >/dev/null 2>&1      || tests="$tests tar"
command -v addr2line >/dev/null 2>&1 || tests="$tests binutils"
command -v groff >/dev/null 2>&1    || tests="$tests groff"
command -v mandb >/dev/null 2>&1    || tests="$tests man-db"
# headless Chromium renders the SVG pictures (test/bats/svg.bats)
command -v chromium >/dev/null 2>&1 || tests="$tests chromium"
# sshd for the remote batch test (test/bats/remote-batch.bats runs its own
# daemons in network namespaces; the package's service is not used)
[ -x /usr/sbin/sshd ]               || tests="$tests openssh-server"
# rsync: what GNU parallel moves files with to and from remote hosts
command -v rsync >/dev/null 2>&1    || tests="$tests rsync"

case $mode in
build)
	[ -z "$build" ] && exit 0
	echo "optrace: missing Debian packages:$build (run 'make deps' to install them)" >&2
	exit 1 ;;
tests)
	[ -z "$build$tests" ] && exit 0
	echo "optrace: missing Debian packages:$build$tests (run 'make deps' to install them)" >&2
	exit 1 ;;
install)
	need="$build$tests" ;;
fuzz)
	need=""
	command -v clang >/dev/null 2>&1 || need=" clang" ;;
*)
	echo "usage: mk/deps.sh [install|build|tests|fuzz]" >&2
	exit 2 ;;
esac
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
