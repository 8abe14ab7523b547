#include "node.h"

#include "views.h"

#include <ctype.h>
#include <stdio.h>
#include <strings.h>
#include <stdlib.h>
#include <string.h>

#define ENTRY_SHIFT 48
#define PATH_SHIFT 21
#define PATH_BITS 9
#define PATH_MASK ((1ull << PATH_BITS) - 1)
#define STREAM_SHIFT 4
#define SLOT_SHIFT 9
#define VIEW_MASK 0xfull
/* The view code in an inode: the node type counted from NODE_FILE. */
#define VIEW_OF(type) ((uint64_t)(type) - NODE_FILE + 1)
#define VIEW_LAST VIEW_OF(NODE_SLOT_BIN)

/* Listing positions: "." and "..", the mount's own names or a folder's
 * first text, then two per entry, sub-entry or slot (file, folder or
 * .txt, .bin), or one per stream. */
#define POS_FIRST_CHILD 4

/* ---- items: an entry or sub-entry, with its caches ---------------------- */

struct item {
	uint64_t offset, size;         /* in the entry */
	enum kind kind;
	const struct pactree *tree;    /* the container's tree, when it is one */
	struct pactree_sub *sub;       /* depth >= 1: the sub-entry */
	const struct pactree *parent;  /* depth >= 1: the container holding it */
	struct model_cache *cache;     /* where its model is kept */
};

static bool single_pac(const struct archive *ar)
{
	return ar->format == FORMAT_PAC;
}

static bool is_pac_root(const struct archive *ar, const struct node *n)
{
	return single_pac(ar) && n->type == NODE_DIR && n->entry == 0 && n->depth == 0;
}

static bool item_resolve(struct archive *ar, const struct node *n, struct item *it)
{
	memset(it, 0, sizeof *it);
	it->size = archive_entry_size(ar, n->entry);
	it->kind = archive_entry_kind(ar, n->entry);
	it->cache = &ar->entries[n->entry].cache;
	atomic_store_explicit(&ar->entries[n->entry].used, true, memory_order_relaxed);
	/* A top-level item's own tree is fetched by node_resolve when it
	 * is listed: naming or sizing it needs none. */
	const struct pactree *tree = NULL;
	if (n->depth > 0)
		tree = archive_entry_tree(ar, n->entry);
	for (unsigned i = 0; i < n->depth; i++) {
		if (!tree || n->path[i] >= tree->count || !tree->subs[n->path[i]].size)
			return false;
		struct pactree_sub *s = &tree->subs[n->path[i]];
		it->parent = tree;
		it->sub = s;
		it->offset = s->offset;
		it->size = s->size;
		it->kind = s->kind;
		it->cache = &s->cache;
		tree = s->child;
	}
	it->tree = tree;
	return true;
}

/* A folder is shown for a container (at the top level as soon as it
 * sniffs as one, below only when it decoded: a top-level one that does
 * not decode is empty, its reason logged) and for skeletons and packs
 * (when they do not decode: empty, reason logged). */
static bool item_has_dir(const struct node *n, const struct item *it)
{
	if (it->kind == KIND_PAC)
		return n->depth < PACTREE_MAX_DEPTH && (n->depth == 0 || it->tree);
	return model_kind(it->kind);
}

static void entry_dir_name(uint32_t id, char *buf, size_t len)
{
	snprintf(buf, len, "file_%05lld", (long long)id - 1);
}

/* "file_06185/3.anim", naming the item in comments and the log. */
static void item_label(struct archive *ar, const struct node *n, char *buf, size_t len)
{
	if (n->depth == 0) {
		archive_entry_name(ar, n->entry, buf, len);
		return;
	}
	entry_dir_name(n->entry, buf, len);
	const struct pactree *tree = archive_entry_tree(ar, n->entry);
	for (unsigned i = 0; tree && i < n->depth; i++) {
		size_t used = strlen(buf);
		const struct pactree_sub *s = &tree->subs[n->path[i]];
		snprintf(buf + used, len - used, "/%u%s", n->path[i],
			 i + 1 == n->depth ? kind_ext(s->kind) : "");
		tree = s->child;
	}
}

static struct model *item_model(struct archive *ar, const struct node *n,
				const struct item *it);

