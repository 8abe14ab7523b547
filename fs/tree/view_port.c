/* SPDX-License-Identifier: MIT */
/* An MHFU model folder's port/ (mount.mhfu(8) "PORTS"): an MHP3rd
 * monster's moveset carried onto this model (codecs/port.h).  Present in
 * the folder of a top-level PAC whose first skeleton is MHFU's and which
 * holds an animation pack.  It holds:
 *   donor.pac   the donor bundle copied in (view_donor.c makes them), and
 *   port.txt    the settings: both kept in the record's overrides/, never
 *               in the archive; written, they are checked, and the other
 *               files follow at once; `rm donor.pac` takes the donor away;
 *   map.tsv, layout.tsv, check.txt, model.glb, out.pac: read-only, made
 *               from the port; out.pac (and the model.glb that plays it)
 *               only when every check passed.
 * The port runs once, on the first look at any of its files, and its
 * files are kept with the skeleton's model: a commit to the PAC (out.pac
 * copied over it, too) or a write of donor.pac or port.txt drops them. */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "donor.h"
#include "edit.h"
#include "entries.h"
#include "gltf.h"
#include "item.h"
#include "log.h"
#include "mhfs.h"
#include "monsters.h"
#include "pac.h"
#include "port.h"
#include "record.h"
#include "view_item.h"

#define PORT_DONOR_NAME "donor.pac"

/* The host: n's PAC folder (n->depth 0) resolves,
 * its first skeleton decodes as MHFU's and it holds an animation pack:
 * t->model is the skeleton's model, t->tree the PAC's. */
static int port_host(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	struct node dir = *n;
	dir.type = NODE_DIR;
	if (n->depth)
		return ENOENT;
	int err = item_folder_resolve(fs, &dir, t);
	if (err)
		return err;
	bool has_pack = false;
	for (uint32_t i = 0; t->tree && i < t->tree->count; i++)
		has_pack |= t->tree->subs[i].kind == KIND_ANIM && t->tree->subs[i].size;
	if (!has_pack)
		return ENOENT;
	if ((err = pac_first_model(fs, &dir, t->tree, KIND_SKELETON, &t->model)))
		return err;
	return t->model && t->model->skel.game == SKELETON_MHFU ? 0 : ENOENT;
}

static bool port_host_exists(struct mhfs *fs, const struct node *n)
{
	struct node_target t;
	memset(&t, 0, sizeof t);
	return !port_host(fs, n, &t);
}

/* What the record keeps n's port files under: the PAC folder's key. */
static void port_key(struct mhfs *fs, const struct node *n, char *buf, size_t len)
{
	struct node dir = *n;
	dir.type = NODE_DIR;
	item_override_key(node_archive(fs, n), &dir, buf, len);
	if (!buf[0])
		snprintf(buf, len, "pac");
}

/* The species of the host at entry `entry`: its MHFU monster id, -1. */
static int host_species(const struct archive *ar, uint32_t entry)
{
	size_t count;
	const struct monster *m = ar->format == FORMAT_DATABIN && ar->db.game == GAME_MHFU
					  ? monsters_of(GAME_MHFU, &count) : NULL;
	for (size_t i = 0; m && i < count; i++)
		if (m[i].model == entry)
			return m[i].em;
	return -1;
}

/* The record's file `ext` of n's port (NULL, 0 when none): 0 or an errno. */
static int port_kept(struct mhfs *fs, const struct node *n, const char *ext, uint8_t **data,
		     size_t *len)
{
	char key[96];
	*data = NULL;
	*len = 0;
	port_key(fs, n, key, sizeof key);
	int err = record_override_get(&fs->record, key, ext, data, len);
	return err == ENOENT ? 0 : err;
}

/* ---- the port, made once ---------------------------------------------------- */

/* Everything a port is made from, read and decoded. */
struct port_inputs {
	uint8_t *host, *donor_bytes, *settings_text;
	size_t host_len, donor_len, settings_len;
	int host_em;
	char host_label[128], donor_label[128];
	struct port_settings settings;
	struct donor donor;
	bool have_donor;
	char problem[512];   /* why no port is made (check.txt says it), "" */
};

static void port_inputs_free(struct port_inputs *in)
{
	free(in->host);
	free(in->donor_bytes);
	free(in->settings_text);
	port_settings_free(&in->settings);
	if (in->have_donor)
		donor_free(&in->donor);
}

