/* SPDX-License-Identifier: MIT */
/* model.glb's bodies (gltf.h, gltf_int.h): each PMO as one mesh, one
 * primitive per group that draws a triangle, its vertices in PMO order
 * (no welding: an export back to the PMO matches by primitive and index);
 * one material per PMO material, and the texture bank's PNGs as images;
 * and where no body draws, the stand-in: a shape per bone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gltf_int.h"
#include "pmo.h"

/* JSON and padding per group and per image, at most, for the size check. */
#define JSON_PER_GROUP 1536u
#define JSON_PER_IMAGE 192u
#define JSON_PER_MATERIAL 384u
#define GL_REPEAT 10497

/* ---- skinning ------------------------------------------------------------- */

/* The bones vertex v of group grp blends, at most 4, the largest first,
 * their weights summing to 1: weight k goes to slot_bone[k], zero
 * weights dropped, one bone's weights merged (the validator refuses a
 * joint twice); an unweighted type, or no weight left, rides slot 0.
 * Returns how many (1-4). */
static unsigned influences(const struct pmo_group *grp, const struct pmo_vertex *v,
			   int32_t bone[4], float w[4])
{
	int32_t b[PMO_MAX_WEIGHTS];
	double x[PMO_MAX_WEIGHTS];
	unsigned n = 0, weights = grp->vtype.weight ? grp->vtype.weights : 0;
	for (unsigned k = 0; k < weights && k < PMO_MAX_WEIGHTS; k++) {
		if (!(v->weights[k] > 0))
			continue;
		unsigned i = 0;
		while (i < n && b[i] != grp->slot_bone[k])
			i++;
		if (i == n) {
			b[n] = grp->slot_bone[k];
			x[n++] = 0;
		}
		x[i] += v->weights[k];
	}
	if (!n) {
		bone[0] = grp->slot_bone[0];
		w[0] = 1;
		return 1;
	}
	/* The 4 largest, by selection: the earlier slot first on a tie. */
	unsigned kept = n < 4 ? n : 4;
	double sum = 0;
	for (unsigned i = 0; i < kept; i++) {
		unsigned best = i;
		for (unsigned j = i + 1; j < n; j++)
			best = x[j] > x[best] ? j : best;
		int32_t tb = b[i];
		double tx = x[i];
		b[i] = b[best], x[i] = x[best];
		b[best] = tb, x[best] = tx;
		sum += x[i];
	}
	/* The last takes what the others leave, so the floats sum to 1. */
	float rest = 1;
	for (unsigned i = 0; i < kept; i++) {
		bone[i] = b[i];
		w[i] = i + 1 < kept ? (float)(x[i] / sum) : rest;
		rest -= w[i];
	}
	return kept;
}

/* Whether every bone p's vertices blend is one of nbones. */
static bool body_fits(const struct pmo *p, uint32_t nbones)
{
	for (uint32_t g = 0; g < p->group_count; g++) {
		const struct pmo_group *grp = &p->groups[g];
		for (uint32_t v = 0; v < grp->vertex_count; v++) {
			int32_t bone[4];
			float w[4];
			unsigned n = influences(grp, &grp->vertices[v], bone, w);
			for (unsigned i = 0; i < n; i++)
				if (bone[i] < 0 || (uint32_t)bone[i] >= nbones)
					return false;
		}
	}
	return true;
}

/* ---- one primitive ---------------------------------------------------------- */

/* Room for one group's attributes, one at a time. */
struct scratch {
	float *f;                /* 4 per vertex */
	uint32_t *u;             /* 4 per vertex, or 3 per triangle */
};

static bool scratch_init(struct scratch *sc, uint32_t verts, size_t tris)
{
	size_t nu = (size_t)verts * 4 > tris * 3 ? (size_t)verts * 4 : tris * 3;
	sc->f = malloc(((size_t)verts * 4 + 1) * sizeof *sc->f);
	sc->u = malloc((nu + 1) * sizeof *sc->u);
	return sc->f && sc->u;
}

static void scratch_free(struct scratch *sc)
{
	free(sc->f);
	free(sc->u);
}

/* A unit normal: n normalised, or +Y for a zero or broken one (the
 * validator refuses any other length). */
