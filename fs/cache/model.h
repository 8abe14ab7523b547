/* SPDX-License-Identifier: MIT */
/* Decoded models behind the text views: a skeleton or an animation pack,
 * with the texts printed from it; a texture bank, with its images' PNGs;
 * and a PMO, with its mesh.txt, vertices.tsv and materials.tsv.  A model is built from a node's bytes
 * on first use, published once (release store) and then read without
 * locks; it lives until its entry is committed to or evicted (both with
 * the archive's io lock held exclusively), or the archive is closed.
 * Its memory is counted in the counter given at build. */
#ifndef FS_MODEL_H
#define FS_MODEL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fserror.h"
#include "anim.h"
#include "kind.h"
#include "pmo.h"
#include "records.h"
#include "skeleton.h"
#include "tmh.h"

/* The images of a texture bank the mount shows (a node's slot field). */
#define MODEL_MAX_IMAGES 512u

/* Text printed once, on first use, then immutable.  A kept one (in a
 * slot, model_text_keep) is counted: one reference for its model, one
 * per file open that reads it (model_text_share); a model's own text
 * (pack.txt, records.txt) is never shared. */
struct model_text {
	char *text;
	size_t len;
	_Atomic unsigned refs;
};

/* A PMO's text views (pmo_text.h), in the order of model.pmo_text. */
enum pmo_view { PMO_MESH_TXT, PMO_VERTICES_TSV, PMO_MATERIALS_TSV, PMO_VIEWS };

/* A model folder's port/ files made from the port (view_port.c), in the
 * order of model.port. */
enum port_view { PORT_TXT, PORT_MAP_TSV, PORT_LAYOUT_TSV, PORT_CHECK_TXT, PORT_OUT_PAC,
		 PORT_TEAR_SVG, PORT_MODEL_GLB, PORT_VIEWS };

struct model {
	enum kind kind;              /* KIND_SKELETON, KIND_ANIM, KIND_TMH or KIND_PMO */
	struct skeleton skel;        /* KIND_SKELETON */
	struct anim pack;            /* KIND_ANIM */
	struct tmh tex;              /* KIND_TMH */
	struct pmo pmo;              /* KIND_PMO, its companion's bytes with it */
	int32_t images;              /* KIND_PMO: the texture bank beside it's
					images, -1 when there is none */
	int32_t bones;               /* KIND_PMO: the skeleton beside it's bones,
					-1 when there is none */
	_Atomic(struct model_text *) pmo_text[PMO_VIEWS]; /* KIND_PMO: printed
					on first use */
	struct model_text text;      /* pack.txt (none for the other kinds) */
	_Atomic(struct model_text *) skeleton_txt; /* KIND_SKELETON: skeleton.txt,
					printed on first use: a PMO's model needs
					only its bones */
	uint64_t *clip_offset;       /* KIND_ANIM: each clip's offset in the pack */
	uint64_t *clip_size;         /* and its size */
	_Atomic(struct model_text *) *clip_text; /* per clip, printed on first use */
	_Atomic(struct model_text *) *clip_svg;  /* per clip, its plots, drawn on first use */
	_Atomic(struct model_text *) *entry_text; /* per MHFU entry (ENTRIES_MAX), its
						    text, printed on first use */
	_Atomic(struct model_text *) *entry_svg; /* per MHFU entry (ENTRIES_MAX), the
						    plots of every part's clip, likewise */
	_Atomic(struct model_text *) *image_png; /* KIND_TMH: per image, its PNG's
						    bytes, encoded on first use */
	char *label;                 /* names the node in comments: file_06185/3.anim */
	const struct skeleton *rig;  /* KIND_ANIM: the skeleton beside it, or NULL
					(owned by its own model, in the same entry:
					evicted together) */
	struct records *records;     /* KIND_ANIM of MHP3rd: its record map (its
					own copy of what it needs), else NULL */
	struct model_text records_txt; /* records.txt of that map */
	char override_note[512];     /* an override kept that is not in force: why */
	_Atomic(struct model_text *) glb; /* KIND_SKELETON: its PAC's model.glb,
					     kept once made (view_model.c) */
	_Atomic(struct model_text *) port[PORT_VIEWS]; /* KIND_SKELETON of an MHFU
					model PAC: its port/ files, kept once made;
					one the port does not give is kept absent
					(model_keep_port) */
	_Atomic(struct model_text *) donor; /* KIND_SKELETON of an MHP3rd model
					       PAC: its donor.pac (view_donor.c) */
	_Atomic(struct model_text *) bind_world; /* KIND_SKELETON: bind_world.tsv,
						    printed on first use */
	_Atomic(struct model_text *) entries_index; /* KIND_ANIM (MHFU): entries/
						       index.tsv, likewise */
	_Atomic size_t bytes;        /* memory held, texts printed so far included */
	_Atomic size_t *account;     /* where bytes is also counted */
	_Atomic uint64_t *pictures;  /* where the pictures made (plots, model.glb,
					PNGs) are counted */
};

/* Where a node's model is cached: in its container tree, or per entry. */
struct model_cache {
	_Atomic(struct model *) model;
	_Atomic bool failed;         /* the node's bytes do not decode */
	_Atomic(struct model_text *) check; /* the item's check.txt (a PAC's or a
					       model's folder), kept once made
					       (view_check.c); its bytes count
					       in the archive's cached bytes */
};