/* The skeleton beside a pack in the same container, for joint comments. */
static const struct skeleton *item_rig(struct archive *ar, const struct node *n,
				       const struct item *it)
{
	if (it->kind != KIND_ANIM || !it->parent)
		return NULL;
	for (uint32_t i = 0; i < it->parent->count; i++) {
		if (it->parent->subs[i].kind != KIND_SKELETON)
			continue;
		struct node sib = *n;
		struct item sit;
		sib.path[n->depth - 1] = (uint16_t)i;
		if (!item_resolve(ar, &sib, &sit))
			return NULL;
		struct model *m = item_model(ar, &sib, &sit);
		return m ? &m->skel : NULL;
	}
	return NULL;
}

static struct model *item_model(struct archive *ar, const struct node *n,
				const struct item *it)
{
	struct model_cache *c = it->cache;
	struct model *m = atomic_load_explicit(&c->model, memory_order_acquire);
	if (m || atomic_load(&c->failed) || !model_kind(it->kind))
		return m;

	const struct skeleton *rig = item_rig(ar, n, it);
	char label[128], why[256] = "";
	item_label(ar, n, label, sizeof label);
	pthread_mutex_lock(&ar->lock);
	m = atomic_load(&c->model);
	if (!m && !atomic_load(&c->failed)) {
		/* A failed read or allocation is tried again at the next look;
		 * only a decoding failure is a fact about the bytes. */
		bool transient = false;
		uint8_t *buf = malloc(it->size ? it->size : 1);
		if ((transient = !buf))
			snprintf(why, sizeof why, "out of memory");
		else if ((transient = archive_read(ar, n->entry, it->offset, buf, it->size) !=
				      (ssize_t)it->size))
			snprintf(why, sizeof why, "read failed");
		else
			m = model_build(it->kind, buf, it->size, label, rig,
					&ar->cached_bytes, why, sizeof why);
		free(buf);
		if (m) {
			atomic_store_explicit(&c->model, m, memory_order_release);
		} else {
			mlog_printf(ar->log, "%s: shown raw only%s: %s", label,
				    transient ? " for now" : "", why);
			if (!transient)
				atomic_store(&c->failed, true);
		}
	}
	pthread_mutex_unlock(&ar->lock);
	return m;
}

/* ---- inode numbers ---------------------------------------------------- */

/* The kernel finds inodes in a hash table keyed by the low bits of their
 * numbers (fs/inode.c): numbers that differ only in the entry field would
 * all share one bucket, and listing the root would walk thousands of
 * inodes per name.  So a hash of the entry field is XOR-ed into the bits
 * below it; applying the same XOR again undoes it. */
static uint64_t ino_scramble(uint64_t ino)
{
	uint64_t entry = ino >> ENTRY_SHIFT & 0x7fff;
	return ino ^ (entry * 0x9e3779b97f4a7c15ull >> (64 - ENTRY_SHIFT));
}

uint64_t node_ino(const struct archive *ar, const struct node *n)
{
	if (n->type < NODE_FILE)
		return n->type;
	if (is_pac_root(ar, n))
		return NODE_ROOT;
	uint64_t ino = ((uint64_t)n->entry + 1) << ENTRY_SHIFT;
	for (unsigned i = 0; i < n->depth; i++)
		ino |= ((uint64_t)n->path[i] + 1) << (PATH_SHIFT + PATH_BITS * i);
	return ino_scramble(ino | (uint64_t)n->slot << SLOT_SHIFT |
			    (uint64_t)n->stream << STREAM_SHIFT | VIEW_OF(n->type));
}

