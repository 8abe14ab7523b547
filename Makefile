# SPDX-License-Identifier: MIT
# mhfufs — see README.md.  `make` builds, `make check` tests (plain and
# under ASan+UBSan), `make demo` mounts a copy of the sample, `make bench` measures,
# `make install` installs the driver and its manuals.

CC      ?= cc
BUILD   ?= build
SAN     ?=
SAMPLE_SEED ?= 1
CRASH_ROUNDS ?= 120
STRESS_ROUNDS ?= 2000
STORM_SECONDS ?= 8
FLIP_ARCHIVES ?= 10
INVERSE_ROUNDS ?= 12
# fsx: operations per seed in `make check`, and the seeds `make stress` runs.
FSX_OPS ?= 600
STRESS_FSX_OPS ?= 5000
STRESS_FSX_SEEDS ?= 1 2 3 4
# `make fuzz`: seconds per target, targets run at once; `make fuzz-long`:
# executions per target.
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 1
FUZZ_LONG_RUNS ?= 10000000
# Real structures the fuzz replays start from: the sample's model PAC,
# its members, a pack's clips, a texture bank and its PNGs.
FUZZ_SEEDS = $(SAMPLE)/src/file_06185.pac $(SAMPLE)/src/file_06185/0.skeleton \
	$(SAMPLE)/src/file_06185/3.anim $(SAMPLE)/src/file_06185/3/pack.txt \
	$(SAMPLE)/src/file_06185/0/skeleton.txt $(SAMPLE)/src/file_06185/3/stream2 \
	$(SAMPLE)/src/file_06185/2.tmh $(SAMPLE)/src/file_06185/2/image00.png \
	$(SAMPLE)/src/file_06185/2/image02.png

# Where `make install` puts things (each under DESTDIR, for packaging).
# mount(8) finds helpers in /sbin only: the links there let `mount -t mhfu`
# and `mount -t fuse.mhfu` (and fstab lines of either type) run the driver.
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
SBINDIR ?= /sbin
MANDIR  ?= $(PREFIX)/share/man

# CFLAGS and LDFLAGS are the builder's (`make CFLAGS='-O0 -g'`), WERROR
# makes warnings errors (`make WERROR=` builds past them); the language,
# the warnings, the defines and the sanitizers are added to them always.
CFLAGS  ?= -O2 -g
WERROR  ?= -Werror
WARN_CFLAGS = -std=c11 -Wall -Wextra $(WERROR)
ifeq ($(SAN),1)
SAN_FLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
endif
ifeq ($(SAN),thread)
SAN_FLAGS = -fsanitize=thread
endif
# libFuzzer's build (tests/fuzz/fuzz.sh: CC=clang): the fuzz targets link
# libFuzzer's main instead of tests/fuzz/fuzz_driver.c.  Comparisons are not
# traced: the targets build valid structures from their inputs and the
# dictionary names the formats' words (memcmp and strcmp are still
# watched), and side by side for a minute, from the committed corpora and
# from none, the targets reached the same coverage with tracing as
# without while it cost an eighth to three quarters of each execution
# (bounds checks and loop counters in every decoder, encoder and rule).
ifeq ($(SAN),fuzz)
SAN_FLAGS = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-coverage=trace-cmp \
	    -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_MAIN = -fsanitize=fuzzer
endif
MH_CFLAGS  = $(WARN_CFLAGS) -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -MMD -MP $(SAN_FLAGS) $(CFLAGS)
MH_LDFLAGS = $(SAN_FLAGS) $(LDFLAGS)

PKG_CONFIG ?= pkg-config
# libfuse's headers as system headers: the dependency files (-MMD) then
# name none of this machine's paths, only the repository's.
FUSE_CFLAGS := $(patsubst -I%,-isystem %,$(shell $(PKG_CONFIG) --cflags fuse3 2>/dev/null))
FUSE_LIBS   := $(shell $(PKG_CONFIG) --libs fuse3 2>/dev/null)
CMOCKA_LIBS := $(shell $(PKG_CONFIG) --libs cmocka 2>/dev/null || echo -lcmocka)
# What the codecs link against: zlib (PNG).
CODEC_LIBS  := -lz -lm

