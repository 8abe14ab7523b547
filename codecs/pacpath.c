/* SPDX-License-Identifier: MIT */
/* Members of nested PACs: walk, splice, rig lookup (pacpath.h). */
#include "pacpath.h"

#include <stdlib.h>
#include <string.h>

#include "kind.h"
#include "pac.h"

/* Decodes the PAC in buf[0..len), which sits at byte `base` of the
 * outermost buffer, `level` members down, and checks it has member
 * `index`.  On success the caller owns *pac. */
static enum mh_err open_pac(const uint8_t *buf, size_t len, uint64_t base,
			    unsigned level, uint16_t index, struct pac *pac,
			    struct mh_diag *d)
{
	struct mh_diag why = {0};
	enum mh_err err = pac_decode(buf, len, pac, &why);
	if (err)
		return mh_fail(d, err, base + why.offset, "the PAC at byte %llu "
			       "(depth %u): %s", (unsigned long long)base, level,
			       why.msg);
	if (index >= pac->count) {
		uint32_t count = pac->count;
		pac_free(pac);
		return mh_fail(d, MH_ERANGE, base, "the PAC at byte %llu (depth "
			       "%u) has %u members: no member %u",
			       (unsigned long long)base, level, count, index);
	}
	return MH_OK;
}

enum mh_err pacpath_member(const uint8_t *buf, size_t len, const uint16_t *path,
			   unsigned depth, const uint8_t **member,
			   size_t *member_len, struct mh_diag *d)
{
	uint64_t base = 0;
	for (unsigned level = 0; level < depth; level++) {
		struct pac pac;
		enum mh_err err = open_pac(buf, len, base, level, path[level], &pac, d);
		if (err)
			return err;
		const struct pac_entry *m = &pac.entries[path[level]];
		buf += m->offset;
		len = m->size;
		base += m->offset;
		pac_free(&pac);
	}
	*member = buf;
	*member_len = len;
	return MH_OK;
}

/* pacpath_splice from `level` down, for the PAC in buf[0..len) at byte
 * `base` of the outermost buffer. */
static enum mh_err splice_from(const uint8_t *buf, size_t len, uint64_t base,
			       const uint16_t *path, unsigned depth,
			       unsigned level, const uint8_t *member,
			       size_t member_len, uint8_t **out, size_t *out_len,
			       struct mh_diag *d)
{
	*out = NULL;
	*out_len = 0;
	if (level == depth) {
		if (!(*out = malloc(member_len ? member_len : 1)))
			return mh_fail(d, MH_ENOMEM, base, "a member of %zu bytes",
				       member_len);
		if (member_len)
			memcpy(*out, member, member_len);
		*out_len = member_len;
		return MH_OK;
	}
	struct pac pac;
	enum mh_err err = open_pac(buf, len, base, level, path[level], &pac, d);
	if (err)
		return err;
	const struct pac_entry *m = &pac.entries[path[level]];
	struct pac_blob *blobs = NULL;
	uint8_t *inner;
	size_t inner_len;
	err = splice_from(buf + m->offset, m->size, base + m->offset, path, depth,
			  level + 1, member, member_len, &inner, &inner_len, d);
	if (!err && inner_len > UINT32_MAX)
		err = mh_fail(d, MH_ERANGE, base, "member %u of the PAC at byte "
			      "%llu would be %zu bytes: a PAC member is at most "
			      "4 GiB", path[level], (unsigned long long)base,
			      inner_len);
	if (!err && !(blobs = calloc(pac.count, sizeof *blobs)))
		err = mh_fail(d, MH_ENOMEM, base, "the table of the PAC at byte "
			      "%llu", (unsigned long long)base);
	if (!err) {
		for (uint32_t i = 0; i < pac.count; i++)
			blobs[i] = (struct pac_blob){buf + pac.entries[i].offset,
						     pac.entries[i].size};
		blobs[path[level]] = (struct pac_blob){inner, (uint32_t)inner_len};
		struct mh_diag why = {0};
		err = pac_encode(blobs, pac.count, pac.align, buf + pac.tail,
				 len - (size_t)pac.tail, out, out_len, &why);
		if (err)
			mh_fail(d, err, base, "the PAC at byte %llu (depth %u): %s",
				(unsigned long long)base, level, why.msg);
	}
	free(inner);
	free(blobs);
	pac_free(&pac);
	return err;
}

enum mh_err pacpath_splice(const uint8_t *buf, size_t len, const uint16_t *path,
			   unsigned depth, const uint8_t *member,
			   size_t member_len, uint8_t **out, size_t *out_len,
			   struct mh_diag *d)
{
	return splice_from(buf, len, 0, path, depth, 0, member, member_len, out,
			   out_len, d);
}

enum mh_err pacpath_first_skeleton(const uint8_t *buf, size_t len,
				   struct skeleton *rig, bool *found,
				   struct mh_diag *d)
{
	struct pac pac;
	struct mh_diag why = {0};
	*found = false;
	memset(rig, 0, sizeof *rig);
	enum mh_err err = pac_decode(buf, len, &pac, &why);
	if (err)
		return mh_fail(d, err, why.offset, "%s", why.msg);
	for (uint32_t i = 0; i < pac.count && !*found && !err; i++) {
		const uint8_t *m = buf + pac.entries[i].offset;
		size_t n = pac.entries[i].size;
		if (!n || kind_of(m, n) != KIND_SKELETON)
			continue;
		/* A member that sniffs as a skeleton but does not decode is
		 * not one: the next may be. */
		err = skeleton_decode(m, n, rig, &why);
		*found = err == MH_OK;
		if (err == MH_ENOMEM)
			mh_fail(d, err, pac.entries[i].offset + why.offset,
				"member %u: %s", i, why.msg);
		else
			err = MH_OK;
	}
	pac_free(&pac);
	return err;
}

enum mh_err pacpath_item_rig(const uint8_t *buf, size_t len, const uint16_t *path,
			     unsigned depth, struct skeleton *rig, bool *found,
			     struct mh_diag *d)
{
	const uint8_t *parent;
	size_t parent_len;
	*found = false;
	memset(rig, 0, sizeof *rig);
	if (depth == 0)
		return MH_OK;
	enum mh_err err = pacpath_member(buf, len, path, depth - 1, &parent,
					 &parent_len, d);
	if (err)
		return err;
	err = pacpath_first_skeleton(parent, parent_len, rig, found, d);
	if (err && d)
		d->offset += (uint64_t)(parent - buf);
	return err;
}