bool node_from_ino(const struct archive *ar, uint64_t ino, struct node *n)
{
	memset(n, 0, sizeof *n);
	ino = ino_scramble(ino);
	uint64_t entry = ino >> ENTRY_SHIFT;
	if (entry == 0) {
		if (ino == NODE_ROOT && single_pac(ar)) {
			n->type = NODE_DIR;
			return true;
		}
		if (ino < NODE_ROOT || ino > NODE_REJECTED)
			return false;
		if (ino == NODE_INDEX && single_pac(ar))
			return false;
		n->type = (enum node_type)ino;
		return true;
	}
	if (entry > ar->count)
		return false;
	n->entry = (uint32_t)(entry - 1);
	uint64_t view = ino & VIEW_MASK;
	if (view < 1 || view > VIEW_LAST)
		return false;
	n->type = (enum node_type)(view - 1 + NODE_FILE);
	n->stream = ino >> STREAM_SHIFT & (NODE_MAX_STREAMS - 1);
	n->slot = ino >> SLOT_SHIFT & (NODE_MAX_SLOTS - 1);
	bool streamed = n->type == NODE_STREAM || n->type == NODE_SLOT_TXT ||
			n->type == NODE_SLOT_BIN;
	bool slotted = n->type == NODE_SLOT_TXT || n->type == NODE_SLOT_BIN;
	if ((!streamed && n->stream) || (!slotted && n->slot) ||
	    (ino >> (SLOT_SHIFT + 9) & ((1ull << (PATH_SHIFT - SLOT_SHIFT - 9)) - 1)))
		return false;
	bool ended = false;
	for (unsigned i = 0; i < PACTREE_MAX_DEPTH; i++) {
		uint64_t f = ino >> (PATH_SHIFT + PATH_BITS * i) & PATH_MASK;
		if (f == 0) {
			ended = true;
			continue;
		}
		if (ended || f > PAC_MAX_ENTRIES)
			return false;
		n->path[n->depth++] = (uint16_t)(f - 1);
	}
	return true;
}

/* ---- resolving -------------------------------------------------------- */

/* A slot's clip, or -1 when the stream or slot does not exist or is empty. */
static int32_t slot_clip(const struct model *m, unsigned stream, unsigned slot)
{
	if (!m || m->kind != KIND_ANIM || stream >= m->pack.nstreams ||
	    slot >= m->pack.streams[stream].nslots)
		return -1;
	return m->pack.streams[stream].slots[slot];
}

bool node_exists(struct archive *ar, const struct node *n)
{
	struct node_target t;
	/* A top-level folder: the folder rule needs only the entry's kind. */
	if (n->type == NODE_DIR && n->depth == 0) {
		struct item it = {.kind = archive_entry_kind(ar, n->entry)};
		return item_has_dir(n, &it);
	}
	return node_resolve(ar, n, &t);
}

bool node_resolve(struct archive *ar, const struct node *n, struct node_target *t)
{
	struct item it;
	memset(t, 0, sizeof *t);
	if (n->type < NODE_FILE)
		return true;
	if (!item_resolve(ar, n, &it))
		return false;
	t->offset = it.offset;
	t->size = it.size;
	t->kind = it.kind;
	if (n->type == NODE_FILE)
		return true;
	if (!item_has_dir(n, &it))
		return false;
	if (it.kind == KIND_PAC)
		t->tree = n->depth == 0 ? archive_entry_tree(ar, n->entry) : it.tree;
	t->model = item_model(ar, n, &it);
	struct model *m = t->model;

	switch (n->type) {
	case NODE_DIR:
		return true;
	case NODE_SKEL_TXT:
	case NODE_PACK_TXT:
		if (!m || m->kind != (n->type == NODE_SKEL_TXT ? KIND_SKELETON : KIND_ANIM))
			return false;
		t->text = &m->text;
		return true;
	case NODE_STREAM:
		return m && m->kind == KIND_ANIM && n->stream < m->pack.nstreams;
	case NODE_SLOT_TXT:
	case NODE_SLOT_BIN: {
		int32_t clip = slot_clip(m, n->stream, n->slot);
		if (clip < 0)
			return false;
		bool bin = n->type == NODE_SLOT_BIN;
		views_slot_link(&m->pack, n->stream, n->slot, bin, t->link, sizeof t->link);
		if (t->link[0])
			return true;
		if (bin) {
			t->offset = it.offset + m->clip_offset[clip];
			t->size = m->clip_size[clip];
			return true;
		}
		t->text = model_clip_text(m, (uint32_t)clip);
		return t->text != NULL;
	}
	default:
		return false;
	}
}

/* ---- names ------------------------------------------------------------ */

static void sub_file_name(const struct pactree_sub *s, uint32_t i, char *buf, size_t len)
{
	snprintf(buf, len, "%u%s", i, kind_ext(s->kind));
}