CODEC_SRC := $(wildcard codecs/*.c)
# fs/ in layers, lowest first (fs/README.md): each folder is compiled
# seeing its own headers and those of the folders before it, and only
# fuse/ sees libfuse's; tests/layers.sh checks the same in make check.
FS_LAYERS := store cache tree commit fuse
FS_SRC    := $(foreach l,$(FS_LAYERS),$(wildcard fs/$(l)/*.c))
FS_INC_store  := -Ifs/store
FS_INC_cache  := $(FS_INC_store) -Ifs/cache
FS_INC_tree   := $(FS_INC_cache) -Ifs/tree
FS_INC_commit := $(FS_INC_tree) -Ifs/commit
FS_INC_fuse   := $(FS_INC_commit) -Ifs/fuse
# tests/ in folders: unit/ (cmocka), fuzz/ (targets, corpora), gen/ (the
# generator, mhfudump, the bench), mount/ (real programs on real mounts);
# rng.h and clipgen.h, which several share, at the top.
UNIT_SRC  := $(wildcard tests/unit/test_*.c)
FUZZ_SRC  := $(filter-out tests/fuzz/fuzz_driver.c,$(wildcard tests/fuzz/fuzz_*.c))

CODEC_OBJ := $(CODEC_SRC:%.c=$(BUILD)/%.o)
FS_OBJ    := $(FS_SRC:%.c=$(BUILD)/%.o)
# Objects only a pattern rule names: kept (make would delete them as
# intermediates, and the next build, seeing them in the .d files, would
# compile and link everything again).
TEST_OBJ  := $(UNIT_SRC:tests/%.c=$(BUILD)/tests/%.o) $(FUZZ_SRC:tests/%.c=$(BUILD)/tests/%.o) \
	$(BUILD)/tests/fuzz/fuzz_driver.o $(BUILD)/tests/gen/cipher_bench.o
# test_cipher runs twice: against the library (its fastest kernel here)
# and against the portable kernel alone.
UNITS     := $(UNIT_SRC:tests/%.c=$(BUILD)/tests/%) $(BUILD)/tests/unit/test_cipher_portable
FUZZERS   := $(FUZZ_SRC:tests/%.c=$(BUILD)/tests/%)
LIBCODECS := $(BUILD)/libmhcodecs.a
MOUNT     := $(BUILD)/mount.mhfu
MKARCHIVE := $(BUILD)/mkarchive
VIEWCHECK := $(BUILD)/viewcheck
MHFUDUMP  := $(BUILD)/mhfudump
POSIX_CHECK := $(BUILD)/posix_check
FSX       := $(BUILD)/fsx
FAULTIO   := $(BUILD)/faultio.so
SAMPLE    ?= $(BUILD)/sample
# The sanitized pass reuses the plain pass's sample and generator.
SAMPLE_GEN ?= $(MKARCHIVE)

.SECONDARY: $(TEST_OBJ)

.PHONY: build-deps all check check-plain check-san check-tsan units mount-tests demo bench fuzz fuzz-long fuzz-deps stress deps test-deps clean sample install uninstall picture

all: $(MOUNT) $(MKARCHIVE) $(VIEWCHECK) $(MHFUDUMP) $(POSIX_CHECK) $(FSX) $(UNITS) $(FUZZERS)

# Before the first compile: the build's packages, said in one line when
# any is missing (rather than as a compiler's "No such file").
build-deps:
	@missing=; \
	$(PKG_CONFIG) --exists fuse3 2>/dev/null || missing="$$missing libfuse3-dev"; \
	printf '#include <zlib.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing zlib1g-dev"; \
	printf '#include <stdarg.h>\n#include <stddef.h>\n#include <setjmp.h>\n#include <stdint.h>\n#include <cmocka.h>\n' | \
		$(CC) -E -x c - >/dev/null 2>&1 || missing="$$missing libcmocka-dev"; \
	[ -z "$$missing" ] || { echo "mhfufs: missing$$missing: run 'make deps' as root, or: sudo apt-get install$$missing pkg-config" >&2; exit 1; }

$(BUILD)/codecs/%.o: codecs/%.c | build-deps
	@mkdir -p $(@D)
	$(CC) $(MH_CFLAGS) -c -o $@ $<

$(BUILD)/fs/%.o: fs/%.c | build-deps
	@mkdir -p $(@D)
	$(CC) $(MH_CFLAGS) $(FS_INC_$(firstword $(subst /, ,$*))) \
		$(if $(filter fuse/%,$*),$(FUSE_CFLAGS)) -Icodecs -c -o $@ $<

$(BUILD)/tests/%.o: tests/%.c | build-deps
	@mkdir -p $(@D)
	$(CC) $(MH_CFLAGS) -Icodecs -Itests -Itests/gen -c -o $@ $<

$(LIBCODECS): $(CODEC_OBJ)
	rm -f $@
	ar rcs $@ $^

$(MOUNT): $(FS_OBJ) $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $(FS_OBJ) $(LIBCODECS) $(FUSE_LIBS) $(CODEC_LIBS) -lpthread

$(MKARCHIVE): $(BUILD)/tests/gen/mkarchive.o $(BUILD)/tests/gen/mkmodels.o $(BUILD)/tests/gen/mkpmo.o \
		$(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CODEC_LIBS)

$(VIEWCHECK): $(BUILD)/tests/gen/viewcheck.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CODEC_LIBS)

$(MHFUDUMP): $(BUILD)/tests/gen/mhfudump.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CODEC_LIBS)

# The exercisers: system calls against a mount (or a local directory),
# libc only.
$(POSIX_CHECK): $(BUILD)/tests/mount/posix_check.o $(BUILD)/tests/mount/exercise.o
	$(CC) $(MH_LDFLAGS) -o $@ $^

$(FSX): $(BUILD)/tests/mount/fsx.o $(BUILD)/tests/mount/exercise.o
	$(CC) $(MH_LDFLAGS) -o $@ $^

# An LD_PRELOAD shim failing the driver's I/O calls one at a time.
$(FAULTIO): tests/mount/faultio.c
	@mkdir -p $(@D)
	$(CC) -shared -fPIC $(WARN_CFLAGS) $(CFLAGS) -o $@ $< -ldl

$(BUILD)/tests/unit/test_%: $(BUILD)/tests/unit/test_%.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CODEC_LIBS)

# The store's test links the store and its journal, without libfuse.
$(BUILD)/tests/unit/test_store.o: CFLAGS += $(FS_INC_store)
$(BUILD)/tests/unit/test_store: $(BUILD)/tests/unit/test_store.o $(BUILD)/fs/store/store.o $(BUILD)/fs/store/store_io.o $(BUILD)/fs/store/journal.o $(BUILD)/fs/store/fserror.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CODEC_LIBS)

# The history's test links the history, without libfuse.
$(BUILD)/tests/unit/test_history.o: CFLAGS += $(FS_INC_store)
$(BUILD)/tests/unit/test_history: $(BUILD)/tests/unit/test_history.o $(BUILD)/fs/store/history.o $(BUILD)/fs/store/record.o $(BUILD)/fs/store/fserror.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CODEC_LIBS) -lpthread

# The record's test links the record alone.
$(BUILD)/tests/unit/test_record.o: CFLAGS += $(FS_INC_store)
$(BUILD)/tests/unit/test_record: $(BUILD)/tests/unit/test_record.o $(BUILD)/fs/store/record.o $(BUILD)/fs/store/fserror.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CODEC_LIBS) -lpthread

# The scratch table's test links the table alone.
$(BUILD)/tests/unit/test_scratch.o: CFLAGS += $(FS_INC_store)
$(BUILD)/tests/unit/test_scratch: $(BUILD)/tests/unit/test_scratch.o $(BUILD)/fs/store/scratch.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CODEC_LIBS) -lpthread

# The inode table's test links the table alone.
$(BUILD)/tests/unit/test_inodes.o: CFLAGS += $(FS_INC_cache)
$(BUILD)/tests/unit/test_inodes: $(BUILD)/tests/unit/test_inodes.o $(BUILD)/fs/cache/inodes.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CODEC_LIBS) -lpthread

# The driver's test links every layer below fs/fuse/, without libfuse.
$(BUILD)/tests/unit/test_driver.o: CFLAGS += $(FS_INC_commit)
$(BUILD)/tests/unit/test_driver: $(BUILD)/tests/unit/test_driver.o $(filter-out $(BUILD)/fs/fuse/%,$(FS_OBJ)) $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CODEC_LIBS) -lpthread

# The tests that build PMOs with the synthesizer (tests/gen/mkpmo.c): the
# codec's, its text views', the rules', model.glb's, a port's body and its checks.
PMO_TESTS := $(addprefix $(BUILD)/tests/unit/,test_pmo test_pmo_text test_rules test_gltf \
	test_port test_port_body test_port_tear)
$(PMO_TESTS): %: %.o $(BUILD)/tests/gen/mkpmo.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CMOCKA_LIBS) $(CODEC_LIBS)

$(BUILD)/tests/unit/test_cipher_portable: tests/unit/test_cipher.c codecs/cipher.c $(LIBCODECS)
	$(CC) $(MH_CFLAGS) -DMH_CIPHER_PORTABLE -Icodecs -Itests $(MH_LDFLAGS) -o $@ tests/unit/test_cipher.c codecs/cipher.c $(LIBCODECS) $(CMOCKA_LIBS) $(CODEC_LIBS)

# Fuzz targets: libFuzzer entry points; under gcc they link a replay/random
# driver (tests/fuzz/fuzz_driver.c) that `make check` runs for a fixed count.
$(BUILD)/tests/fuzz/fuzz_%: $(BUILD)/tests/fuzz/fuzz_%.o $(if $(FUZZ_MAIN),,$(BUILD)/tests/fuzz/fuzz_driver.o) $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) $(FUZZ_MAIN) -o $@ $^ $(CODEC_LIBS)
# The commit path's models have the sample's texture banks.
$(BUILD)/tests/fuzz/fuzz_commit: $(BUILD)/tests/fuzz/fuzz_commit.o $(BUILD)/tests/gen/mkmodels.o \
		$(BUILD)/tests/gen/mkpmo.o \
		$(if $(FUZZ_MAIN),,$(BUILD)/tests/fuzz/fuzz_driver.o) $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) $(FUZZ_MAIN) -o $@ $^ $(CODEC_LIBS)

$(BUILD)/tests/fuzz/fuzz_pmo: $(BUILD)/tests/fuzz/fuzz_pmo.o $(BUILD)/tests/gen/mkpmo.o \
		$(if $(FUZZ_MAIN),,$(BUILD)/tests/fuzz/fuzz_driver.o) $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) $(FUZZ_MAIN) -o $@ $^ $(CODEC_LIBS)
$(BUILD)/tests/fuzz/fuzz_pmo_text: $(BUILD)/tests/fuzz/fuzz_pmo_text.o $(BUILD)/tests/gen/mkpmo.o \
		$(if $(FUZZ_MAIN),,$(BUILD)/tests/fuzz/fuzz_driver.o) $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) $(FUZZ_MAIN) -o $@ $^ $(CODEC_LIBS)
$(BUILD)/tests/fuzz/fuzz_port_body: $(BUILD)/tests/fuzz/fuzz_port_body.o $(BUILD)/tests/gen/mkpmo.o \
		$(if $(FUZZ_MAIN),,$(BUILD)/tests/fuzz/fuzz_driver.o) $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) $(FUZZ_MAIN) -o $@ $^ $(CODEC_LIBS)

# The sample archive every test and the demo use: deterministic from the seed.
# Beside it, p3rd/: an MHP3rd archive of port donors, its Tigrex donor
# made from the same seed.
$(SAMPLE)/.done: $(SAMPLE_GEN)
	@rm -rf $(SAMPLE)/src $(SAMPLE)/p3rd && mkdir -p $(SAMPLE)/p3rd
	$(SAMPLE_GEN) --seed $(SAMPLE_SEED) --out $(SAMPLE)/DATA.BIN \
		--plain-out $(SAMPLE)/DATA.plain.BIN --extract $(SAMPLE)/src
	$(SAMPLE_GEN) --seed $(SAMPLE_SEED) --game mhp3rd --out $(SAMPLE)/p3rd/DATA.BIN \
		--extract $(SAMPLE)/p3rd/src
	@touch $@

sample: $(SAMPLE)/.done

deps:
	@bash tests/deps.sh

# The glTF tools (Blender, npm's gltf-validator: a minute or two to
# install) too; without them model.glb's validator and Blender checks skip.
test-deps:
	@bash tests/deps.sh test
	@bash tests/deps.sh pictures || echo "test-deps: model.glb's validator and Blender checks will skip"

# The fuzz targets replay what libFuzzer kept (tests/fuzz/corpus/TARGET), then
# run generated inputs; tests/fuzz/fuzz.sh itself is tested once, unsanitized.
units: $(UNITS) $(FUZZERS) $(SAMPLE)/.done
	@set -e; for t in $(UNITS); do MHFU_SAMPLE=$(SAMPLE) $$t; done
	@set -e; for f in $(FUZZERS); do \
		c=tests/fuzz/corpus/$${f##*/}; [ -d $$c ] || c=; $$f --runs 3000 $$c $(FUZZ_SEEDS); done
