/* SPDX-License-Identifier: MIT */
/* The item folders' family (view_item.c). */
#ifndef FS_VIEW_ITEM_H
#define FS_VIEW_ITEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "node.h"

/* What every item folder shares, whatever its kind (view_item.c): its
 * name (file_06185, or the member's index), its folder, resolving it
 * (its tree or model), and telling cheaply whether it exists. */
void item_folder_name(struct mhfs *fs, const struct node *n, char *buf, size_t len);
void item_parent(const struct node *n, struct node *dir);
int item_folder_resolve(struct mhfs *fs, const struct node *n, struct node_target *t);
/* The resolve of a file whose writes are requests (entries/entryNNN.glb,
 * a PMO's mesh.glb): nothing to read, nothing left under its name. */
int item_request_resolve(struct mhfs *fs, const struct node *n, struct node_target *t);
bool item_folder_exists(struct mhfs *fs, const struct node *n);

/* The decoded model of the first member of kind k of the PAC folder dir
 * (tree its tree) into *m, NULL when there is none or it does not
 * decode: 0; EIO when it could not be built now (a failed read or
 * allocation, tried again at the next use). */
struct model;
int pac_first_model(struct mhfs *fs, const struct node *dir, const struct pactree *tree,
		    enum kind k, struct model **m);

/* A model.glb (codecs/gltf.h) of the PAC folder dir (tree its tree): rig
 * and pack (either may be NULL; map the pack's record map, NULL) with the
 * PAC's PMOs as the body, each textured by the bank after it.  0 with
 * *bytes malloc'ed; else an errno, a refusal of the encoder logged as
 * DIR/name (view_model.c). */
struct anim;
struct records;
struct skeleton;
int model_glb_make(struct mhfs *fs, const struct node *dir, const struct pactree *tree,
		   const struct skeleton *rig, const struct anim *pack, const struct records *map,
		   const char *name, uint8_t **bytes, size_t *len);

#endif