static struct node sub_node(const struct node *dir, uint32_t i, enum node_type type)
{
	struct node c = *dir;
	c.type = type;
	c.path[c.depth++] = (uint16_t)i;
	return c;
}

static struct node view_node(const struct node *dir, enum node_type type,
			     unsigned stream, unsigned slot)
{
	struct node c = *dir;
	c.type = type;
	c.stream = (uint16_t)stream;
	c.slot = (uint16_t)slot;
	return c;
}

/* Parses the unsigned decimal number that starts s; false if none.  *end
 * is where it stops. */
static bool leading_number(const char *s, long long *v, const char **end)
{
	char *e;
	if (*s < '0' || *s > '9')
		return false;
	*v = strtoll(s, &e, 10);
	*end = e;
	return true;
}

static bool lookup_root(struct archive *ar, const char *name, struct node *child)
{
	char want[64];
	long long v;
	const char *end;
	bool minus_one = !strncmp(name, "file_-0001", 10);
	if (strncmp(name, "file_", 5))
		return false;
	if (minus_one)
		v = -1;
	else if (!leading_number(name + 5, &v, &end))
		return false;
	if (v + 1 >= (long long)ar->count)
		return false;
	uint32_t id = (uint32_t)(v + 1);
	*child = (struct node){.type = NODE_DIR, .entry = id};
	entry_dir_name(id, want, sizeof want);
	if (!strcmp(name, want)) {
		struct node_target t;
		return node_resolve(ar, child, &t);
	}
	archive_entry_name(ar, id, want, sizeof want);
	child->type = NODE_FILE;
	return !strcmp(name, want);
}

static bool lookup_model(struct model *m, const struct node *dir, const char *name,
			 struct node *child)
{
	long long v;
	const char *end;
	if (m->kind == KIND_SKELETON) {
		*child = view_node(dir, NODE_SKEL_TXT, 0, 0);
		return !strcmp(name, "skeleton.txt");
	}
	if (!strcmp(name, "pack.txt")) {
		*child = view_node(dir, NODE_PACK_TXT, 0, 0);
		return true;
	}
	char want[32];
	if (strncmp(name, "stream", 6) || !leading_number(name + 6, &v, &end) ||
	    v >= m->pack.nstreams || v >= NODE_MAX_STREAMS)
		return false;
	snprintf(want, sizeof want, "stream%lld", v);
	*child = view_node(dir, NODE_STREAM, (unsigned)v, 0);
	return !strcmp(name, want);
}

static bool lookup_slot(struct model *m, const struct node *dir, const char *name,
			struct node *child)
{
	long long v;
	const char *end;
	char want[32];
	if (strncmp(name, "slot", 4) || !leading_number(name + 4, &v, &end) ||
	    v >= NODE_MAX_SLOTS || slot_clip(m, dir->stream, (unsigned)v) < 0)
		return false;
	bool bin = !strcmp(end, ".bin");
	views_slot_name((uint32_t)v, bin, want, sizeof want);
	*child = view_node(dir, bin ? NODE_SLOT_BIN : NODE_SLOT_TXT, dir->stream,
			   (unsigned)v);
	return !strcmp(name, want);
}

bool node_slot_named(struct archive *ar, const struct node *dir, const char *name,
		     struct node *slot)
{
	struct node_target t;
	long long v;
	const char *end;
	char want[32];
	if (dir->type != NODE_STREAM || !node_resolve(ar, dir, &t) || !t.model ||
	    strncmp(name, "slot", 4) || !leading_number(name + 4, &v, &end) ||
	    v >= NODE_MAX_SLOTS || v >= t.model->pack.streams[dir->stream].nslots)
		return false;
	bool bin = !strcmp(end, ".bin");
	views_slot_name((uint32_t)v, bin, want, sizeof want);
	*slot = view_node(dir, bin ? NODE_SLOT_BIN : NODE_SLOT_TXT, dir->stream, (unsigned)v);
	return !strcmp(name, want);
}

bool node_lookup(struct archive *ar, const struct node *dir, const char *name,
		 struct node *child)
{
	char want[64];
	long long v;
	const char *end;
	struct node_target t;
	bool root = dir->type == NODE_ROOT || is_pac_root(ar, dir);