static int port_inputs_read(struct mhfs *fs, const struct node *n, struct port_inputs *in)
{
	struct archive *ar = node_archive(fs, n);
	struct mh_diag d = {0};
	struct node dir = *n;
	dir.type = NODE_DIR;
	memset(in, 0, sizeof *in);
	in->host_len = archive_entry_size(ar, n->entry);
	if (!(in->host = malloc(in->host_len ? in->host_len : 1)))
		return ENOMEM;
	int err = archive_read_all(ar, n->entry, 0, in->host, in->host_len);
	if (!err)
		err = port_kept(fs, n, RECORD_PORT_DONOR, &in->donor_bytes, &in->donor_len);
	if (!err)
		err = port_kept(fs, n, RECORD_PORT_TXT, &in->settings_text, &in->settings_len);
	if (err)
		return err;
	in->host_em = host_species(ar, n->entry);
	item_label(ar, &dir, in->host_label, sizeof in->host_label);
	enum mh_err e = port_settings_parse((const char *)in->settings_text, in->settings_len,
					    &in->settings, &d);
	if (e == MH_ENOMEM)
		return ENOMEM;
	if (e) /* kept from before, and the grammar changed: said, not used */
		snprintf(in->problem, sizeof in->problem, "port.txt:%u:%u: %s", d.line, d.col,
			 d.msg);
	if (!in->donor_bytes)
		return 0;
	if ((e = donor_decode(in->donor_bytes, in->donor_len, &in->donor, &d)) == MH_ENOMEM)
		return ENOMEM;
	if (e) {
		snprintf(in->problem, sizeof in->problem,
			 "donor.pac does not decode at byte %llu: %s",
			 (unsigned long long)d.offset, d.msg);
		return 0;
	}
	in->have_donor = true;
	snprintf(in->donor_label, sizeof in->donor_label, "%s (model file_%05u)",
		 in->donor.name[0] ? in->donor.name : "an unnamed monster", in->donor.model - 1);
	if (!in->problem[0] &&
	    (e = port_settings_check(&in->settings, in->host, in->host_len, in->host_em,
				     &in->donor, &d))) {
		if (e == MH_ENOMEM)
			return ENOMEM;
		snprintf(in->problem, sizeof in->problem, "port.txt:%u:%u: %s", d.line, d.col,
			 d.msg);
	}
	return 0;
}

/* Keeps file v (bytes taken, NULL: absent) unless kept already. */
static int keep(struct model *m, enum port_view v, void *bytes, size_t len)
{
	return model_keep_made(m, &m->port[v], bytes, len) ? 0 : ENOMEM;
}

/* Runs the port of n's folder (t from port_host) and keeps every file but
 * model.glb, made from out.pac when asked for. */
static int port_make(struct mhfs *fs, const struct node *n, const struct node_target *t)
{
	struct model *m = t->model;
	struct port_inputs in;
	struct port_result r;
	struct mh_diag d = {0};
	bool ran = false;
	size_t len[PORT_VIEWS] = {0};
	char *text[PORT_VIEWS] = {0};
	memset(&r, 0, sizeof r);
	int err = port_inputs_read(fs, n, &in);
	if (!err && in.have_donor && !in.problem[0]) {
		enum mh_err e = port_run(in.host, in.host_len, in.host_em, &in.donor, &in.settings,
					 &r, &d);
		if (e == MH_ENOMEM)
			err = ENOMEM;
		else if (e)
			snprintf(in.problem, sizeof in.problem, "%s", d.msg);
		else
			ran = true;
	}
	if (!err) {
		text[PORT_TXT] = port_settings_print(&in.settings, ran ? &r : NULL, in.host_label,
						     in.have_donor ? in.donor_label : NULL,
						     &len[PORT_TXT]);
		text[PORT_CHECK_TXT] = ran ? port_check_text(&r, &len[PORT_CHECK_TXT])
					   : port_check_unmade(in.host_label,
							       in.have_donor ? in.donor_label : NULL,
							       in.problem[0] ? in.problem : NULL,
							       &len[PORT_CHECK_TXT]);
		if (ran && r.tear_svg) {
			text[PORT_TEAR_SVG] = r.tear_svg;
			len[PORT_TEAR_SVG] = r.tear_svg_len;
			r.tear_svg = NULL;
		}
		if (ran) {
			text[PORT_MAP_TSV] = port_map_tsv(&r, &len[PORT_MAP_TSV]);
			text[PORT_LAYOUT_TSV] = port_layout_tsv(&r, &len[PORT_LAYOUT_TSV]);
		}
		if (!text[PORT_TXT] || !text[PORT_CHECK_TXT] ||
		    (ran && (!text[PORT_MAP_TSV] || !text[PORT_LAYOUT_TSV])))
			err = ENOMEM;
	}
	for (int v = 0; !err && v < PORT_VIEWS; v++) {
		if (v == PORT_MODEL_GLB)
			continue;
		if (v == PORT_OUT_PAC) {
			err = keep(m, v, r.pac, r.pac_len);
			r.pac = NULL;
		} else {
			err = keep(m, v, text[v], len[v]);
		}
		text[v] = NULL;
	}
	for (int v = 0; v < PORT_VIEWS; v++)
		free(text[v]);
	port_result_free(&r);
	port_inputs_free(&in);
	return err;
}

