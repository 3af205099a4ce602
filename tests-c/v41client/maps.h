/* Which libpmix a v41client program runs on (client.c, built on ours; apis.c, built
 * against Debian's headers and run on either library): the check that the libpmix.so
 * files this process mapped are the one V41CLIENT_LIB names (set by run.sh). */
#ifndef PMIX_TESTS_V41CLIENT_MAPS_H
#define PMIX_TESTS_V41CLIENT_MAPS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"

static void check_maps(void)
{
    const char *want = getenv("V41CLIENT_LIB");
    char line[4096], found[4096] = "";
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL, "read /proc/self/maps");
    if (f == NULL)
        return;
    while (fgets(line, sizeof line, f) != NULL) {
        char *p = strchr(line, '/');
        if (p == NULL || strstr(p, "libpmix.so") == NULL)
            continue;
        p[strcspn(p, "\n")] = '\0';
        if (strstr(found, p) == NULL) {
            if (found[0])
                strncat(found, ",", sizeof found - strlen(found) - 1);
            strncat(found, p, sizeof found - strlen(found) - 1);
        }
    }
    fclose(f);
    CHECK(want != NULL && strcmp(found, want) == 0, "libpmix mapped: %s (want %s)", found,
          want ? want : "(V41CLIENT_LIB unset)");
}

#endif