ifeq ($(SAN),)
	bash tests/fuzz/fuzz_test.sh $(SAMPLE) $(BUILD)/fuzz-test
	bash tests/layers.sh
endif

mount-tests: $(MOUNT) $(MKARCHIVE) $(VIEWCHECK) $(MHFUDUMP) $(POSIX_CHECK) $(FSX) $(SAMPLE)/.done
	bash tests/mount/mount_test.sh $(MOUNT) $(SAMPLE) $(VIEWCHECK)
	bash tests/mount/install_test.sh $(MOUNT) $(SAMPLE)
	bash tests/mount/write_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/rules_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/rules_agreement_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/entries_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/svg_test.sh $(MOUNT) $(SAMPLE)
	bash tests/mount/texture_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/pmo_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/gltf_test.sh $(MOUNT) $(SAMPLE)
	bash tests/mount/blender_test.sh $(MOUNT) $(SAMPLE)
	bash tests/mount/inverse_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP) $(INVERSE_ROUNDS)
	bash tests/mount/editor_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/demo_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/lock_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/record_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/kinds_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/records_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/port_test.sh $(MOUNT) $(SAMPLE)
	bash tests/mount/scratch_test.sh $(MOUNT) $(SAMPLE)
	bash tests/mount/crash_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP) $(CRASH_ROUNDS)
	bash tests/mount/concurrency_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP) $(STORM_SECONDS)
	bash tests/mount/flip_test.sh $(MOUNT) $(SAMPLE) $(FLIP_ARCHIVES)