static void unit_normal(const float n[3], float out[3])
{
	double l = sqrt((double)n[0] * n[0] + (double)n[1] * n[1] + (double)n[2] * n[2]);
	bool ok = l > 1e-12 && isfinite(l);
	for (int i = 0; i < 3; i++)
		out[i] = ok ? (float)(n[i] / l) : i == 1;
}

/* How a group is drawn: its glTF material (-1: none), whether it has
 * TEXCOORD_0 (its vertex type's UVs; also, as decoded, 0s, without them
 * when its material is textured: the validator wants the binding's
 * coordinates), whether it is skinned. */
struct look {
	int64_t material;
	bool uv, skin;
};

/* The accessors of group grp's vertex attributes, as the primitive's
 * "attributes" JSON into prim. */
static void put_attributes(struct glb *g, const struct pmo_group *grp, struct look look,
			   struct scratch *sc, struct strbuf *prim)
{
	uint32_t n = grp->vertex_count;
	const struct pmo_vertex *vs = grp->vertices;
	for (uint32_t v = 0; v < n; v++)
		for (int i = 0; i < 3; i++)
			sc->f[v * 3 + i] = glb_f32(vs[v].pos[i]);
	glb_text_int(prim, "{\"attributes\":{\"POSITION\":",
		     glb_floats(g, sc->f, n, 3, true, GL_ARRAY_BUFFER));
	if (grp->vtype.normal) {
		for (uint32_t v = 0; v < n; v++)
			unit_normal(vs[v].normal, sc->f + v * 3);
		glb_text_int(prim, ",\"NORMAL\":", glb_floats(g, sc->f, n, 3, false,
							     GL_ARRAY_BUFFER));
	}
	if (look.uv) {
		for (uint32_t v = 0; v < n; v++)
			for (int i = 0; i < 2; i++)
				sc->f[v * 2 + i] = glb_f32(vs[v].uv[i]);
		glb_text_int(prim, ",\"TEXCOORD_0\":", glb_floats(g, sc->f, n, 2, false,
								 GL_ARRAY_BUFFER));
	}
	if (grp->vtype.color) {
		for (uint32_t v = 0; v < n; v++)
			for (int i = 0; i < 4; i++)
				sc->f[v * 4 + i] = vs[v].rgba[i] / 255.0f;
		glb_text_int(prim, ",\"COLOR_0\":", glb_floats(g, sc->f, n, 4, false,
							      GL_ARRAY_BUFFER));
	}
	if (look.skin) {
		for (uint32_t v = 0; v < n; v++) {
			int32_t bone[4];
			float w[4];
			unsigned k = influences(grp, &vs[v], bone, w);
			for (unsigned i = 0; i < 4; i++) {
				sc->u[v * 4 + i] = i < k ? (uint32_t)bone[i] : 0;
				sc->f[v * 4 + i] = i < k ? w[i] : 0;
			}
		}
		glb_text_int(prim, ",\"JOINTS_0\":", glb_uints(g, sc->u, n, 4, GL_UNSIGNED_SHORT,
							      GL_ARRAY_BUFFER));
		glb_text_int(prim, ",\"WEIGHTS_0\":", glb_floats(g, sc->f, n, 4, false,
								GL_ARRAY_BUFFER));
	}
	strbuf_char(prim, '}');
}

/* Group gi of p as a primitive into prims (after a comma when *count);
 * nothing for a group without triangles. */
