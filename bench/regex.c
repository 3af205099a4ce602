/* regex: the launcher-side cost of a large job, with no clients. Times
 *   1. PMIx_generate_regex of NODES host names (node00001,node00002,...),
 *   2. PMIx_generate_ppn of their rank lists, PPN ranks per node, written as ranges
 *      ("0-99;100-199;...") and again written out rank by rank ("0,1,...,99;100,...")
 *   3. PMIx_server_register_nspace of a NODES*PPN-process namespace carrying those maps
 *      (PMIX_NODE_MAP, PMIX_PROC_MAP, PMIX_JOB_SIZE) on a server from PMIx_server_init
 *      whose host name is the first node,
 * and prints, for each step, its wall time and the process's peak resident memory
 * during it (VmHWM, reset before each step through /proc/self/clear_refs where the
 * kernel allows it). Exit status 1 if any call fails.
 *
 *   regex [NODES [PPN]]     default 10000 nodes, 100 processes per node */
#define _GNU_SOURCE
#include <pmix.h>
#include <pmix_server.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static long status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t flen = strlen(field);
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (0 == strncmp(line, field, flen))
            kib = atol(line + flen);
    if (f)
        fclose(f);
    return kib;
}

/* Start a new peak: "5" to clear_refs resets VmHWM to the current VmRSS. */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return 0;
    int ok = fputs("5", f) >= 0;
    ok = (0 == fclose(f)) && ok;
    return ok;
}

static int peak_resets;
static double t_start;
static long rss_start;

static void begin(void)
{
    peak_resets = reset_peak();
    rss_start = status_kib("VmRSS:");
    t_start = now_s();
}

static void end(const char *what, pmix_status_t rc)
{
    double t = now_s() - t_start;
    printf("  %-46s %8.3f s  VmHWM %8.1f MB (RSS before %6.1f MB)%s  %s\n", what, t,
           status_kib("VmHWM:") / 1024.0, rss_start / 1024.0,
           peak_resets ? "" : " [peak not reset]", PMIx_Error_string(rc));
    if (PMIX_SUCCESS != rc)
        exit(1);
}

int main(int argc, char **argv)
{
    unsigned nodes = argc > 1 ? (unsigned)atol(argv[1]) : 10000;
    unsigned ppn = argc > 2 ? (unsigned)atol(argv[2]) : 100;
    if (nodes == 0 || ppn == 0)
        return 2;
    unsigned long nprocs = (unsigned long)nodes * ppn;

    /* The inputs, built before any timing. */
    size_t hcap = (size_t)nodes * 16 + 1;
    char *hosts = malloc(hcap), *p = hosts;
    for (unsigned i = 1; i <= nodes; i++)
        p += snprintf(p, hcap - (size_t)(p - hosts), "%snode%05u", i > 1 ? "," : "", i);
    size_t rcap = (size_t)nodes * 32 + 1;
    char *ranges = malloc(rcap);
    p = ranges;
    for (unsigned long n = 0; n < nodes; n++)
        p += snprintf(p, rcap - (size_t)(p - ranges), "%s%lu-%lu", n ? ";" : "", n * ppn,
                      n * ppn + ppn - 1);
    size_t lcap = (size_t)nprocs * 12 + 1;
    char *lists = malloc(lcap);
    p = lists;
    for (unsigned long r = 0; r < nprocs; r++)
        p += snprintf(p, lcap - (size_t)(p - lists), "%s%lu",
                      r == 0 ? "" : (r % ppn == 0 ? ";" : ","), r);
    printf("regex: %u nodes, %u procs per node (%lu procs); inputs %zu, %zu and %zu bytes; "
           "RSS %.1f MB\n",
           nodes, ppn, nprocs, strlen(hosts), strlen(ranges), strlen(lists),
           status_kib("VmRSS:") / 1024.0);

    char *nmap = NULL, *pmap = NULL, *pmap2 = NULL;
    begin();
    pmix_status_t rc = PMIx_generate_regex(hosts, &nmap);
    end("PMIx_generate_regex", rc);
    begin();
    rc = PMIx_generate_ppn(ranges, &pmap);
    end("PMIx_generate_ppn (ranges \"0-99;...\")", rc);
    begin();
    rc = PMIx_generate_ppn(lists, &pmap2);
    end("PMIx_generate_ppn (rank by rank \"0,1,...\")", rc);
    printf("  node map %zu bytes, proc map %zu bytes (%s from both inputs)\n", strlen(nmap),
           strlen(pmap), 0 == strcmp(pmap, pmap2) ? "same" : "DIFFERENT");
    free(pmap2);
    free(lists);

    pmix_server_module_t module;
    memset(&module, 0, sizeof module);
    pmix_info_t sinfo;
    PMIX_INFO_LOAD(&sinfo, PMIX_HOSTNAME, "node00001", PMIX_STRING);
    begin();
    rc = PMIx_server_init(&module, &sinfo, 1);
    end("PMIx_server_init", rc);
    PMIX_INFO_DESTRUCT(&sinfo);

    pmix_info_t *info = PMIx_Info_create(4);
    uint32_t size = (uint32_t)nprocs, nn = nodes;
    PMIX_INFO_LOAD(&info[0], PMIX_JOB_SIZE, &size, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[1], PMIX_NUM_NODES, &nn, PMIX_UINT32);
    PMIX_INFO_LOAD(&info[2], PMIX_NODE_MAP, nmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[3], PMIX_PROC_MAP, pmap, PMIX_STRING);
    pmix_nspace_t ns;
    PMIX_LOAD_NSPACE(ns, "bench.regex");
    begin();
    rc = PMIx_server_register_nspace(ns, (int)ppn, info, 4, NULL, NULL);
    end("PMIx_server_register_nspace", rc);
    PMIX_INFO_FREE(info, 4);

    begin();
    PMIx_server_deregister_nspace(ns, NULL, NULL);
    end("PMIx_server_deregister_nspace", PMIX_SUCCESS);
    rc = PMIx_server_finalize();
    free(nmap);
    free(pmap);
    free(hosts);
    free(ranges);
    printf("regex: %s\n", PMIX_SUCCESS == rc ? "ok" : "FAILED");
    return PMIX_SUCCESS != rc;
}