	if (root && !strcmp(name, ".mhfu")) {
		*child = (struct node){.type = NODE_META};
		return true;
	}
	switch (dir->type) {
	case NODE_ROOT:
		if (!strcmp(name, "index.tsv")) {
			*child = (struct node){.type = NODE_INDEX};
			return true;
		}
		return lookup_root(ar, name, child);
	case NODE_META:
		if (!strcmp(name, "rejected")) {
			*child = (struct node){.type = NODE_REJECTED};
			return true;
		}
		if (strcmp(name, "info") && strcmp(name, "log"))
			return false;
		*child = (struct node){.type = name[0] == 'i' ? NODE_INFO : NODE_LOG};
		return true;
	case NODE_STREAM:
		return node_resolve(ar, dir, &t) && lookup_slot(t.model, dir, name, child);
	case NODE_DIR:
		break;
	default:
		return false;
	}
	if (!node_resolve(ar, dir, &t))
		return false;
	if (t.model)
		return lookup_model(t.model, dir, name, child);
	if (!t.tree || dir->depth >= PACTREE_MAX_DEPTH ||
	    !leading_number(name, &v, &end) || v >= t.tree->count)
		return false;
	const struct pactree_sub *s = &t.tree->subs[v];
	if (!s->size)
		return false;
	*child = sub_node(dir, (uint32_t)v, *end ? NODE_FILE : NODE_DIR);
	if (!*end) {
		snprintf(want, sizeof want, "%lld", v);
		return !strcmp(name, want) && node_resolve(ar, child, &t);
	}
	sub_file_name(s, (uint32_t)v, want, sizeof want);
	return !strcmp(name, want);
}

/* ---- listings --------------------------------------------------------- */

/* The child at listing position p of a folder of the mount's own or of
 * entries; false to skip p.  *more is cleared past the last child. */
static bool root_child(struct archive *ar, const struct node *dir, uint64_t p,
		       struct node *child, char *name, size_t len, bool *more)
{
	uint64_t i = (p - POS_FIRST_CHILD) / 2;
	bool folder = (p - POS_FIRST_CHILD) % 2;
	if (dir->type == NODE_META) {
		static const struct {
			enum node_type type;
			const char *name;
		} meta[] = {{NODE_INFO, "info"}, {NODE_LOG, "log"}, {NODE_REJECTED, "rejected"}};
		if (i >= sizeof meta / sizeof *meta || folder) {
			*more = i + 1 < sizeof meta / sizeof *meta;
			return false;
		}
		*child = (struct node){.type = meta[i].type};
		snprintf(name, len, "%s", meta[i].name);
		return true;
	}
	if (i >= ar->count) {
		*more = false;
		return false;
	}
	*child = (struct node){.type = folder ? NODE_DIR : NODE_FILE, .entry = (uint32_t)i};
	if (!folder) {
		archive_entry_name(ar, (uint32_t)i, name, len);
		return true;
	}
	enum kind k = archive_entry_kind(ar, (uint32_t)i);
	if (k != KIND_PAC && !model_kind(k))
		return false;
	entry_dir_name((uint32_t)i, name, len);
	return true;
}

static bool model_child(const struct model *m, const struct node *dir, uint64_t p,
			struct node *child, char *name, size_t len, bool *more)
{
	if (dir->type == NODE_DIR) {
		bool skel = m->kind == KIND_SKELETON;
		if (p == POS_FIRST_CHILD) {
			*child = view_node(dir, skel ? NODE_SKEL_TXT : NODE_PACK_TXT, 0, 0);
			snprintf(name, len, skel ? "skeleton.txt" : "pack.txt");
			return true;
		}
		if (skel) {
			*more = false;
			return false;
		}
		uint64_t s = p - POS_FIRST_CHILD - 1;
		if (s >= m->pack.nstreams || s >= NODE_MAX_STREAMS) {
			*more = false;
			return false;
		}
		*child = view_node(dir, NODE_STREAM, (unsigned)s, 0);
		snprintf(name, len, "stream%llu", (unsigned long long)s);
		return true;
	}
	uint64_t slot = (p - POS_FIRST_CHILD) / 2;
	bool bin = (p - POS_FIRST_CHILD) % 2;
	if (slot >= m->pack.streams[dir->stream].nslots || slot >= NODE_MAX_SLOTS) {
		*more = false;
		return false;
	}
	if (slot_clip(m, dir->stream, (unsigned)slot) < 0)
		return false;
	*child = view_node(dir, bin ? NODE_SLOT_BIN : NODE_SLOT_TXT, dir->stream,
			   (unsigned)slot);
	views_slot_name((uint32_t)slot, bin, name, len);
	return true;
}