static enum mh_err put_group(struct glb *g, const struct pmo *p, uint32_t gi, struct look look,
			     struct strbuf *prims, uint32_t *count, struct mh_diag *d)
{
	const struct pmo_group *grp = &p->groups[gi];
	uint32_t (*tris)[3] = NULL;
	size_t ntris = 0, kept = 0;
	enum mh_err err = pmo_group_triangles(p, gi, &tris, &ntris, d);
	struct scratch sc = {0};
	if (err || !ntris || !grp->vertex_count)
		goto done;
	if (!scratch_init(&sc, grp->vertex_count, ntris)) {
		err = mh_fail(d, MH_ENOMEM, 0, "out of memory for model.glb's group %u", gi);
		goto done;
	}
	/* The decoder counts every vertex a draw reaches: the check only
	 * keeps the indices in range whatever the model. */
	for (size_t t = 0; t < ntris; t++)
		if (tris[t][0] < grp->vertex_count && tris[t][1] < grp->vertex_count &&
		    tris[t][2] < grp->vertex_count)
			memcpy(sc.u + 3 * kept++, tris[t], sizeof tris[t]);
	if (!kept)
		goto done;
	/* 65535 is the restart value glTF forbids in u16 indices. */
	uint32_t index = glb_uints(g, sc.u, (uint32_t)(kept * 3), 1,
				   grp->vertex_count < 65535 ? GL_UNSIGNED_SHORT : GL_UNSIGNED_INT,
				   GL_ELEMENT_ARRAY_BUFFER);
	if ((*count)++)
		strbuf_char(prims, ',');
	put_attributes(g, grp, look, &sc, prims);
	glb_text_int(prims, ",\"indices\":", index);
	strbuf_str(prims, ",\"mode\":4", 0);
	if (look.material >= 0)
		glb_text_int(prims, ",\"material\":", look.material);
	glb_text_int(prims, ",\"extras\":{\"pmo_group\":", gi);
	strbuf_str(prims, "}}", 0);
done:
	scratch_free(&sc);
	free(tris);
	return err;
}

/* ---- materials and images --------------------------------------------------- */

/* Whether material m of body b has a texture: its index names an image
 * the caller gave as PNG. */
static bool textured(const struct gltf_body *b, int m)
{
	if (m < 0 || (uint32_t)m >= b->pmo->h.material_count)
		return false;
	uint8_t t = b->pmo->materials[m].texture;
	return t < b->images && b->png && b->png_len && b->png[t];
}

/* The body's images as glTF images and textures; tex_of[k] the texture
 * of image k, -1 when it has no PNG. */
static void put_images(struct glb *g, const struct gltf_body *b, struct glb_bodies *out,
		       int64_t *tex_of, uint32_t *ntextures)
{
	for (uint32_t k = 0; k < b->images; k++) {
		tex_of[k] = -1;
		if (!b->png || !b->png[k] || !b->png_len || !glb_reserve(g, b->png_len[k]))
			continue;
		size_t start = g->len;
		memcpy(g->bin + g->len, b->png[k], b->png_len[k]);
		g->len += b->png_len[k];
		uint32_t image = (*ntextures)++;
		char name[24];
		snprintf(name, sizeof name, "image%02u", k);
		if (image) {
			strbuf_char(&out->images, ',');
			strbuf_char(&out->textures, ',');
		}
		strbuf_str(&out->images, "{\"name\":", 0);
		glb_json_string(&out->images, name);
		glb_text_int(&out->images, ",\"bufferView\":", glb_view(g, start, 0));
		strbuf_str(&out->images, ",\"mimeType\":\"image/png\"}", 0);
		glb_text_int(&out->textures, "{\"sampler\":0,\"source\":", image);
		strbuf_char(&out->textures, '}');
		tex_of[k] = image;
	}
}

/* Material m of p: its colour (RGBA, red in the low byte), blended when
 * a mesh drawing with it blends, both sides (the games do not cull). */
static void put_material(const struct pmo *p, uint32_t m, bool blend, const int64_t *tex_of,
			 uint32_t images, bool first, struct strbuf *json)
{
	const struct pmo_material *mat = &p->materials[m];
	char name[24];
	snprintf(name, sizeof name, "material %02u", m);
	strbuf_str(json, first ? "{\"name\":" : ",{\"name\":", 0);
	glb_json_string(json, name);
	strbuf_str(json, ",\"pbrMetallicRoughness\":{\"baseColorFactor\":[", 0);
	for (int i = 0; i < 4; i++) {
		if (i)
			strbuf_char(json, ',');
		strbuf_f32(json, (float)(mat->color >> (8 * i) & 0xFF) / 255.0f);
	}
	strbuf_char(json, ']');
	if (mat->texture < images && tex_of[mat->texture] >= 0) {
		glb_text_int(json, ",\"baseColorTexture\":{\"index\":", tex_of[mat->texture]);
		strbuf_char(json, '}');
	}
	strbuf_str(json, ",\"metallicFactor\":0},", 0);
	if (blend)
		strbuf_str(json, "\"alphaMode\":\"BLEND\",", 0);
	strbuf_str(json, "\"doubleSided\":true}", 0);
}

