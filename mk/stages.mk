# icache-merge, scalar-merge, mte-parse: their benchmark in make bench
# (test/bench/stages.sh) and its log generator.

build/bin/gen-stages: test/bench/gen-stages.c
	@mkdir -p build/bin
	$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $<

bench-stages: build/bin/.ok build/bin/gen-dump build/bin/gen-stages build/bin/peakrss
	@sh test/bench/stages.sh
.PHONY: bench-stages

EXTRA_BENCH += bench-stages