static bool pac_child(const struct pactree *tree, const struct node *dir, uint64_t p,
		      struct node *child, char *name, size_t len, bool *more)
{
	uint64_t i = (p - POS_FIRST_CHILD) / 2;
	bool folder = (p - POS_FIRST_CHILD) % 2;
	if (!tree || i >= tree->count || dir->depth >= PACTREE_MAX_DEPTH) {
		*more = false;
		return false;
	}
	const struct pactree_sub *s = &tree->subs[i];
	bool has_dir = s->kind == KIND_PAC ? s->child != NULL : model_kind(s->kind);
	if (!s->size || (folder && !has_dir))
		return false;
	*child = sub_node(dir, (uint32_t)i, folder ? NODE_DIR : NODE_FILE);
	if (folder)
		snprintf(name, len, "%llu", (unsigned long long)i);
	else
		sub_file_name(s, (uint32_t)i, name, len);
	return true;
}

bool node_child_at(struct archive *ar, const struct node *dir, uint64_t *pos,
		   struct node *child, char *name, size_t name_len)
{
	bool root = dir->type == NODE_ROOT || is_pac_root(ar, dir);
	struct node_target t;
	bool resolved = false;

	for (;; (*pos)++) {
		uint64_t p = *pos;
		bool more = true;
		if (p == 0 || p == 1) {
			*child = *dir; /* "..": the kernel fills in the parent */
			snprintf(name, name_len, p == 0 ? "." : "..");
			return true;
		}
		if (p == 2 && root) {
			*child = (struct node){.type = NODE_META};
			snprintf(name, name_len, ".mhfu");
			return true;
		}
		if (p == 3 && dir->type == NODE_ROOT) {
			*child = (struct node){.type = NODE_INDEX};
			snprintf(name, name_len, "index.tsv");
			return true;
		}
		if (p < POS_FIRST_CHILD)
			continue;
		bool found;
		if (dir->type == NODE_REJECTED)
			return false; /* only scratch files, listed by the caller */
		if (dir->type == NODE_ROOT || dir->type == NODE_META) {
			if (dir->type == NODE_ROOT)
				archive_sniff_all(ar);
			found = root_child(ar, dir, p, child, name, name_len, &more);
		} else {
			if (!resolved && !(resolved = node_resolve(ar, dir, &t)))
				return false;
			if (t.model)
				found = model_child(t.model, dir, p, child, name, name_len, &more);
			else
				found = pac_child(t.tree, dir, p, child, name, name_len, &more);
		}
		if (found)
			return true;
		if (!more)
			return false;
	}
}

void node_path(struct archive *ar, const struct node *n, char *buf, size_t len)
{
	struct node at = *n;
	size_t used;
	switch (n->type) {
	case NODE_FILE:
		at.type = NODE_DIR;
		if (n->depth == 0) {
			archive_entry_name(ar, n->entry, buf, len);
			return;
		}
		at.depth--;
		node_path(ar, &at, buf, len);
		used = strlen(buf);
		{
			struct item it;
			if (item_resolve(ar, n, &it))
				snprintf(buf + used, len - used, "/%u%s", n->path[n->depth - 1],
					 kind_ext(it.kind));
		}
		return;
	case NODE_DIR:
		if (is_pac_root(ar, n)) {
			buf[0] = '\0';
			return;
		}
		entry_dir_name(n->entry, buf, len);
		for (unsigned i = 0; i < n->depth; i++) {
			used = strlen(buf);
			snprintf(buf + used, len - used, "/%u", n->path[i]);
		}
		return;
	default:
		break;
	}
	/* The text views sit in their item's folder. */
	at.type = NODE_DIR;
	at.stream = at.slot = 0;
	node_path(ar, &at, buf, len);
	used = strlen(buf);
	const char *sep = used ? "/" : "";
	if (n->type == NODE_SKEL_TXT)
		snprintf(buf + used, len - used, "%sskeleton.txt", sep);
	else if (n->type == NODE_PACK_TXT)
		snprintf(buf + used, len - used, "%spack.txt", sep);
	else if (n->type == NODE_STREAM)
		snprintf(buf + used, len - used, "%sstream%u", sep, n->stream);
	else if (n->type == NODE_SLOT_TXT || n->type == NODE_SLOT_BIN)
		snprintf(buf + used, len - used, "%sstream%u/slot%03u.%s", sep, n->stream,
			 n->slot, n->type == NODE_SLOT_BIN ? "bin" : "txt");
	else
		snprintf(buf + used, len - used, "%s.mhfu", sep);
}

