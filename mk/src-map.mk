# src-map: pc -> source lines through the kernel binary's debug information
# (cmd/src-map.c, cmd/src-map/, in the Makefile's TOOLS).  See man/src-map.1.

# make bench: 100 000 distinct pcs through src-map (test/bench/src-map.sh).
EXTRA_BENCH += bench-src-map
.PHONY: bench-src-map
bench-src-map: build/bin/.ok build/bin/peakrss
	@sh test/bench/src-map.sh