ifeq ($(SAN),)
	$(MAKE) $(FAULTIO)
	bash tests/mount/pagecache_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP) $(FAULTIO)
	bash tests/mount/fault_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP) $(FAULTIO)
	bash tests/mount/history_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP) $(FAULTIO)
else
	bash tests/mount/pagecache_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
	bash tests/mount/history_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP)
endif
	@# The exercisers both run, whatever the first finds.
	status=0; bash tests/mount/posix_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP) $(POSIX_CHECK) || status=1; \
	bash tests/mount/fsx_test.sh $(MOUNT) $(SAMPLE) $(MHFUDUMP) $(FSX) $(FSX_OPS) 1 || status=1; \
	exit $$status

check-plain: units mount-tests

check-san:
	$(MAKE) BUILD=$(BUILD)/san SAN=1 SAMPLE=$(SAMPLE) SAMPLE_GEN=$(MKARCHIVE) CRASH_ROUNDS=60 FLIP_ARCHIVES=4 check-plain

# ThreadSanitizer on the driver, under the concurrency storm: with the
# default cache, then evicting every model at once (slow under TSan, so
# fewer commits are asked of it).
check-tsan:
	$(MAKE) BUILD=$(BUILD)/tsan SAN=thread $(BUILD)/tsan/mount.mhfu $(MHFUDUMP)
	STORM_CACHE_MB=64 bash tests/mount/concurrency_test.sh $(BUILD)/tsan/mount.mhfu $(SAMPLE) $(MHFUDUMP) $(STORM_SECONDS)
	STORM_MIN_COMMITS=1 bash tests/mount/concurrency_test.sh $(BUILD)/tsan/mount.mhfu $(SAMPLE) $(MHFUDUMP) $(STORM_SECONDS)