/* ---- names that look like views ------------------------------------- */

/* "prefix" (any case) then decimal digits; *end after them. */
static bool prefixed_number(const char *name, const char *prefix, const char **end)
{
	size_t n = strlen(prefix);
	if (strncasecmp(name, prefix, n) || !isdigit((unsigned char)name[n]))
		return false;
	for (name += n; isdigit((unsigned char)*name); name++)
		;
	*end = name;
	return true;
}

/* Nothing, or "." and letters: the end of a view's name (editors' names,
 * "slot024.txt~", ".slot024.txt.swp", end otherwise). */
static bool view_like_end(const char *end)
{
	if (!*end)
		return true;
	if (*end++ != '.' || !*end)
		return false;
	while (isalpha((unsigned char)*end))
		end++;
	return !*end;
}

static bool is_kind_ext(const char *ext)
{
	for (int k = 0; k < KIND_COUNT; k++)
		if (!strcasecmp(ext, kind_ext((enum kind)k)))
			return true;
	return false;
}

bool node_name_reserved(struct archive *ar, const struct node *dir, const char *name,
			char *why, size_t why_len)
{
	struct node_target t;
	const char *end;
	switch (dir->type) {
	case NODE_ROOT:
		if (!strcasecmp(name, "index.tsv") ||
		    (prefixed_number(name, "file_", &end) && view_like_end(end)) ||
		    (prefixed_number(name, "file_-", &end) && view_like_end(end))) {
			snprintf(why, why_len, "entries are named file_NNNNN.EXT as listed "
				 "(file_-0001 to file_%05u), and cannot be created",
				 ar->count >= 2 ? ar->count - 2 : 0);
			return true;
		}
		return false;
	case NODE_META:
		snprintf(why, why_len, "the mount's own folder holds no files of yours");
		return true;
	case NODE_STREAM:
		if (!prefixed_number(name, "slot", &end) || !view_like_end(end))
			return false;
		if (node_resolve(ar, dir, &t) && t.model && t.model->kind == KIND_ANIM)
			snprintf(why, why_len, "slot files are slotNNN.txt or slotNNN.bin, three "
				 "digits, 000 to %03u in stream %u (more slots: pack.txt)",
				 t.model->pack.streams[dir->stream].nslots - 1, dir->stream);
		else
			snprintf(why, why_len, "slot files are slotNNN.txt or slotNNN.bin");
		return true;
	case NODE_DIR:
		if (!node_resolve(ar, dir, &t))
			return false;
		if (t.model) {
			if (strcasecmp(name, "skeleton.txt") && strcasecmp(name, "pack.txt") &&
			    !(prefixed_number(name, "stream", &end) && !*end))
				return false;
			snprintf(why, why_len, "this folder holds %s",
				 t.model->kind == KIND_SKELETON ? "skeleton.txt"
								: "pack.txt and stream folders");
			return true;
		}
		if (t.tree && isdigit((unsigned char)name[0])) {
			for (end = name; isdigit((unsigned char)*end); end++)
				;
			if (*end != '.' || !is_kind_ext(end))
				return false;
			snprintf(why, why_len, "members are named N.EXT as listed, N from 0 to %u, "
				 "and cannot be created", t.tree->count ? t.tree->count - 1 : 0);
			return true;
		}
		return false;
	default:
		return false;
	}
}