/* The body's materials, from glTF material `first` on. */
static bool put_materials(struct glb *g, const struct gltf_body *b, struct glb_bodies *out,
			  uint32_t first, uint32_t *ntextures)
{
	const struct pmo *p = b->pmo;
	int64_t *tex_of = malloc(((size_t)b->images + 1) * sizeof *tex_of);
	bool *blend = calloc((size_t)p->h.material_count + 1, sizeof *blend);
	if (!tex_of || !blend) {
		free(tex_of);
		free(blend);
		return false;
	}
	put_images(g, b, out, tex_of, ntextures);
	for (uint32_t gi = 0; gi < p->group_count; gi++) {
		int m = pmo_group_material(p, gi);
		uint32_t mesh = p->groups[gi].mesh;
		if (m >= 0 && mesh < p->h.mesh_count && p->meshes[mesh].lighting & 4)
			blend[m] = true;
	}
	for (uint32_t m = 0; m < p->h.material_count; m++)
		put_material(p, m, blend[m], tex_of, b->images, first + m == 0, &out->materials);
	free(tex_of);
	free(blend);
	return true;
}

/* ---- the stand-in mesh ---------------------------------------------------- */

/* Vertices and triangles being made: each vertex on one joint, weight 1. */
struct shape {
	float *pos;         /* 3 per vertex */
	uint32_t *joints;   /* 4 per vertex: the joint, then 0s */
	float *weights;     /* 4 per vertex: 1, then 0s */
	uint32_t *index;    /* 3 per triangle */
	uint32_t nverts, ntris;
};

static uint32_t vertex(struct shape *sh, const double p[3], uint32_t joint)
{
	uint32_t v = sh->nverts++;
	for (int i = 0; i < 3; i++)
		sh->pos[v * 3 + i] = glb_f32(p[i]);
	for (int i = 0; i < 4; i++) {
		sh->joints[v * 4 + i] = i ? 0 : joint;
		sh->weights[v * 4 + i] = i ? 0.0f : 1.0f;
	}
	return v;
}

static void triangle(struct shape *sh, uint32_t a, uint32_t b, uint32_t c)
{
	uint32_t *t = sh->index + (size_t)sh->ntris++ * 3;
	t[0] = a;
	t[1] = b;
	t[2] = c;
}

/* An octahedron of radius `size` around p, faces outward. */
static void marker(struct shape *sh, const double p[3], double size, uint32_t joint)
{
	uint32_t v0 = sh->nverts;
	for (int axis = 0; axis < 3; axis++)
		for (int sign = 1; sign >= -1; sign -= 2) {
			double q[3] = {p[0], p[1], p[2]};
			q[axis] += sign * size;
			vertex(sh, q, joint);
		}
	/* One face per octant: +x or -x, +y or -y, +z or -z, wound
	 * counter-clockwise seen from outside. */
	for (int o = 0; o < 8; o++) {
		uint32_t x = v0 + (o & 1), y = v0 + 2 + (o >> 1 & 1), z = v0 + 4 + (o >> 2 & 1);
		int negatives = (o & 1) + (o >> 1 & 1) + (o >> 2 & 1);
		if (negatives % 2)
			triangle(sh, x, z, y);
		else
			triangle(sh, x, y, z);
	}
}

/* A four-sided spike from a to b: the base and its ring (a quarter of the
 * way) on joint ja, the tip on jb.  Nothing for points that coincide. */