/* File v of n's port: made with the others on first use; ENOENT when the
 * port does not give it. */
static int port_file(struct mhfs *fs, const struct node *n, struct node_target *t,
		     enum port_view v)
{
	int err = port_host(fs, n, t);
	if (err)
		return err;
	if (!atomic_load_explicit(&t->model->port[PORT_TXT], memory_order_acquire) &&
	    (err = port_make(fs, n, t)))
		return err;
	const struct model_text *kept = atomic_load_explicit(&t->model->port[v],
							     memory_order_acquire);
	return kept && kept->text ? item_kept_text(t, kept) : ENOENT;
}

/* ---- port/ ------------------------------------------------------------------ */

static int port_dir_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	return port_host(fs, n, t);
}

/* donor.pac, when absent, is the file a copy into port/ fills. */
static bool port_fillable(struct mhfs *fs, const struct node *dir, const struct node_target *t,
			  const char *name, struct node *view)
{
	(void)t;
	if (strcmp(name, PORT_DONOR_NAME))
		return false;
	*view = *dir;
	view->type = NODE_PORT_DONOR;
	return !node_exists(fs, view);
}

const struct view_class view_port_dir = {
	.flags = VIEW_DIR | VIEW_ITEM,
	.in = NODE_DIR,
	.fixed_name = "port",
	.resolve = port_dir_resolve,
	.exists = port_host_exists,
	.fillable = port_fillable,
};

/* ---- the record's files: donor.pac and port.txt ---------------------------- */

/* A commit that did not get as far as judging the edit. */
static int not_judged(struct commit_result *r, int err, const char *why)
{
	r->outcome = COMMIT_FAILED;
	snprintf(r->why, sizeof r->why, "%s", why ? why : strerror(err));
	return err;
}

static int refused(struct commit_result *r, const struct mh_diag *d)
{
	r->outcome = COMMIT_REFUSED;
	r->diag = *d;
	return EINVAL;
}

/* Keeps data (len 0: removes it) as n's port file `ext`, unless it is
 * there already; fills r and drops the views made from the old one. */
static int port_keep(struct mhfs *fs, const struct node *n, const char *ext, const void *data,
		     size_t len, const char *what, struct commit_result *r)
{
	char key[96], where[320];
	uint8_t *was;
	size_t was_len;
	int err = port_kept(fs, n, ext, &was, &was_len);
	if (err)
		return not_judged(r, err, NULL);
	bool same = was_len == len && (!len || !memcmp(was, data, len));
	free(was);
	if (same) {
		r->outcome = COMMIT_UNCHANGED;
		return 0;
	}
	port_key(fs, n, key, sizeof key);
	record_override_path(&fs->record, key, ext, where, sizeof where);
	if (fs->record.dir < 0)
		return not_judged(r, EROFS, "the record is not kept on disk, so the port's "
				  "files would not outlive the mount (see -o state=)");
	if ((err = record_override_put(&fs->record, key, ext, data, len))) {
		r->outcome = COMMIT_FAILED;
		snprintf(r->why, sizeof r->why, "%s: %s", where, strerror(err));
		return err;
	}
	snprintf(r->note, sizeof r->note, "%s %s %s", what, len ? "kept in" : "removed from",
		 where);
	archive_forget_views(&fs->ar, n->entry);
	r->outcome = COMMIT_DONE;
	r->entry_len = archive_entry_size(&fs->ar, n->entry);
	return 0;
}

