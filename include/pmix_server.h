/*
 * pmix_server.h - the PMIx server API, for the "host" (a resource manager daemon or a
 * launcher) that serves the PMIx clients on its node.
 *
 * The host gives the library a table of up-calls (pmix_server_module_t). The library
 * calls them, on its progress thread, when clients ask for something only the host can
 * do (collectives across nodes, spawning, publishing...). Rules for every up-call:
 *  - a NULL entry means "not supported": the client gets PMIX_ERR_NOT_SUPPORTED;
 *  - return PMIX_SUCCESS if you will call cbfunc(..., cbdata) later (exactly once),
 *    PMIX_OPERATION_SUCCEEDED if the work is already done and you will not call it, or
 *    an error status (you will not call it either);
 *  - arguments are owned by the library and valid until cbfunc is called (or the
 *    up-call returns, when cbfunc is not going to be called); copy what you keep;
 *  - do not call blocking PMIx functions from inside an up-call.
 * The conventions of pmix.h (arrays with lengths, ownership of results) apply here too.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#ifndef PMIx_SERVER_API_H
#define PMIx_SERVER_API_H

#include <pmix_common.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* ------------------------------------------------------------------------------------
 * Up-call types
 * ------------------------------------------------------------------------------------ */

/* A local client connected (server_object is what the host gave
 * PMIx_server_register_client). Not used when client_connected2 is provided. */
typedef pmix_status_t (*pmix_server_client_connected_fn_t)(const pmix_proc_t *proc,
                                                           void *server_object,
                                                           pmix_op_cbfunc_t cbfunc,
                                                           void *cbdata);

/* A local client connected; info describes the connection. Preferred over
 * client_connected. */
typedef pmix_status_t (*pmix_server_client_connected2_fn_t)(const pmix_proc_t *proc,
                                                            void *server_object,
                                                            pmix_info_t info[], size_t ninfo,
                                                            pmix_op_cbfunc_t cbfunc,
                                                            void *cbdata);

/* A local client called PMIx_Finalize. */
typedef pmix_status_t (*pmix_server_client_finalized_fn_t)(const pmix_proc_t *proc,
                                                           void *server_object,
                                                           pmix_op_cbfunc_t cbfunc,
                                                           void *cbdata);

