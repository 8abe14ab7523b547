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
bool item_folder_exists(struct mhfs *fs, const struct node *n);

#endif