static int port_donor_commit(struct mhfs *fs, const struct edit *e, struct commit_result *r)
{
	struct node_target t;
	struct donor donor;
	struct mh_diag d = {0};
	char what[160];
	int err = port_host(fs, &e->view, &t);
	if (err)
		return not_judged(r, err, NULL);
	if (e->kind == EDIT_EMPTY_SLOT)
		return port_keep(fs, &e->view, RECORD_PORT_DONOR, NULL, 0, "the donor", r);
	if (e->kind != EDIT_WRITE)
		return not_judged(r, EPERM, "donor.pac can only be copied in or removed");
	enum mh_err decoded = donor_decode(e->data, e->len, &donor, &d);
	if (decoded == MH_ENOMEM)
		return not_judged(r, ENOMEM, NULL);
	if (decoded)
		return refused(r, &d);
	snprintf(what, sizeof what, "the donor %s (model file_%05u)",
		 donor.name[0] ? donor.name : "(unnamed)", donor.model - 1);
	donor_free(&donor);
	return port_keep(fs, &e->view, RECORD_PORT_DONOR, e->data, e->len, what, r);
}

static int port_donor_contents(struct mhfs *fs, const struct node *n, uint8_t **data,
			       size_t *len)
{
	struct node_target t;
	memset(&t, 0, sizeof t);
	int err = port_host(fs, n, &t);
	if (!err)
		err = port_kept(fs, n, RECORD_PORT_DONOR, data, len);
	return err ? err : *data ? 0 : ENOENT;
}

/* A stat of donor.pac: the kept bundle's size, not its bytes. */
static int port_donor_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	char key[96];
	uint64_t size;
	int err = port_host(fs, n, t);
	if (err)
		return err;
	port_key(fs, n, key, sizeof key);
	if ((err = record_override_size(&fs->record, key, RECORD_PORT_DONOR, &size)))
		return err;
	t->size = size;
	return 0;
}

const struct view_class view_port_donor = {
	.flags = VIEW_ITEM | VIEW_WRITABLE | VIEW_REMOVABLE,
	.source = SOURCE_ENTRY,
	.in = NODE_PORT_DIR,
	.fixed_name = PORT_DONOR_NAME,
	.resolve = port_donor_resolve,
	.contents = port_donor_contents,
	.commit = port_donor_commit,
};

static int port_txt_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	return port_file(fs, n, t, PORT_TXT);
}

static int port_txt_commit(struct mhfs *fs, const struct edit *e, struct commit_result *r)
{
	struct node_target t;
	struct port_inputs in;
	struct port_settings s;
	struct mh_diag d = {0};
	int err = port_host(fs, &e->view, &t);
	if (err)
		return not_judged(r, err, NULL);
	if (e->kind != EDIT_WRITE)
		return not_judged(r, EPERM, "port.txt cannot be removed: write it without "
				  "settings to take them away");
	enum mh_err parsed = port_settings_parse((const char *)e->data, e->len, &s, &d);
	if (parsed == MH_ENOMEM)
		return not_judged(r, ENOMEM, NULL);
	if (parsed)
		return refused(r, &d);
	if ((err = port_inputs_read(fs, &e->view, &in))) {
		port_settings_free(&s);
		port_inputs_free(&in);
		return not_judged(r, err, NULL);
	}
	enum mh_err checked = port_settings_check(&s, in.host, in.host_len, in.host_em,
						  in.have_donor ? &in.donor : NULL, &d);
	if (checked) {
		port_settings_free(&s);
		port_inputs_free(&in);
		return checked == MH_ENOMEM ? not_judged(r, ENOMEM, NULL) : refused(r, &d);
	}
	/* What is kept is the settings alone, normalized; nothing set keeps
	 * nothing. */
	size_t len = 0;
	bool none = s.mode == PORT_MODE_HOST && !s.skin_set && !s.lift_set && !s.npins && !s.nmaps;
	char *text = none ? NULL : port_settings_print(&s, NULL, NULL, NULL, &len);
	if (!none && !text)
		err = not_judged(r, ENOMEM, NULL);
	else
		err = port_keep(fs, &e->view, RECORD_PORT_TXT, text, len, "the port's settings", r);
	free(text);
	port_settings_free(&s);
	port_inputs_free(&in);
	return err;
}

