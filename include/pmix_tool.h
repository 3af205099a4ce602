/*
 * pmix_tool.h - the PMIx tool API: programs that are not part of a job (debuggers,
 * launchers, monitors) connect to a PMIx server, and may host one of their own. A tool
 * also has the whole client API of pmix.h and the server API of pmix_server.h.
 * The conventions of pmix.h apply.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#ifndef PMIx_TOOL_API_H
#define PMIx_TOOL_API_H

#include <pmix.h>
#include <pmix_server.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* Initialise as a tool: connect to the server chosen by info (by pid, URI, namespace,
 * system server...; PMIX_TOOL_DO_NOT_CONNECT to stay alone) and receive the tool's
 * identity in *proc (must not be NULL). */
PMIX_EXPORT pmix_status_t PMIx_tool_init(pmix_proc_t *proc,
                                         pmix_info_t info[], size_t ninfo);

/* Give a tool that also acts as a server its up-call table (all 32 slots are read; the
 * table is copied). */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server_module(pmix_server_module_t *module);

/* Disconnect from every server and shut the tool side down. */
PMIX_EXPORT pmix_status_t PMIx_tool_finalize(void);

/* True if the tool is connected to at least one server. */
PMIX_EXPORT bool PMIx_tool_is_connected(void);

/* Connect to one more server, chosen by info. *myproc receives the tool's identity as
 * that server knows it and *server the server's identity (either may be NULL). */
PMIX_EXPORT pmix_status_t PMIx_tool_attach_to_server(pmix_proc_t *myproc, pmix_proc_t *server,
                                                     pmix_info_t info[], size_t ninfo);

/* Drop the connection to server. */
PMIX_EXPORT pmix_status_t PMIx_tool_disconnect(const pmix_proc_t *server);

/* Servers the tool is connected to. On success *servers is a malloc'd array owned by the
 * caller (PMIX_PROC_FREE(*servers, *nservers)). */
PMIX_EXPORT pmix_status_t PMIx_tool_get_servers(pmix_proc_t *servers[], size_t *nservers);

/* Make server (already attached) the one that requests go to. */
PMIX_EXPORT pmix_status_t PMIx_tool_set_server(const pmix_proc_t *server,
                                               pmix_info_t info[], size_t ninfo);

/* Receives forwarded output: payload (channel's bytes from source) and info belong to
 * the library and are valid during the call only. */
typedef void (*pmix_iof_cbfunc_t)(size_t iofhdlr, pmix_iof_channel_t channel,
                                  pmix_proc_t *source, pmix_byte_object_t *payload,
                                  pmix_info_t info[], size_t ninfo);

/* Ask for the output channels of procs to be delivered to cbfunc (kept by the library
 * until PMIx_IOF_deregister). The handler id is reported through
 * regcbfunc(status, id, regcbdata); with regcbfunc NULL the call blocks and returns the
 * id (non-negative) or an error. */
PMIX_EXPORT pmix_status_t PMIx_IOF_pull(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_iof_channel_t channel, pmix_iof_cbfunc_t cbfunc,
                                        pmix_hdlr_reg_cbfunc_t regcbfunc, void *regcbdata);

/* Stop the delivery set up by PMIx_IOF_pull with handler id iofhdlr; cbfunc may be
 * NULL. */
PMIX_EXPORT pmix_status_t PMIx_IOF_deregister(size_t iofhdlr,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Send bo (copied; NULL with PMIX_IOF_COMPLETE in directives closes the stream) to the
 * stdin of targets. */
PMIX_EXPORT pmix_status_t PMIx_IOF_push(const pmix_proc_t targets[], size_t ntargets,
                                        pmix_byte_object_t *bo,
                                        const pmix_info_t directives[], size_t ndirs,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_TOOL_API_H */