/* What an MHP3rd pack's record map is made from (item.c finds it;
 * mount.mhfu(8) "MHP3rd movesets"). */
struct model_map_source {
	const struct skeleton *rig;  /* the moveset's rig, NULL: none; read only
					while the model is built */
	char rig_label[128];         /* names the rig in records.txt */
	int monster;                 /* RECORDS_NO_MONSTER: not known */
	char monster_from[128];      /* where its id was read, "" when not known */
	const uint8_t *override;     /* records.txt as last written, NULL: none */
	size_t override_len;
	char override_path[256];     /* where that is kept, for messages */
};

/* The bytes c's check text holds, and freeing what c holds (its model
 * and check text), with nothing else reading it. */
size_t model_cache_text_bytes(const struct model_cache *c);
void model_cache_free(struct model_cache *c);

/* Keeps text (malloc'ed, taken; len bytes) in *slot unless another
 * reader kept one first: returns the one kept, NULL when out of memory
 * (text freed).  *kept is what the kept one added (0 when another's
 * was), for the caller to count. */
const struct model_text *model_text_keep(_Atomic(struct model_text *) *slot, char *text,
					 size_t len, size_t *kept);
/* One more reference to kept text t (NULL: none), for a file open that
 * reads it rather than a copy (with the io lock held, so that its model
 * cannot go meanwhile): t.  Given back by model_text_put, the last one
 * freeing it. */
const struct model_text *model_text_share(const struct model_text *t);
void model_text_put(const struct model_text *t);

/* What a model is built from. */
struct model_input {
	enum kind kind;
	const uint8_t *buf;          /* the item's bytes */
	size_t len;
	const char *label;
	const struct skeleton *rig;  /* the skeleton of the same container, if
					any: a pack's joint comments, a PMO's bones */
	const struct model_map_source *map; /* a pack: what its record map is
					made from if it is MHP3rd's (NULL: none) */
	const uint8_t *companion;    /* a PMO whose geometry is in the next
					entry (pmo_needs_companion): that entry */
	size_t companion_len;
	int32_t images;              /* a PMO: the bank beside it's images, -1 */
	const struct model *was;     /* a PMO: its model before its bytes last
					changed (archive_take_carried), whose
					vertices.tsv lends its unchanged rows,
					or NULL */
};

/* Decodes in->kind from in's bytes.  Its memory is also counted in
 * *account, the pictures it makes in *pictures.  NULL when the bytes do
 * not decode, with the reason in why. */
struct model *model_build(const struct model_input *in, _Atomic size_t *account,
			  _Atomic uint64_t *pictures, struct fs_diag *why);
void model_free(struct model *m);

/* Moves a pack model's decoded pack into *a, for a commit that edits the
 * bytes it was decoded from (commit.h), with the archive's io lock held
 * exclusively: m is left a pack of no clips (its clips' texts freed), to
 * be dropped. */
void model_take_pack(struct model *m, struct anim *a);

/* Keeps bytes (malloc'ed, taken) as m's model.glb, unless another reader
 * kept one first; returns the one kept, NULL when out of memory (bytes
 * freed).  Counted in m's memory like its texts. */
const struct model_text *model_keep_glb(struct model *m, uint8_t *bytes, size_t len);

/* Keeps bytes (malloc'ed, taken; NULL: the file is absent, a kept text
 * whose text is NULL) in m's slot (m->port[v], m->donor), unless another
 * reader kept one first; returns the one kept, NULL when out of memory.
 * Counted in m's memory like its texts. */
const struct model_text *model_keep_made(struct model *m, _Atomic(struct model_text *) *slot,
					 uint8_t *bytes, size_t len);

/* A skeleton's skeleton.txt, printed on first use; NULL when out of
 * memory. */
const struct model_text *model_skeleton_text(struct model *m);

/* A skeleton's bind_world.tsv and an MHFU pack's entries/index.tsv,
 * printed on first use; NULL when out of memory. */
const struct model_text *model_bind_world(struct model *m);
const struct model_text *model_entries_index(struct model *m);

/* The text of clip i, printed on first use; NULL when out of memory. */
const struct model_text *model_clip_text(struct model *m, uint32_t clip);

/* The plots of clip i, and of entry e (< ENTRIES_MAX) of an MHFU pack
 * (SVG), drawn on first use; NULL when out of memory. */
const struct model_text *model_clip_svg(struct model *m, uint32_t clip);
const struct model_text *model_entry_svg(struct model *m, uint32_t entry);
/* The text of entry e (< ENTRIES_MAX) of an MHFU pack, printed on first
 * use; NULL when out of memory. */
const struct model_text *model_entry_text(struct model *m, uint32_t entry);

/* The PNG of image i of a TMH, encoded on first use; NULL when out of
 * memory. */
const struct model_text *model_image_png(struct model *m, uint32_t image);

/* A PMO's text view `which`, printed on first use; NULL when out of
 * memory. */
const struct model_text *model_pmo_text(struct model *m, enum pmo_view which);

/* Whether kind has a model (and so a folder of views: texts, images). */
static inline bool model_kind(enum kind k)
{
	return k == KIND_SKELETON || k == KIND_ANIM || k == KIND_TMH || k == KIND_PMO;
}

#endif
