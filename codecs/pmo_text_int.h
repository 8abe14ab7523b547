/* SPDX-License-Identifier: MIT */
/* Internal to the PMO text views (pmo_text.c, pmo_mesh_text.c,
 * pmo_vertices_text.c): the helpers they share. */
#ifndef MH_PMO_TEXT_INT_H
#define MH_PMO_TEXT_INT_H

#include <stdbool.h>

#include "float_text.h"
#include "lex.h"
#include "pmo.h"
#include "strbuf.h"

void pmo_text_uint(struct strbuf *sb, unsigned long long v);

/* Whether a and b have the same bits. */
bool pmo_text_same(float a, float b);

/* A float word into *out: a changed value must be finite (`have` kept
 * as it is, whatever its bits). */
enum mh_err pmo_text_float(const struct lex_word *w, float have, float *out, struct mh_diag *d);

#endif