static void spike(struct shape *sh, const double a[3], const double b[3], double tiny,
		  uint32_t ja, uint32_t jb)
{
	double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
	double len = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
	if (!(len > tiny))
		return;
	for (int i = 0; i < 3; i++)
		u[i] /= len;
	/* v: perpendicular to u, from the axis u is least along; w = u x v. */
	int k = fabs(u[0]) < fabs(u[1]) ? (fabs(u[0]) < fabs(u[2]) ? 0 : 2)
					: (fabs(u[1]) < fabs(u[2]) ? 1 : 2);
	double axis[3] = {0, 0, 0};
	axis[k] = 1;
	double v[3] = {u[1] * axis[2] - u[2] * axis[1], u[2] * axis[0] - u[0] * axis[2],
		       u[0] * axis[1] - u[1] * axis[0]};
	double vl = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
	for (int i = 0; i < 3; i++)
		v[i] /= vl;
	double w[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
		       u[0] * v[1] - u[1] * v[0]};
	double radius = 0.1 * len;
	uint32_t base = vertex(sh, a, ja), ring = sh->nverts;
	for (int i = 0; i < 4; i++) {
		double c = i == 0 ? 1 : i == 2 ? -1 : 0, s = i == 1 ? 1 : i == 3 ? -1 : 0, p[3];
		for (int j = 0; j < 3; j++)
			p[j] = a[j] + 0.25 * len * u[j] + radius * (c * v[j] + s * w[j]);
		vertex(sh, p, ja);
	}
	uint32_t tip = vertex(sh, b, jb);
	for (uint32_t i = 0; i < 4; i++) {
		triangle(sh, ring + i, ring + (i + 1) % 4, tip);
		triangle(sh, ring + (i + 1) % 4, ring + i, base);
	}
}

/* The mesh's primitive, as JSON into `mesh`; false when out of memory. */
bool glb_put_stand_in(struct glb *g, uint32_t n, const double (*world)[12],
		      const int32_t *parent, struct strbuf *mesh)
{
	size_t verts = (size_t)n * 12, tris = (size_t)n * 16;
	struct shape sh = {.pos = malloc(verts * 3 * sizeof(float)),
			   .joints = malloc(verts * 4 * sizeof(uint32_t)),
			   .weights = malloc(verts * 4 * sizeof(float)),
			   .index = malloc(tris * 3 * sizeof(uint32_t))};
	bool ok = sh.pos && sh.joints && sh.weights && sh.index;
	if (ok) {
		/* Sizes from the rig's extent, so any scale shows. */
		double lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0}, extent = 0;
		for (uint32_t b = 0; b < n; b++)
			for (int i = 0; i < 3; i++) {
				double x = world[b][9 + i];
				lo[i] = b && lo[i] < x ? lo[i] : x;
				hi[i] = b && hi[i] > x ? hi[i] : x;
			}
		for (int i = 0; i < 3; i++)
			extent = hi[i] - lo[i] > extent ? hi[i] - lo[i] : extent;
		if (!(extent > 0) || !isfinite(extent))
			extent = 1;
		for (uint32_t b = 0; b < n; b++) {
			marker(&sh, world[b] + 9, extent * 0.01, b);
			if (parent[b] >= 0)
				spike(&sh, world[parent[b]] + 9, world[b] + 9,
				      extent * 1e-6, (uint32_t)parent[b], b);
		}
		uint32_t pos = glb_floats(g, sh.pos, sh.nverts, 3, true, GL_ARRAY_BUFFER);
		uint32_t joints = glb_uints(g, sh.joints, sh.nverts, 4, GL_UNSIGNED_SHORT,
					    GL_ARRAY_BUFFER);
		uint32_t weights = glb_floats(g, sh.weights, sh.nverts, 4, false, GL_ARRAY_BUFFER);
		uint32_t index = glb_uints(g, sh.index, sh.ntris * 3, 1, GL_UNSIGNED_INT,
					   GL_ELEMENT_ARRAY_BUFFER);
		strbuf_printf(mesh, "{\"name\":\"stand-in\",\"primitives\":[{\"attributes\":"
			      "{\"POSITION\":%u,\"JOINTS_0\":%u,\"WEIGHTS_0\":%u},"
			      "\"indices\":%u,\"mode\":4}]}", pos, joints, weights, index);
	}
	free(sh.pos);
	free(sh.joints);
	free(sh.weights);
	free(sh.index);
	return ok;
}

/* ---- the bodies ------------------------------------------------------------- */

