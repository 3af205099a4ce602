# Interoperability of the PMIx_Data_* byte format and of compression with OpenPMIx
# 4.2.2 (tests-c/v41/v41.c, built against our library and against Debian's; skipped
# with a message when libpmix-dev is not installed):
#
#   make v41-check   each build writes a buffer holding every data type; each build
#                    reads both files (4 pairings: unpack, check the values, repack to
#                    the same bytes); the two files must be identical; a block our
#                    PMIx_Data_compress made and a zlib block framed as OpenPMIx frames
#                    it (python3's zlib, standing in for a compressing OpenPMIx, since
#                    4.2.2's own PMIx_Data_compress always declines) decompress in both

V41_OUT := $(BUILD)/tests/v41

$(V41_OUT)/ours: tests-c/v41/v41.c | lib
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(CURDIR)/include -o $@ $< $(LDFLAGS_C)

$(V41_OUT)/ref: tests-c/v41/v41.c tests-c/refinit.h
	@mkdir -p $(dir $@)
	$(CC) -Wall -Wextra -Werror -g -I$(DIFF_REF_INC) -DV41_REFERENCE -o $@ $< \
	  -L$(DIFF_REF_LIB) -Wl,-rpath,$(DIFF_REF_LIB) -lpmix

.PHONY: v41-check
v41-check: $(V41_OUT)/ours
	@if [ ! -f $(DIFF_REF_INC)/pmix.h ] || [ ! -e $(DIFF_REF_LIB)/libpmix.so ]; then \
	  echo "SKIP v41-check: OpenPMIx 4.2.2 (libpmix-dev) not installed"; exit 0; fi; \
	set -e; $(MAKE) --no-print-directory $(V41_OUT)/ref; cd $(V41_OUT); \
	for w in ours ref; do $(TIMEOUT) 60 ./$$w write $$w.bin; done; \
	cmp ours.bin ref.bin || { echo "FAIL v41-check: our bytes differ from 4.2.2's"; exit 1; }; \
	for w in ours ref; do for r in ours ref; do \
	  echo "== $$w -> $$r"; $(TIMEOUT) 60 ./$$r read $$w.bin; done; done; \
	test -f ours.bin.z || { echo "FAIL v41-check: our PMIx_Data_compress declined"; exit 1; }; \
	python3 -c 'import sys, struct, zlib; t = (b"pmix v41 interop " * 1200)[:20000]; \
	  open("zlib.z", "wb").write(struct.pack("<I", len(t)) + zlib.compress(t, 9))'; \
	for z in ours.bin.z zlib.z; do for r in ours ref; do \
	  echo "== $$z -> $$r"; $(TIMEOUT) 60 ./$$r inflate $$z; done; done

CHECK_TARGETS += v41-check