# The plain and the sanitized suites run side by side: each test has its
# own mounts, archive copies and record folder, and mostly waits on the
# kernel, so two streams take little more than the longer one.  The
# sample they share is made first.
check: test-deps
	$(MAKE) $(SAMPLE)/.done
	$(MAKE) -j2 --output-sync=recurse check-plain check-san
	$(MAKE) check-tsan

demo: deps
	$(MAKE) $(MOUNT) $(SAMPLE)/.done
	bash tests/gen/demo.sh $(MOUNT) $(SAMPLE) $(BUILD)/demo

# The README's picture (man/tigrex.png): the sample's Tigrex posed at a
# frame of an entry, rendered by Blender from the mount's model.glb.
PICTURE_ENTRY ?= entry 001
PICTURE_FRAME ?= 30
picture: $(MOUNT) $(SAMPLE)/.done
	@bash tests/deps.sh pictures
	bash tests/gen/picture.sh $(MOUNT) $(SAMPLE) man/tigrex.png "$(PICTURE_ENTRY)" $(PICTURE_FRAME)

$(BUILD)/cipher_bench: $(BUILD)/tests/gen/cipher_bench.o $(LIBCODECS)
	$(CC) $(MH_LDFLAGS) -o $@ $^ $(CODEC_LIBS)