uint64_t glb_bodies_size(const struct gltf_body *bodies, size_t n)
{
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pmo *p = bodies[i].pmo;
		for (uint32_t g = 0; p && g < p->group_count; g++) {
			const struct pmo_group *grp = &p->groups[g];
			/* Attributes: 3+3+2+4 floats, 4 shorts, 4 floats. */
			total += (uint64_t)grp->vertex_count * 72 + JSON_PER_GROUP;
			for (uint32_t k = 0; k < grp->draw_count; k++)
				total += (uint64_t)grp->draws[k].count * 12;
		}
		if (p)
			total += (uint64_t)p->h.material_count * JSON_PER_MATERIAL;
		const struct gltf_body *b = &bodies[i];
		for (uint32_t k = 0; b->png && b->png_len && k < b->images; k++)
			total += b->png[k] ? b->png_len[k] + JSON_PER_IMAGE : 0;
	}
	return total;
}

/* Body i as mesh out->nmeshes, if it draws a triangle. */
static enum mh_err put_body(struct glb *g, const struct gltf_body *bodies, size_t nbodies,
			    size_t i, uint32_t nbones, uint32_t materials,
			    struct glb_bodies *out, struct mh_diag *d)
{
	const struct pmo *p = bodies[i].pmo;
	struct strbuf prims = {0};
	uint32_t count = 0;
	enum mh_err err = MH_OK;
	bool skin = nbones && body_fits(p, nbones);
	for (uint32_t gi = 0; gi < p->group_count && !err; gi++) {
		int m = pmo_group_material(p, gi);
		struct look look = {.material = m >= 0 ? (int64_t)materials + m : -1,
				    .uv = p->groups[gi].vtype.uv || textured(&bodies[i], m),
				    .skin = skin};
		err = put_group(g, p, gi, look, &prims, &count, d);
	}
	if (!err && count) {
		char name[GLTF_BODY_NAME_MAX];
		gltf_body_name(i, name);
		strbuf_str(&out->meshes, out->nmeshes ? ",{\"name\":" : "{\"name\":", 0);
		glb_json_string(&out->meshes, name);
		strbuf_str(&out->meshes, ",\"primitives\":[", 0);
		strbuf_append(&out->meshes, prims.buf, prims.len);
		strbuf_char(&out->meshes, ']');
		if (nbodies > 1) {
			glb_text_int(&out->meshes, ",\"extras\":{\"pmo\":", (long long)i);
			strbuf_char(&out->meshes, '}');
		}
		strbuf_char(&out->meshes, '}');
		out->mesh_of[i] = (int32_t)out->nmeshes++;
		out->skinned[i] = skin;
	}
	g->failed |= prims.failed;
	strbuf_free(&prims);
	return err;
}

enum mh_err glb_put_bodies(struct glb *g, const struct gltf_body *bodies, size_t n,
			   uint32_t nbones, struct glb_bodies *out, struct mh_diag *d)
{
	*out = (struct glb_bodies){.mesh_of = malloc((n + 1) * sizeof *out->mesh_of),
				   .skinned = calloc(n + 1, sizeof *out->skinned)};
	if (!out->mesh_of || !out->skinned)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for model.glb's bodies");
	uint32_t materials = 0, textures = 0;
	for (size_t i = 0; i < n; i++) {
		out->mesh_of[i] = -1;
		if (!bodies[i].pmo)
			continue;
		if (!put_materials(g, &bodies[i], out, materials, &textures))
			g->failed = true;
		enum mh_err err = put_body(g, bodies, n, i, nbones, materials, out, d);
		if (err)
			return err;
		materials += bodies[i].pmo->h.material_count;
	}
	bool failed = out->meshes.failed || out->materials.failed || out->textures.failed ||
		      out->images.failed;
	if (g->failed || failed)
		return mh_fail(d, MH_ENOMEM, 0, "out of memory for model.glb's bodies");
	return MH_OK;
}

void glb_bodies_free(struct glb_bodies *b)
{
	strbuf_free(&b->meshes);
	strbuf_free(&b->materials);
	strbuf_free(&b->textures);
	strbuf_free(&b->images);
	free(b->mesh_of);
	free(b->skinned);
}