const struct view_class view_port_txt = {
	.flags = VIEW_ITEM | VIEW_WRITABLE | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_ENTRY,
	.in = NODE_PORT_DIR,
	.fixed_name = "port.txt",
	.resolve = port_txt_resolve,
	.exists = port_host_exists,
	.commit = port_txt_commit,
};

/* ---- the made files ----------------------------------------------------------- */

static bool port_file_exists(struct mhfs *fs, const struct node *n, enum port_view v)
{
	struct node_target t;
	memset(&t, 0, sizeof t);
	return !port_file(fs, n, &t, v);
}

#define PORT_MADE(fn, v)                                                               \
	static int fn##_resolve(struct mhfs *fs, const struct node *n, struct node_target *t) \
	{                                                                              \
		return port_file(fs, n, t, v);                                         \
	}                                                                              \
	static bool fn##_exists(struct mhfs *fs, const struct node *n)                 \
	{                                                                              \
		return port_file_exists(fs, n, v);                                     \
	}

PORT_MADE(port_map, PORT_MAP_TSV)
PORT_MADE(port_layout, PORT_LAYOUT_TSV)
PORT_MADE(port_check, PORT_CHECK_TXT)
PORT_MADE(port_out, PORT_OUT_PAC)
PORT_MADE(port_tear, PORT_TEAR_SVG)

const struct view_class view_port_map = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_ENTRY,
	.in = NODE_PORT_DIR,
	.fixed_name = "map.tsv",
	.resolve = port_map_resolve,
	.exists = port_map_exists,
};

const struct view_class view_port_layout = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_ENTRY,
	.in = NODE_PORT_DIR,
	.fixed_name = "layout.tsv",
	.resolve = port_layout_resolve,
	.exists = port_layout_exists,
};

const struct view_class view_port_check = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_ENTRY,
	.in = NODE_PORT_DIR,
	.fixed_name = "check.txt",
	.resolve = port_check_resolve,
	.exists = port_check_exists,
};

/* tear.svg: each clip's worst edge growth across the fork (mode own). */
const struct view_class view_port_tear = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_ENTRY,
	.in = NODE_PORT_DIR,
	.fixed_name = "tear.svg",
	.resolve = port_tear_resolve,
	.exists = port_tear_exists,
};

const struct view_class view_port_out = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_ENTRY,
	.in = NODE_PORT_DIR,
	.fixed_name = "out.pac",
	.resolve = port_out_resolve,
	.exists = port_out_exists,
};

/* model.glb: out.pac as glTF (its skeleton, the body of members 1 and 2
 * and its pack, every entry: the host's body on the host's rig in mode
 * host, the donor's on the own rig in mode own); made from out.pac on
 * first use. */
static int port_glb_resolve(struct mhfs *fs, const struct node *n, struct node_target *t)
{
	int err = port_file(fs, n, t, PORT_OUT_PAC);
	if (err || t->listing)
		return err;
	struct model *m = t->model;
	const struct model_text *glb = atomic_load_explicit(&m->port[PORT_MODEL_GLB],
							    memory_order_acquire);
	if (!glb) {
		uint8_t *bytes = NULL;
		size_t len = 0;
		struct mh_diag d = {0};
		enum mh_err e = gltf_model_of_pac((const uint8_t *)t->text, t->text_len, &bytes, &len,
						  &d);
		if (e) {
			char label[128];
			struct node dir = *n;
			dir.type = NODE_DIR;
			item_label(node_archive(fs, n), &dir, label, sizeof label);
			mlog_printf(fs->ar.log, "%s/port/model.glb: not made: %s", label, d.msg);
			return e == MH_ENOMEM ? ENOMEM : EIO;
		}
		if (!(glb = model_keep_made(m, &m->port[PORT_MODEL_GLB], bytes, len)))
			return ENOMEM;
	}
	return item_kept_text(t, glb);
}

static bool port_glb_exists(struct mhfs *fs, const struct node *n)
{
	return port_file_exists(fs, n, PORT_OUT_PAC);
}

const struct view_class view_port_glb = {
	.flags = VIEW_ITEM | VIEW_SIZED_BY_MAKING,
	.source = SOURCE_ENTRY,
	.in = NODE_PORT_DIR,
	.fixed_name = "model.glb",
	.resolve = port_glb_resolve,
	.exists = port_glb_exists,
};