$(BUILD)/cipher_bench_portable: tests/gen/cipher_bench.c codecs/cipher.c
	$(CC) $(MH_CFLAGS) -DMH_CIPHER_PORTABLE -Icodecs -Itests $(MH_LDFLAGS) -o $@ $^

bench: deps
	@bash tests/deps.sh bench
	$(MAKE) $(MOUNT) $(MKARCHIVE) $(BUILD)/cipher_bench $(BUILD)/cipher_bench_portable
	bash tests/gen/bench.sh $(BUILD)

# libFuzzer on every target (tests/fuzz/fuzz.sh): FUZZ_SECONDS each, FUZZ_JOBS
# at once; fuzz-long runs each to FUZZ_LONG_RUNS executions.
fuzz-deps:
	@bash tests/deps.sh fuzz

fuzz: fuzz-deps
	bash tests/fuzz/fuzz.sh --seconds $(FUZZ_SECONDS) --jobs $(FUZZ_JOBS) $(BUILD)/fuzz

fuzz-long: fuzz-deps
	bash tests/fuzz/fuzz.sh --runs $(FUZZ_LONG_RUNS) --jobs $(FUZZ_JOBS) $(BUILD)/fuzz

# Long runs: thousands of kill -9 rounds, a long storm (plain and under
# ThreadSanitizer), long fuzz replays, fsx on several seeds, then one table.
stress: test-deps
	$(MAKE) $(MOUNT) $(MHFUDUMP) $(FSX) $(FUZZERS) $(SAMPLE)/.done
	$(MAKE) BUILD=$(BUILD)/tsan SAN=thread $(BUILD)/tsan/mount.mhfu
	bash tests/mount/stress.sh $(BUILD) $(SAMPLE) $(STRESS_ROUNDS) 120 200000 $(STRESS_FSX_OPS) $(STRESS_FSX_SEEDS)

# The driver in BINDIR, as a user runs it; mount(8)'s helpers in SBINDIR
# link to it (none when SBINDIR is BINDIR); the manuals in MANDIR.
install: $(MOUNT)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8
	install -m 755 $(MOUNT) $(DESTDIR)$(BINDIR)/mount.mhfu
	if [ "$$(realpath $(DESTDIR)$(SBINDIR))" != "$$(realpath $(DESTDIR)$(BINDIR))" ]; then \
		ln -sfn $(BINDIR)/mount.mhfu $(DESTDIR)$(SBINDIR)/mount.mhfu; fi
	ln -sfn $(BINDIR)/mount.mhfu $(DESTDIR)$(SBINDIR)/mount.fuse.mhfu
	install -m 644 man/mount.mhfu.8 $(DESTDIR)$(MANDIR)/man8/mount.mhfu.8
	install -m 644 man/mhfu-archive.5 man/mhfu-clip.5 $(DESTDIR)$(MANDIR)/man5/

uninstall:
	rm -f $(DESTDIR)$(SBINDIR)/mount.fuse.mhfu $(DESTDIR)$(SBINDIR)/mount.mhfu \
		$(DESTDIR)$(BINDIR)/mount.mhfu $(DESTDIR)$(MANDIR)/man8/mount.mhfu.8 \
		$(DESTDIR)$(MANDIR)/man5/mhfu-archive.5 $(DESTDIR)$(MANDIR)/man5/mhfu-clip.5

clean:
	-fusermount3 -u mnt 2>/dev/null
	rm -rf $(BUILD)

-include $(wildcard $(BUILD)/codecs/*.d $(BUILD)/fs/*/*.d $(BUILD)/tests/*/*.d)
