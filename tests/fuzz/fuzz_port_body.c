/* SPDX-License-Identifier: MIT */
/* Fuzz target: a port's body (codecs/port_body) on any PMO that decodes.
 *
 * An input opening with "pmo\0" is a PMO: decoded as it is and, when its
 * version is 102 and its geometry offset lies inside it, split there into
 * a PMO and its companion.  Any other input builds a model with
 * tests/gen/mkpmo.c (its first 8 bytes the seed, the next 4 the shape).
 * What decodes is re-laid onto an 8-joint rig through a map where every
 * fifth donor bone has no joint (its weight goes up a chain of bones),
 * with the input's last byte choosing the tip joints and, in transfer
 * mode, the model itself as the host.  The result must decode as an MHFU
 * PMO of one mesh (two with a tip) whose groups are the report's, each
 * drawing its donor group's triangles with a palette of 1 to 8; a refusal
 * must carry a diagnostic.  Any violation abort()s.  Built with clang
 * -fsanitize=fuzzer (tests/fuzz/fuzz.sh) or with tests/fuzz/fuzz_driver.c.
 * fuzz.sh flags: -max_len=8192
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mkpmo.h"
#include "pmo.h"
#include "port_body.h"
#include "skeleton.h"

#define BONES 256u /* every bone a palette byte names */
#define JOINTS 8u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t triangles_of(const struct pmo *p, uint32_t g)
{
	uint32_t(*t)[3];
	size_t n;
	if (pmo_group_triangles(p, g, &t, &n, NULL) != MH_OK)
		abort();
	free(t);
	return n;
}

static void check_result(const struct pmo *donor, const uint8_t *buf, size_t len,
			 const struct port_body_report *rep, bool tip)
{
	struct pmo out;
	if (pmo_decode(buf, len, NULL, 0, &out, NULL) != MH_OK)
		abort();
	if (out.h.version != PMO_MHFU || out.h.mesh_count != (tip ? 2 : 1) ||
	    out.group_count != rep->ngroups)
		abort();
	uint32_t vertices = 0;
	for (uint32_t g = 0; g < out.group_count; g++) {
		const struct pmo_group *grp = &out.groups[g];
		if (!grp->palette_count || grp->palette_count > PMO_MAX_WEIGHTS ||
		    grp->palette_count != rep->palette_size[g] ||
		    triangles_of(&out, g) != triangles_of(donor, rep->donor_group[g]))
			abort();
		vertices += grp->vertex_count;
	}
	if (vertices != rep->nvertices)
		abort();
	pmo_free(&out);
}

static void port(const struct pmo *donor, const struct skeleton *rig, const struct skeleton *port_rig,
		 const int32_t *map, uint8_t pick)
{
	static const int32_t tip[2] = {6, 7};
	bool with_tip = pick & 1;
	struct port_body_in in = {.donor = donor, .donor_rig = rig, .joint_of_bone = map,
				  .port_rig = port_rig, .tip_joints = tip,
				  .ntip_joints = with_tip ? 1u + (pick >> 2 & 1) : 0};
	if (pick & 2)
		in = (struct port_body_in){.donor = donor, .donor_rig = rig, .port_rig = port_rig,
					   .skin = PORT_SKIN_TRANSFER, .host = donor,
					   .host_rig = rig, .joint_of_host = map,
					   .tip_joints = in.tip_joints, .ntip_joints = in.ntip_joints};
	uint8_t *buf;
	size_t len;
	struct port_body_report rep;
	struct mh_diag d = {0};
	enum mh_err err = port_body(&in, &buf, &len, &rep, &d);
	if (err) {
		if (d.code != err || !d.msg[0] || buf)
			abort();
	} else {
		check_result(donor, buf, len, &rep, with_tip);
	}
	free(buf);
	port_body_report_free(&rep);
}

static void check_model(const uint8_t *buf, size_t len, const uint8_t *comp, size_t comp_len,
			uint8_t pick)
{
	struct pmo p;
	if (pmo_decode(buf, len, comp, comp_len, &p, NULL) != MH_OK) {
		pmo_free(&p);
		return;
	}
	struct skeleton rig, port_rig;
	if (skeleton_init(&rig, SKELETON_MHP3RD, BONES, NULL) ||
	    skeleton_init(&port_rig, SKELETON_MHFU, JOINTS, NULL))
		abort();
	int32_t map[BONES];
	for (uint32_t b = 0; b < BONES; b++) {
		rig.bones[b].parent = (int32_t)b - 1;
		map[b] = b % 5 == 4 ? PORT_NONE : (int32_t)(b % JOINTS);
	}
	uint32_t params[2] = {0, JOINTS - 1};
	skeleton_set_params(&port_rig, 2, params);
	port(&p, &rig, &port_rig, map, pick);
	skeleton_free(&rig);
	skeleton_free(&port_rig);
	pmo_free(&p);
}

/* The input as a PMO, and split into a PMO and its companion. */
static void as_pmo(const uint8_t *data, size_t size)
{
	check_model(data, size, NULL, 0, data[size - 1]);
	if (size < PMO_HEADER || memcmp(data + 4, "102\0", 4))
		return;
	uint32_t geometry = (uint32_t)data[0x34] | (uint32_t)data[0x35] << 8 |
			    (uint32_t)data[0x36] << 16 | (uint32_t)data[0x37] << 24;
	if (geometry >= PMO_HEADER && geometry < size)
		check_model(data, geometry, data + geometry, size - geometry, data[size - 1]);
}

/* A synthesized model of the shape the input's head gives. */
static void as_synth(const uint8_t *data, size_t size)
{
	struct mkpmo_shape s;
	uint64_t seed = mkpmo_shape_of(data, size, &s);
	struct mkpmo m;
	mkpmo_build(seed, &s, &m);
	check_model(m.pmo, m.len, m.companion, m.companion_len, size ? data[size - 1] : 0);
	mkpmo_free(&m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size >= 4 && !memcmp(data, PMO_MAGIC, 4))
		as_pmo(data, size);
	else
		as_synth(data, size);
	return 0;
}