/* A local client called PMIx_Abort: terminate procs (NULL/0: the client's namespace). */
typedef pmix_status_t (*pmix_server_abort_fn_t)(const pmix_proc_t *proc, void *server_object,
                                                int status, const char msg[],
                                                pmix_proc_t procs[], size_t nprocs,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* All local participants of a fence over procs have arrived. data (ndata bytes, may be
 * empty) is this node's contribution; the host must exchange it with the other nodes
 * involved and hand the concatenation of every node's contribution to cbfunc. */
typedef pmix_status_t (*pmix_server_fencenb_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  char *data, size_t ndata,
                                                  pmix_modex_cbfunc_t cbfunc, void *cbdata);

/* A local client wants the data of proc, which lives on another node: fetch it (the
 * remote host calls PMIx_server_dmodex_request) and hand it to cbfunc. */
typedef pmix_status_t (*pmix_server_dmodex_req_fn_t)(const pmix_proc_t *proc,
                                                     const pmix_info_t info[], size_t ninfo,
                                                     pmix_modex_cbfunc_t cbfunc, void *cbdata);

/* Name service: publish info for proc. */
typedef pmix_status_t (*pmix_server_publish_fn_t)(const pmix_proc_t *proc,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Name service: look up the NULL-terminated list keys for proc. */
typedef pmix_status_t (*pmix_server_lookup_fn_t)(const pmix_proc_t *proc, char **keys,
                                                 const pmix_info_t info[], size_t ninfo,
                                                 pmix_lookup_cbfunc_t cbfunc, void *cbdata);

/* Name service: remove proc's publications of keys (NULL: all). */
typedef pmix_status_t (*pmix_server_unpublish_fn_t)(const pmix_proc_t *proc, char **keys,
                                                    const pmix_info_t info[], size_t ninfo,
                                                    pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Spawn a job for requester proc; report the new namespace through cbfunc. */
typedef pmix_status_t (*pmix_server_spawn_fn_t)(const pmix_proc_t *proc,
                                                const pmix_info_t job_info[], size_t ninfo,
                                                const pmix_app_t apps[], size_t napps,
                                                pmix_spawn_cbfunc_t cbfunc, void *cbdata);

/* All local participants of a connect / disconnect over procs have arrived; complete it
 * across nodes. */
typedef pmix_status_t (*pmix_server_connect_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_disconnect_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                                     const pmix_info_t info[], size_t ninfo,
                                                     pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Clients want / no longer want events with these codes (NULL/0: all events). */
typedef pmix_status_t (*pmix_server_register_events_fn_t)(pmix_status_t *codes, size_t ncodes,
                                                          const pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_deregister_events_fn_t)(pmix_status_t *codes, size_t ncodes,
                                                            pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Deliver an event raised on this node to the processes in range beyond it. */
typedef pmix_status_t (*pmix_server_notify_event_fn_t)(pmix_status_t code,
                                                       const pmix_proc_t *source,
                                                       pmix_data_range_t range,
                                                       pmix_info_t info[], size_t ninfo,
                                                       pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Hands a newly accepted connection (socket incoming_sd) back to the library. */
typedef void (*pmix_connection_cbfunc_t)(int incoming_sd, void *cbdata);

/* Offer to watch the library's listening socket listening_sd yourself, calling
 * cbfunc(new_sd, cbdata) for each connection accepted. Return an error to let the
 * library listen on its own. */
typedef pmix_status_t (*pmix_server_listener_fn_t)(int listening_sd,
                                                   pmix_connection_cbfunc_t cbfunc,
                                                   void *cbdata);

/* Answer queries the library could not answer itself, for requester proct. */
typedef pmix_status_t (*pmix_server_query_fn_t)(pmix_proc_t *proct,
                                                pmix_query_t *queries, size_t nqueries,
                                                pmix_info_cbfunc_t cbfunc,
                                                void *cbdata);

/* Tells the library the identity assigned to a connecting tool (status PMIX_SUCCESS to
 * accept it). proc belongs to the caller. */
typedef void (*pmix_tool_connection_cbfunc_t)(pmix_status_t status,
                                              pmix_proc_t *proc, void *cbdata);

/* A tool wants to connect; assign it an identity through cbfunc. The *2 form may also
 * refuse by returning an error. */
typedef void (*pmix_server_tool_connection_fn_t)(pmix_info_t *info, size_t ninfo,
                                                 pmix_tool_connection_cbfunc_t cbfunc,
                                                 void *cbdata);
typedef pmix_status_t (*pmix_server_tool_connection2_fn_t)(pmix_info_t *info, size_t ninfo,
                                                           pmix_tool_connection_cbfunc_t cbfunc,
                                                           void *cbdata);

/* Log data for client as directives say. The *2 form returns a status. */
typedef void (*pmix_server_log_fn_t)(const pmix_proc_t *client,
                                     const pmix_info_t data[], size_t ndata,
                                     const pmix_info_t directives[], size_t ndirs,
                                     pmix_op_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_log2_fn_t)(const pmix_proc_t *client,
                                               const pmix_info_t data[], size_t ndata,
                                               const pmix_info_t directives[], size_t ndirs,
                                               pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Allocation request from client (PMIx_Allocation_request). */
typedef pmix_status_t (*pmix_server_alloc_fn_t)(const pmix_proc_t *client,
                                                pmix_alloc_directive_t directive,
                                                const pmix_info_t data[], size_t ndata,
                                                pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Job control request (PMIx_Job_control). */
typedef pmix_status_t (*pmix_server_job_control_fn_t)(const pmix_proc_t *requestor,
                                                      const pmix_proc_t targets[], size_t ntargets,
                                                      const pmix_info_t directives[], size_t ndirs,
                                                      pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Monitoring request (PMIx_Process_monitor). */
typedef pmix_status_t (*pmix_server_monitor_fn_t)(const pmix_proc_t *requestor,
                                                  const pmix_info_t *monitor, pmix_status_t error,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Issue a credential to proc / check one presented by proc. */
typedef pmix_status_t (*pmix_server_get_cred_fn_t)(const pmix_proc_t *proc,
                                                   const pmix_info_t directives[], size_t ndirs,
                                                   pmix_credential_cbfunc_t cbfunc, void *cbdata);
typedef pmix_status_t (*pmix_server_validate_cred_fn_t)(const pmix_proc_t *proc,
                                                        const pmix_byte_object_t *cred,
                                                        const pmix_info_t directives[], size_t ndirs,
                                                        pmix_validation_cbfunc_t cbfunc, void *cbdata);

/* Forward the I/O channels of procs to this node (the host then delivers it with
 * PMIx_server_IOF_deliver). */
typedef pmix_status_t (*pmix_server_iof_fn_t)(const pmix_proc_t procs[], size_t nprocs,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_iof_channel_t channels,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Deliver stdin data bo from source to targets. */
typedef pmix_status_t (*pmix_server_stdin_fn_t)(const pmix_proc_t *source,
                                                const pmix_proc_t targets[], size_t ntargets,
                                                const pmix_info_t directives[], size_t ndirs,
                                                const pmix_byte_object_t *bo,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* All local members of a group operation on group grp have arrived; complete it across
 * nodes and return the group's information (e.g. its context id). */
typedef pmix_status_t (*pmix_server_grp_fn_t)(pmix_group_operation_t op, char grp[],
                                              const pmix_proc_t procs[], size_t nprocs,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Fabric information request or update for requestor. */
typedef pmix_status_t (*pmix_server_fabric_fn_t)(const pmix_proc_t *requestor,
                                                 pmix_fabric_operation_t op,
                                                 const pmix_info_t directives[], size_t ndirs,
                                                 pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Session control request (PMIx_Session_control). */
typedef pmix_status_t (*pmix_server_session_control_fn_t)(const pmix_proc_t *requestor,
                                                          uint32_t sessionID,
                                                          const pmix_info_t directives[], size_t ndirs,
                                                          pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Resource block request (PMIx_Resource_block). */
typedef pmix_status_t (*pmix_server_resource_block_fn_t)(const pmix_proc_t *requestor,
                                                         pmix_resource_block_directive_t directive,
                                                         const char *block,
                                                         const pmix_resource_unit_t *units, size_t nunit,
                                                         const pmix_info_t *info, size_t ninfo,
                                                         pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ------------------------------------------------------------------------------------
 * The up-call table
 *
 * 32 slots (256 bytes). OpenPMIx 4.2.2 defines only the first 28 (224 bytes, ending
 * with client_connected2); the last four were added later. Hosts compiled against older
 * headers therefore hand over a smaller object, so PMIx_server_init reads only the first
 * 28 slots unless the host says its table is complete by passing the info key
 * PMIX_SERVER_MODULE_V7 (below) set to true. PMIx_tool_set_server_module always reads
 * all 32.
 * ------------------------------------------------------------------------------------ */
typedef struct pmix_server_module_4_0_0_t {
    pmix_server_client_connected_fn_t   client_connected;    /* superseded by client_connected2 */
    pmix_server_client_finalized_fn_t   client_finalized;
    pmix_server_abort_fn_t              abort;
    pmix_server_fencenb_fn_t            fence_nb;
    pmix_server_dmodex_req_fn_t         direct_modex;
    pmix_server_publish_fn_t            publish;
    pmix_server_lookup_fn_t             lookup;
    pmix_server_unpublish_fn_t          unpublish;
    pmix_server_spawn_fn_t              spawn;
    pmix_server_connect_fn_t            connect;
    pmix_server_disconnect_fn_t         disconnect;
    pmix_server_register_events_fn_t    register_events;
    pmix_server_deregister_events_fn_t  deregister_events;
    pmix_server_listener_fn_t           listener;
    pmix_server_notify_event_fn_t       notify_event;
    pmix_server_query_fn_t              query;
    pmix_server_tool_connection_fn_t    tool_connected;      /* superseded by tool_connected2 */
    pmix_server_log_fn_t                log;                 /* superseded by log2 */
    pmix_server_alloc_fn_t              allocate;
    pmix_server_job_control_fn_t        job_control;
    pmix_server_monitor_fn_t            monitor;
    pmix_server_get_cred_fn_t           get_credential;
    pmix_server_validate_cred_fn_t      validate_credential;
    pmix_server_iof_fn_t                iof_pull;
    pmix_server_stdin_fn_t              push_stdin;
    pmix_server_grp_fn_t                group;
    pmix_server_fabric_fn_t             fabric;
    pmix_server_client_connected2_fn_t  client_connected2;   /* last slot of 4.2.2 */
    pmix_server_tool_connection2_fn_t   tool_connected2;     /* slots 29-32: read only with */
    pmix_server_log2_fn_t               log2;                /* PMIX_SERVER_MODULE_V7 */
    pmix_server_session_control_fn_t    session_control;
    pmix_server_resource_block_fn_t     resource_block;
} pmix_server_module_t;

/* pmix-rs extension (not an OpenPMIx attribute, hence a key outside the "pmix."
 * namespace). Pass it, with a bool value of true, in the info array of PMIx_server_init
 * to say that the module table has all 32 slots above. Without it (or with false) the
 * library reads only the first 28 slots and treats the others as NULL. An OpenPMIx
 * library ignores the key. Example:
 *     pmix_info_t info[1];
 *     bool full = true;
 *     PMIX_INFO_LOAD(&info[0], PMIX_SERVER_MODULE_V7, &full, PMIX_BOOL);
 *     PMIx_server_init(&module, info, 1); */
#define PMIX_SERVER_MODULE_V7 "pmixrs.srvr.mod32"

/* ------------------------------------------------------------------------------------
 * Server functions
 * ------------------------------------------------------------------------------------ */

/* Start the server side of the library: open the rendezvous point for local clients and
 * start the progress thread. module (NULL: no up-calls) is copied (28 or 32 slots, see
 * above), so the host's object need not outlive the call. info (may be NULL) holds
 * options such as PMIX_SERVER_TMPDIR or PMIX_SERVER_NSPACE. */
PMIX_EXPORT pmix_status_t PMIx_server_init(pmix_server_module_t *module,
                                           pmix_info_t info[], size_t ninfo);

/* Stop the server: disconnect clients, remove rendezvous files, stop the thread. */
PMIX_EXPORT pmix_status_t PMIx_server_finalize(void);

/* Encode the comma-separated names in input. On success regex holds malloc'd type and
 * bytes owned by the caller (PMIX_REGEX2_DESTRUCT). */
PMIX_EXPORT pmix_status_t PMIx_generate_regex2(const char *input,
                                               pmix_info_t info[], size_t ninfo,
                                               pmix_regex2_t *regex);

/* Decode regex (from PMIx_generate_regex2 or a peer) back into the comma-separated
 * list; *output is malloc'd and owned by the caller. */
PMIX_EXPORT pmix_status_t PMIx_parse_regex2(const pmix_regex2_t *regex,
                                            pmix_info_t info[], size_t ninfo,
                                            char **output);

/* Describe namespace nspace (nlocalprocs of its processes run on this node) with the
 * job, app, node and process information in info (copied). Must precede
 * PMIx_server_register_client for its processes. cbfunc may be NULL (then blocking; the
 * return value is the result). */
PMIX_EXPORT pmix_status_t PMIx_server_register_nspace(const pmix_nspace_t nspace,
                                                      int nlocalprocs,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Forget namespace nspace and everything stored for it; cbfunc may be NULL. */
PMIX_EXPORT void PMIx_server_deregister_nspace(const pmix_nspace_t nspace,
                                               pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Expect a local client proc running as uid/gid. server_object (may be NULL) is the
 * host's own pointer, handed back in up-calls about this client; the library never
 * dereferences it. cbfunc may be NULL (blocking). */
PMIX_EXPORT pmix_status_t PMIx_server_register_client(const pmix_proc_t *proc,
                                                      uid_t uid, gid_t gid,
                                                      void *server_object,
                                                      pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Forget client proc (e.g. after it exited); cbfunc may be NULL. */
PMIX_EXPORT void PMIx_server_deregister_client(const pmix_proc_t *proc,
                                               pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Add to the environment array *env (grown with realloc, stays the caller's) the
 * variables client proc needs to find this server. Call before exec'ing the client. */
PMIX_EXPORT pmix_status_t PMIx_server_setup_fork(const pmix_proc_t *proc, char ***env);

/* Receives the data of a dmodex request: data (sz bytes) belongs to the library and is
 * valid during the call only. */
typedef void (*pmix_dmodex_response_fn_t)(pmix_status_t status,
                                          char *data, size_t sz,
                                          void *cbdata);

/* On behalf of a remote host: collect the data local client proc has committed and hand
 * it to cbfunc (waiting until proc has committed if needed). cbfunc must not be NULL. */
PMIX_EXPORT pmix_status_t PMIx_server_dmodex_request(const pmix_proc_t *proc,
                                                     pmix_dmodex_response_fn_t cbfunc,
                                                     void *cbdata);

/* Receives the launch information from PMIx_server_setup_application. info belongs to
 * the library until the receiver calls cbfunc(status, cbdata) (cbfunc may be NULL). */
typedef void (*pmix_setup_application_cbfunc_t)(pmix_status_t status,
                                                pmix_info_t info[], size_t ninfo,
                                                void *provided_cbdata,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Before launching namespace nspace: gather what the network and other subsystems need
 * on the compute nodes, delivered to cbfunc (must not be NULL). */
PMIX_EXPORT pmix_status_t PMIx_server_setup_application(const pmix_nspace_t nspace,
                                                        pmix_info_t info[], size_t ninfo,
                                                        pmix_setup_application_cbfunc_t cbfunc,
                                                        void *cbdata);

/* On each node: apply the information produced by PMIx_server_setup_application for
 * nspace. cbfunc may be NULL (blocking). */
PMIX_EXPORT pmix_status_t PMIx_server_setup_local_support(const pmix_nspace_t nspace,
                                                          pmix_info_t info[], size_t ninfo,
                                                          pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Deliver output bo (copied) of source's channel to the local tools and clients that
 * asked for it. */
PMIX_EXPORT pmix_status_t PMIx_server_IOF_deliver(const pmix_proc_t *source,
                                                  pmix_iof_channel_t channel,
                                                  const pmix_byte_object_t *bo,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Pause (xoff true) or resume the forwarding of source's channel. */
PMIX_EXPORT pmix_status_t PMIx_server_IOF_flow_control(const pmix_proc_t *source,
                                                       pmix_iof_channel_t channel,
                                                       bool xoff,
                                                       const pmix_info_t directives[], size_t ndirs,
                                                       pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Collect this node's inventory (devices, topology...); cbfunc must not be NULL. */
PMIX_EXPORT pmix_status_t PMIx_server_collect_inventory(pmix_info_t directives[], size_t ndirs,
                                                        pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Give the library inventory info collected elsewhere (copied); cbfunc may be NULL. */
PMIX_EXPORT pmix_status_t PMIx_server_deliver_inventory(pmix_info_t info[], size_t ninfo,
                                                        pmix_info_t directives[], size_t ndirs,
                                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Declare which attributes the host supports for API function (e.g. "PMIx_Get"); attrs
 * is a NULL-terminated list of attribute names (copied). Answers PMIX_QUERY_ATTRIBUTE_SUPPORT
 * queries. */
PMIX_EXPORT pmix_status_t PMIx_Register_attributes(char *function, char *attrs[]);

/* Locality string of cpuset (to place in PMIX_LOCALITY_STRING); *locality is malloc'd
 * and owned by the caller. */
PMIX_EXPORT pmix_status_t PMIx_server_generate_locality_string(const pmix_cpuset_t *cpuset,
                                                               char **locality);

/* Printable form of cpuset; *cpuset_string is malloc'd and owned by the caller. */
PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset_string(const pmix_cpuset_t *cpuset,
                                                             char **cpuset_string);

/* Inverse of PMIx_server_generate_cpuset_string; cpuset then owns its bitmap. */
PMIX_EXPORT pmix_status_t PMIx_server_generate_cpuset(const char *cpuset_string,
                                                      pmix_cpuset_t *cpuset);

/* Name the set of nmembers processes members pset_name (copied), and tell local clients
 * (PMIX_PROCESS_SET_DEFINE event). */
PMIX_EXPORT pmix_status_t PMIx_server_define_process_set(const pmix_proc_t *members,
                                                         size_t nmembers,
                                                         const char *pset_name);

/* Remove process set pset_name (PMIX_PROCESS_SET_DELETE event). */
PMIX_EXPORT pmix_status_t PMIx_server_delete_process_set(char *pset_name);

/* Register information that is not about one namespace (cluster, nodes, fabric,
 * devices, group bootstrap data); every job sees it. cbfunc may be NULL (blocking;
 * returns PMIX_OPERATION_SUCCEEDED). */
PMIX_EXPORT pmix_status_t PMIx_server_register_resources(pmix_info_t info[], size_t ninfo,
                                                         pmix_op_cbfunc_t cbfunc,
                                                         void *cbdata);

/* Remove information registered with PMIx_server_register_resources, selected by the
 * keys in info. Same calling convention. */
PMIX_EXPORT pmix_status_t PMIx_server_deregister_resources(pmix_info_t info[], size_t ninfo,
                                                           pmix_op_cbfunc_t cbfunc,
                                                           void *cbdata);

/* Pack the job information the library holds for the namespaces of procs into dbuf
 * (caller's buffer), for a host that forwards it to another server. */
PMIX_EXPORT pmix_status_t PMIx_server_collect_job_info(pmix_proc_t *procs, size_t nprocs,
                                                       pmix_data_buffer_t *dbuf);

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_SERVER_API_H */
