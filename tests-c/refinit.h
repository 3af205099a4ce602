/* For the programs built once against our library and once against Debian's OpenPMIx
 * 4.2.2 as the reference (tests-c/diff/diff.c, tests-c/v41/v41.c); included by the
 * reference build only. OpenPMIx 4.2.2's data functions (Data_copy, pack, ...)
 * dereference its codec module, which exists only after an init: reference_init
 * initialises as a tool that does not connect anywhere. Our data functions need no
 * init. */
#ifndef PMIX_TESTS_REFINIT_H
#define PMIX_TESTS_REFINIT_H

#include <pmix.h>
#include <pmix_tool.h>
#include <stdbool.h>
#include <stdio.h>

/* 0, or 1 (with a message) when the reference library does not initialise. */
static int reference_init(void)
{
    pmix_proc_t me;
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_LOAD(&info, PMIX_TOOL_DO_NOT_CONNECT, &yes, PMIX_BOOL);
    if (PMIX_SUCCESS != PMIx_tool_init(&me, &info, 1)) {
        fprintf(stderr, "reference PMIx_tool_init failed\n");
        return 1;
    }
    return 0;
}

#endif
