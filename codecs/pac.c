/* SPDX-License-Identifier: MIT */
#include "pac.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bytes.h"

static const uint32_t ALIGNS[] = {16, 8, 4};

static uint64_t header_end(uint32_t count)
{
	return 4 + 8 * (uint64_t)count;
}

/* Checks the count and every {offset, size} against the PAC's size.  The
 * head must hold the whole table. */
static enum mh_err check_table(const uint8_t *head, size_t head_len,
			       uint64_t size, struct mh_diag *d)
{
	if (head_len < 4)
		return mh_fail(d, MH_ETRUNC, 0, "PAC shorter than its count");
	uint32_t count = le32(head);
	if (count == 0 || count > PAC_MAX_ENTRIES)
		return mh_fail(d, MH_EUNKNOWN, 0,
			       "entry count %u is outside 1..%u", count,
			       PAC_MAX_ENTRIES);
	if (header_end(count) > size || header_end(count) > head_len)
		return mh_fail(d, MH_ETRUNC, head_len,
			       "table of %u entries needs %llu bytes", count,
			       (unsigned long long)header_end(count));
	bool any = false;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t off = le32(head + 4 + 8 * i), sz = le32(head + 8 + 8 * i);
		if (off == 0 && sz == 0)
			continue;
		if (off == 0 || sz == 0)
			return mh_fail(d, MH_ECORRUPT, 4 + 8 * i,
				       "entry %u is {offset %u, size %u}: only "
				       "{0, 0} may be empty", i, off, sz);
		if ((uint64_t)off + sz > size)
			return mh_fail(d, MH_ECORRUPT, 4 + 8 * i,
				       "entry %u ends at %llu, past the PAC's "
				       "%llu bytes", i,
				       (unsigned long long)off + sz,
				       (unsigned long long)size);
		any = true;
	}
	if (!any)
		return mh_fail(d, MH_EUNKNOWN, 4, "every entry is empty");
	return MH_OK;
}

/* Whether the entries sit where alignment `a` puts them; sets *tail to
 * the last entry's end.  On mismatch, *bad is the first entry out of
 * place and *want where it should be. */
static bool packed_at(const uint8_t *head, uint32_t count, uint32_t a,
		      uint64_t *tail, uint32_t *bad, uint64_t *want)
{
	uint64_t end = header_end(count);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t off = le32(head + 4 + 8 * i), sz = le32(head + 8 + 8 * i);
		if (sz == 0)
			continue;
		if (off != align_up(end, a)) {
			*bad = i;
			*want = align_up(end, a);
			return false;
		}
		end = (uint64_t)off + sz;
	}
	*tail = end;
	return true;
}

/* Whether the bytes between entries (and after the table) are zero. */
static bool gaps_zero(const uint8_t *buf, uint32_t count, uint64_t *where)
{
	uint64_t end = header_end(count);
	for (uint32_t i = 0; i < count; i++) {
		uint32_t off = le32(buf + 4 + 8 * i), sz = le32(buf + 8 + 8 * i);
		if (sz == 0)
			continue;
		for (uint64_t p = end; p < off; p++)
			if (buf[p]) {
				*where = p;
				return false;
			}
		end = (uint64_t)off + sz;
	}
	return true;
}

int pac_sniff(const uint8_t *head, size_t head_len, uint64_t size)
{
	if (check_table(head, head_len, size, NULL) != MH_OK)
		return 0;
	uint64_t tail, want;
	uint32_t bad;
	for (size_t i = 0; i < sizeof ALIGNS / sizeof *ALIGNS; i++)
		if (packed_at(head, le32(head), ALIGNS[i], &tail, &bad, &want))
			return 100;
	return 0;
}

enum mh_err pac_decode(const uint8_t *buf, size_t len, struct pac *pac,
		       struct mh_diag *d)
{
	memset(pac, 0, sizeof *pac);
	enum mh_err err = check_table(buf, len, len, d);
	if (err)
		return err;

	uint32_t count = le32(buf), bad = 0;
	uint64_t tail = 0, want = 0, nonzero = 0;
	uint32_t align = 0;
	for (size_t i = 0; i < sizeof ALIGNS / sizeof *ALIGNS && !align; i++) {
		uint32_t b;
		uint64_t w;
		if (!packed_at(buf, count, ALIGNS[i], &tail, &b, &w)) {
			if (i == 0) {
				bad = b;
				want = w;
			}
			continue;
		}
		if (gaps_zero(buf, count, &nonzero))
			align = ALIGNS[i];
	}
	if (!align) {
		if (nonzero)
			return mh_fail(d, MH_ECORRUPT, nonzero,
				       "non-zero byte in the padding between "
				       "entries");
		return mh_fail(d, MH_ECORRUPT, 4 + 8 * (uint64_t)bad,
			       "entry %u starts at %u, not where a packed PAC "
			       "puts it (%llu at alignment 16; 8 and 4 fit no "
			       "better)", bad, le32(buf + 4 + 8 * bad),
			       (unsigned long long)want);
	}

	pac->entries = malloc(count * sizeof *pac->entries);
	if (!pac->entries)
		return mh_fail(d, MH_ENOMEM, 0, "table of %u entries", count);
	for (uint32_t i = 0; i < count; i++)
		pac->entries[i] = (struct pac_entry){le32(buf + 4 + 8 * i),
						     le32(buf + 8 + 8 * i)};
	pac->count = count;
	pac->align = align;
	pac->tail = tail;
	pac->size = len;
	return MH_OK;
}

enum mh_err pac_encode(const struct pac_blob *entries, uint32_t count,
		       uint32_t align, const uint8_t *tail, size_t tail_len,
		       uint8_t **out, size_t *len, struct mh_diag *d)
{
	*out = NULL;
	*len = 0;
	if (count == 0 || count > PAC_MAX_ENTRIES)
		return mh_fail(d, MH_ERANGE, 0, "entry count %u is outside 1..%u",
			       count, PAC_MAX_ENTRIES);
	if (align != 16 && align != 8 && align != 4)
		return mh_fail(d, MH_ERANGE, 0, "alignment %u is not 16, 8 or 4",
			       align);

	uint64_t end = header_end(count);
	bool any = false;
	for (uint32_t i = 0; i < count; i++)
		if (entries[i].size) {
			end = align_up(end, align) + entries[i].size;
			any = true;
		}
	if (!any)
		return mh_fail(d, MH_ERANGE, 0,
			       "every entry is empty: such a PAC would not "
			       "read back as one");
	uint64_t total = end + tail_len;
	if (end > UINT32_MAX || total > SIZE_MAX)
		return mh_fail(d, MH_ERANGE, 0, "PAC of %llu bytes is too large",
			       (unsigned long long)total);

	uint8_t *buf = calloc(1, total ? total : 1);
	if (!buf)
		return mh_fail(d, MH_ENOMEM, 0, "PAC of %llu bytes",
			       (unsigned long long)total);
	put_le32(buf, count);
	end = header_end(count);
	for (uint32_t i = 0; i < count; i++) {
		if (!entries[i].size)
			continue;
		uint64_t off = align_up(end, align);
		put_le32(buf + 4 + 8 * i, (uint32_t)off);
		put_le32(buf + 8 + 8 * i, entries[i].size);
		memcpy(buf + off, entries[i].data, entries[i].size);
		end = off + entries[i].size;
	}
	if (tail_len)
		memcpy(buf + end, tail, tail_len);
	*out = buf;
	*len = (size_t)total;
	return MH_OK;
}

void pac_free(struct pac *pac)
{
	if (!pac)
		return;
	free(pac->entries);
	memset(pac, 0, sizeof *pac);
}
