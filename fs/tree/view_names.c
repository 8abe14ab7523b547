/* SPDX-License-Identifier: MIT */
/* Parsing the names of views (view_names.h): what lookups and the
 * refusal of names that look like views share. */
#include "view_names.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool view_number(const char *s, long long *v, const char **end)
{
	char *e;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoll(s, &e, 10);
	*end = e;
	return errno == 0;
}

bool view_prefixed(const char *name, const char *prefix, const char **end)
{
	size_t n = strlen(prefix);
	if (strncasecmp(name, prefix, n) || !isdigit((unsigned char)name[n]))
		return false;
	for (name += n; isdigit((unsigned char)*name); name++)
		;
	*end = name;
	return true;
}

bool view_like_end(const char *end)
{
	if (!*end)
		return true;
	if (*end++ != '.' || !*end)
		return false;
	while (isalpha((unsigned char)*end))
		end++;
	return !*end;
}
