/*
 * pmix.h - the PMIx client API (also used by tools and servers for the common calls).
 *
 * Conventions used by every function below:
 *  - Arrays come with their length (info + ninfo, procs + nprocs...). A NULL array with
 *    a length of 0 is always accepted; a NULL array with a non-zero length gives
 *    PMIX_ERR_BAD_PARAM.
 *  - Input arguments stay owned by the caller and are not kept after the call returns
 *    (the library copies what it needs), unless the comment says otherwise.
 *  - Results handed back through pointer arguments (values, arrays, strings) are
 *    malloc'd and owned by the caller, who releases them with the matching *_free /
 *    *_RELEASE helper or free(). They are written only on success.
 *  - A NULL pointer where an object is required gives PMIX_ERR_BAD_PARAM.
 *  - Every *_nb function returns PMIX_SUCCESS when the request was accepted; its
 *    callback then runs exactly once, on the library's progress thread, with the final
 *    status. Any other return value means the callback will not run. Some *_nb functions
 *    may instead return PMIX_OPERATION_SUCCEEDED: done already, no callback.
 *  - Blocking functions must not be called from a callback or event handler (the
 *    library's progress thread): they return PMIX_ERR_WOULD_BLOCK there.
 *  - Calls that need a connection return PMIX_ERR_INIT before PMIx_Init (or
 *    PMIx_tool_init / PMIx_server_init) and after PMIx_Finalize.
 *
 * SPDX-License-Identifier: BSD-3-Clause
 */

#ifndef PMIx_H
#define PMIx_H

#include <pmix_common.h>

#if defined(c_plusplus) || defined(__cplusplus)
extern "C" {
#endif

/* ------------------------------------------------------------------------------------
 * Start and stop
 * ------------------------------------------------------------------------------------ */

/* Connect this process to its local PMIx server (found through the environment the
 * launcher set) and learn its identity, which is copied into *proc (proc may be NULL).
 * info (may be NULL) holds options. May be called more than once; each call must be
 * matched by PMIx_Finalize. Without a server, the process runs as a singleton. */
PMIX_EXPORT pmix_status_t PMIx_Init(pmix_proc_t *proc,
                                    pmix_info_t info[], size_t ninfo);

/* Undo one PMIx_Init; the last one disconnects from the server. info (may be NULL) holds
 * options such as PMIX_EMBED_BARRIER. */
PMIX_EXPORT pmix_status_t PMIx_Finalize(const pmix_info_t info[], size_t ninfo);

/* 1 if the library is initialised (by PMIx_Init, PMIx_tool_init or PMIx_server_init),
 * else 0. */
PMIX_EXPORT int PMIx_Initialized(void);

/* Ask the host to terminate procs (NULL/0 means the caller's whole namespace) with exit
 * status status; msg (may be NULL) is reported to the user. Returns only if the request
 * could not be made or the caller was not among the targets. */
PMIX_EXPORT pmix_status_t PMIx_Abort(int status, const char msg[],
                                     pmix_proc_t procs[], size_t nprocs);

/* ------------------------------------------------------------------------------------
 * Key-value exchange
 * ------------------------------------------------------------------------------------ */

/* Store a copy of val under key (at most PMIX_MAX_KEYLEN characters) for the audience
 * named by scope. Peers see it after PMIx_Commit and an exchange such as PMIx_Fence. The
 * PMIX_DEL_* scopes remove the key instead; val may then be NULL. val stays the
 * caller's. */
PMIX_EXPORT pmix_status_t PMIx_Put(pmix_scope_t scope, const char key[], pmix_value_t *val);

/* Push every value stored since the last commit to the local server. */
PMIX_EXPORT pmix_status_t PMIx_Commit(void);

/* Barrier across procs (NULL/0 means the caller's namespace), optionally collecting the
 * committed data of all participants (PMIX_COLLECT_DATA in info). */
PMIX_EXPORT pmix_status_t PMIx_Fence(const pmix_proc_t procs[], size_t nprocs,
                                     const pmix_info_t info[], size_t ninfo);

/* Non-blocking PMIx_Fence: cbfunc(status, cbdata) runs when the fence completes; cbfunc
 * may be NULL (fire and forget). The arrays are copied before return. */
PMIX_EXPORT pmix_status_t PMIx_Fence_nb(const pmix_proc_t procs[], size_t nprocs,
                                        const pmix_info_t info[], size_t ninfo,
                                        pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Retrieve the value stored under key by proc (proc NULL: the caller; rank
 * PMIX_RANK_WILDCARD: job-level data of the namespace). A NULL key asks for everything
 * proc stored, as a PMIX_DATA_ARRAY of infos (not allowed with a NULL proc or a wildcard
 * rank: PMIX_ERR_BAD_PARAM). On success *val receives a malloc'd value owned by the
 * caller (PMIX_VALUE_RELEASE). Not found: PMIX_ERR_NOT_FOUND. */
PMIX_EXPORT pmix_status_t PMIx_Get(const pmix_proc_t *proc, const char key[],
                                   const pmix_info_t info[], size_t ninfo,
                                   pmix_value_t **val);

/* Non-blocking PMIx_Get: cbfunc(status, value, cbdata) receives a value that belongs to
 * the library (copy it to keep it). cbfunc must not be NULL (PMIX_ERR_BAD_PARAM). */
PMIX_EXPORT pmix_status_t PMIx_Get_nb(const pmix_proc_t *proc, const char key[],
                                      const pmix_info_t info[], size_t ninfo,
                                      pmix_value_cbfunc_t cbfunc, void *cbdata);

/* ------------------------------------------------------------------------------------
 * Publish / lookup (a name service provided by the host)
 * ------------------------------------------------------------------------------------ */

/* Publish the key-value pairs in info (copied) with the range and persistence given in
 * them. */
PMIX_EXPORT pmix_status_t PMIx_Publish(const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Publish_nb(const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Look up the keys named in data[i].key. Found entries get their publisher and a value
 * (owned by the data array; release with PMIX_PDATA_DESTRUCT/FREE). info may hold
 * PMIX_WAIT and a timeout. */
PMIX_EXPORT pmix_status_t PMIx_Lookup(pmix_pdata_t data[], size_t ndata,
                                      const pmix_info_t info[], size_t ninfo);

/* Non-blocking lookup of the NULL-terminated list keys (copied); cbfunc receives pdata
 * owned by the library. */
PMIX_EXPORT pmix_status_t PMIx_Lookup_nb(char **keys, const pmix_info_t info[], size_t ninfo,
                                         pmix_lookup_cbfunc_t cbfunc, void *cbdata);

/* Remove the caller's publications of the NULL-terminated list keys (NULL: all of
 * them). */
PMIX_EXPORT pmix_status_t PMIx_Unpublish(char **keys,
                                         const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Unpublish_nb(char **keys,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ------------------------------------------------------------------------------------
 * Dynamic processes
 * ------------------------------------------------------------------------------------ */

/* Start a new job of napps applications with job-level options job_info. On success the
 * new namespace is copied into nspace (may be NULL). */
PMIX_EXPORT pmix_status_t PMIx_Spawn(const pmix_info_t job_info[], size_t ninfo,
                                     const pmix_app_t apps[], size_t napps,
                                     pmix_nspace_t nspace);

/* Non-blocking PMIx_Spawn: cbfunc receives the new namespace (valid during the call). */
PMIX_EXPORT pmix_status_t PMIx_Spawn_nb(const pmix_info_t job_info[], size_t ninfo,
                                        const pmix_app_t apps[], size_t napps,
                                        pmix_spawn_cbfunc_t cbfunc, void *cbdata);

/* Collectively connect the processes in procs (the caller must be one of them) so they
 * can exchange data and are treated as one for fault handling. Every participant must
 * pass the same set. */
PMIX_EXPORT pmix_status_t PMIx_Connect(const pmix_proc_t procs[], size_t nprocs,
                                       const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Connect_nb(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo,
                                          pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Collectively undo a PMIx_Connect of the same set. The caller must be a member
 * (PMIX_ERR_NOT_A_MEMBER otherwise). */
PMIX_EXPORT pmix_status_t PMIx_Disconnect(const pmix_proc_t procs[], size_t nprocs,
                                          const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Disconnect_nb(const pmix_proc_t ranges[], size_t nprocs,
                                             const pmix_info_t info[], size_t ninfo,
                                             pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Processes of namespace nspace (NULL or empty: all namespaces) on host nodename (NULL:
 * this node). On success *procs is a malloc'd array owned by the caller
 * (PMIX_PROC_FREE(*procs, *nprocs)); no match gives PMIX_SUCCESS with NULL and 0. */
PMIX_EXPORT pmix_status_t PMIx_Resolve_peers(const char *nodename,
                                             const pmix_nspace_t nspace,
                                             pmix_proc_t **procs, size_t *nprocs);

/* Comma-separated list of the nodes hosting namespace nspace (NULL or empty: all). On
 * success *nodelist is a malloc'd string owned by the caller (free), or NULL if no node
 * matches. */
PMIX_EXPORT pmix_status_t PMIx_Resolve_nodes(const pmix_nspace_t nspace, char **nodelist);

/* ------------------------------------------------------------------------------------
 * Queries, logging, allocation, job control, monitoring
 * ------------------------------------------------------------------------------------ */

/* Ask the library and host for the information named by the queries (read only). On
 * success *results is a malloc'd array owned by the caller
 * (PMIX_INFO_FREE(*results, *nresults)). Partial answers give PMIX_ERR_PARTIAL_SUCCESS. */
PMIX_EXPORT pmix_status_t PMIx_Query_info(pmix_query_t queries[], size_t nqueries,
                                          pmix_info_t **results, size_t *nresults);

/* Non-blocking query: cbfunc receives results under pmix_info_cbfunc_t's release rule. */
PMIX_EXPORT pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries,
                                             pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Send the entries of data to the host's logging channels chosen by directives. */
PMIX_EXPORT pmix_status_t PMIx_Log(const pmix_info_t data[], size_t ndata,
                                   const pmix_info_t directives[], size_t ndirs);
PMIX_EXPORT pmix_status_t PMIx_Log_nb(const pmix_info_t data[], size_t ndata,
                                      const pmix_info_t directives[], size_t ndirs,
                                      pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Ask the scheduler to change the allocation (directive) as described by info. On
 * success *results (may be NULL when nothing is returned) is a malloc'd array owned by
 * the caller. */
PMIX_EXPORT pmix_status_t PMIx_Allocation_request(pmix_alloc_directive_t directive,
                                                  pmix_info_t *info, size_t ninfo,
                                                  pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Allocation_request_nb(pmix_alloc_directive_t directive,
                                                     pmix_info_t *info, size_t ninfo,
                                                     pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Define, extend, shrink or delete the named resource block (block may be NULL for a
 * name chosen by the host) with the nres units of res. */
PMIX_EXPORT pmix_status_t PMIx_Resource_block(pmix_resource_block_directive_t directive,
                                              char *block,
                                              const pmix_resource_unit_t *res, size_t nres,
                                              const pmix_info_t *info, size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Resource_block_nb(pmix_resource_block_directive_t directive,
                                                 char *block,
                                                 const pmix_resource_unit_t *res, size_t nres,
                                                 const pmix_info_t *info, size_t ninfo,
                                                 pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Ask the host to act on session sessionID as directives say (pause, extend, end...).
 * With cbfunc NULL the call blocks and returns the outcome; otherwise it returns at once
 * and cbfunc receives the status and results, and directives must stay valid until
 * then. */
PMIX_EXPORT pmix_status_t PMIx_Session_control(uint32_t sessionID,
                                               const pmix_info_t directives[], size_t ndirs,
                                               pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Ask the host to act on processes (signal, kill, checkpoint...) as directives say;
 * targets NULL/0 means the caller's namespace. *results as for PMIx_Query_info. */
PMIX_EXPORT pmix_status_t PMIx_Job_control(const pmix_proc_t targets[], size_t ntargets,
                                           const pmix_info_t directives[], size_t ndirs,
                                           pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Job_control_nb(const pmix_proc_t targets[], size_t ntargets,
                                              const pmix_info_t directives[], size_t ndirs,
                                              pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Ask for monitoring of what *monitor describes (heartbeats, file activity, resource
 * use); error is the event raised when the condition trips. */
PMIX_EXPORT pmix_status_t PMIx_Process_monitor(const pmix_info_t *monitor, pmix_status_t error,
                                               const pmix_info_t directives[], size_t ndirs,
                                               pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Process_monitor_nb(const pmix_info_t *monitor,
                                                  pmix_status_t error,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Send one heartbeat to a heartbeat monitor set up with PMIx_Process_monitor. */
PMIX_EXPORT void PMIx_Heartbeat(void);

/* ------------------------------------------------------------------------------------
 * Security credentials
 * ------------------------------------------------------------------------------------ */

/* Obtain a credential for this process. On success credential->bytes is malloc'd and
 * owned by the caller (PMIX_BYTE_OBJECT_DESTRUCT); credential must not be NULL. */
PMIX_EXPORT pmix_status_t PMIx_Get_credential(const pmix_info_t info[], size_t ninfo,
                                              pmix_byte_object_t *credential);
PMIX_EXPORT pmix_status_t PMIx_Get_credential_nb(const pmix_info_t info[], size_t ninfo,
                                                 pmix_credential_cbfunc_t cbfunc, void *cbdata);

/* Check credential cred (not kept). *results (may be NULL) as for PMIx_Query_info. */
PMIX_EXPORT pmix_status_t PMIx_Validate_credential(const pmix_byte_object_t *cred,
                                                   const pmix_info_t info[], size_t ninfo,
                                                   pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Validate_credential_nb(const pmix_byte_object_t *cred,
                                                      const pmix_info_t info[], size_t ninfo,
                                                      pmix_validation_cbfunc_t cbfunc,
                                                      void *cbdata);

/* ------------------------------------------------------------------------------------
 * Process groups. grp is a NUL-terminated group name (at most PMIX_MAX_NSLEN
 * characters). *results, where present, is a malloc'd array owned by the caller
 * (PMIX_INFO_FREE); results and nresults may be NULL if the caller wants none.
 * ------------------------------------------------------------------------------------ */

/* Collectively form group grp from procs; every member must call it. */
PMIX_EXPORT pmix_status_t PMIx_Group_construct(const char grp[],
                                               const pmix_proc_t procs[], size_t nprocs,
                                               const pmix_info_t directives[], size_t ndirs,
                                               pmix_info_t **results, size_t *nresults);
PMIX_EXPORT pmix_status_t PMIx_Group_construct_nb(const char grp[],
                                                  const pmix_proc_t procs[], size_t nprocs,
                                                  const pmix_info_t info[], size_t ninfo,
                                                  pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Form group grp by inviting procs; the caller becomes the leader. Invitees answer with
 * PMIx_Group_join. */
PMIX_EXPORT pmix_status_t PMIx_Group_invite(const char grp[],
                                            const pmix_proc_t procs[], size_t nprocs,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_info_t **results, size_t *nresult);
PMIX_EXPORT pmix_status_t PMIx_Group_invite_nb(const char grp[],
                                               const pmix_proc_t procs[], size_t nprocs,
                                               const pmix_info_t info[], size_t ninfo,
                                               pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Accept or decline (opt) the invitation of leader to group grp. */
PMIX_EXPORT pmix_status_t PMIx_Group_join(const char grp[],
                                          const pmix_proc_t *leader,
                                          pmix_group_opt_t opt,
                                          const pmix_info_t info[], size_t ninfo,
                                          pmix_info_t **results, size_t *nresult);
PMIX_EXPORT pmix_status_t PMIx_Group_join_nb(const char grp[],
                                             const pmix_proc_t *leader,
                                             pmix_group_opt_t opt,
                                             const pmix_info_t info[], size_t ninfo,
                                             pmix_info_cbfunc_t cbfunc, void *cbdata);

/* Leave group grp (not collective). */
PMIX_EXPORT pmix_status_t PMIx_Group_leave(const char grp[],
                                           const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Group_leave_nb(const char grp[],
                                              const pmix_info_t info[], size_t ninfo,
                                              pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Collectively dissolve group grp; every member must call it. */
PMIX_EXPORT pmix_status_t PMIx_Group_destruct(const char grp[],
                                              const pmix_info_t info[], size_t ninfo);
PMIX_EXPORT pmix_status_t PMIx_Group_destruct_nb(const char grp[],
                                                 const pmix_info_t info[], size_t ninfo,
                                                 pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ------------------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------------------ */

/* Register evhdlr for the ncodes status codes in codes (NULL/0: every event), with
 * options in info (name, order, range...). The library keeps evhdlr and cbdata, not the
 * arrays. The registration id is reported through cbfunc(status, refid, cbdata); with
 * cbfunc NULL the call blocks and returns the id itself (a non-negative value) or a
 * negative error. */
PMIX_EXPORT pmix_status_t PMIx_Register_event_handler(pmix_status_t codes[], size_t ncodes,
                                                      pmix_info_t info[], size_t ninfo,
                                                      pmix_notification_fn_t evhdlr,
                                                      pmix_hdlr_reg_cbfunc_t cbfunc,
                                                      void *cbdata);

/* Remove the handler with registration id evhdlr_ref; cbfunc may be NULL (then the call
 * blocks). */
PMIX_EXPORT pmix_status_t PMIx_Deregister_event_handler(size_t evhdlr_ref,
                                                        pmix_op_cbfunc_t cbfunc,
                                                        void *cbdata);

/* Raise event status on behalf of source (NULL: the caller) to the processes in range,
 * with payload info (copied). cbfunc (may be NULL) runs once the event has been
 * handed over. */
PMIX_EXPORT pmix_status_t PMIx_Notify_event(pmix_status_t status,
                                            const pmix_proc_t *source,
                                            pmix_data_range_t range,
                                            const pmix_info_t info[], size_t ninfo,
                                            pmix_op_cbfunc_t cbfunc, void *cbdata);

/* ------------------------------------------------------------------------------------
 * Fabric, topology and locality
 * ------------------------------------------------------------------------------------ */

/* Register for information about a fabric: fills fabric's index, info and module (owned
 * by fabric until PMIx_Fabric_deregister). */
PMIX_EXPORT pmix_status_t PMIx_Fabric_register(pmix_fabric_t *fabric,
                                               const pmix_info_t directives[], size_t ndirs);
PMIX_EXPORT pmix_status_t PMIx_Fabric_register_nb(pmix_fabric_t *fabric,
                                                  const pmix_info_t directives[], size_t ndirs,
                                                  pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Refresh the info of a registered fabric (replaces fabric->info). */
PMIX_EXPORT pmix_status_t PMIx_Fabric_update(pmix_fabric_t *fabric);
PMIX_EXPORT pmix_status_t PMIx_Fabric_update_nb(pmix_fabric_t *fabric,
                                                pmix_op_cbfunc_t cbfunc, void *cbdata);

/* End a registration and release what the library stored in fabric. */
PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister(pmix_fabric_t *fabric);
PMIX_EXPORT pmix_status_t PMIx_Fabric_deregister_nb(pmix_fabric_t *fabric,
                                                    pmix_op_cbfunc_t cbfunc, void *cbdata);

/* Distances from cpuset to the devices of topo (either NULL: this process / node). On
 * success *distances is a malloc'd array owned by the caller
 * (PMIX_DEVICE_DIST_FREE(*distances, *ndist)). */
PMIX_EXPORT pmix_status_t PMIx_Compute_distances(pmix_topology_t *topo,
                                                 pmix_cpuset_t *cpuset,
                                                 pmix_info_t info[], size_t ninfo,
                                                 pmix_device_distance_t *distances[],
                                                 size_t *ndist);
PMIX_EXPORT pmix_status_t PMIx_Compute_distances_nb(pmix_topology_t *topo,
                                                    pmix_cpuset_t *cpuset,
                                                    pmix_info_t info[], size_t ninfo,
                                                    pmix_device_dist_cbfunc_t cbfunc,
                                                    void *cbdata);

/* Fill topo with the node's topology (shared with the library; release with
 * PMIX_TOPOLOGY_DESTRUCT). topo->source may name the wanted provider. */
PMIX_EXPORT pmix_status_t PMIx_Load_topology(pmix_topology_t *topo);

/* Parse a cpuset string as produced by PMIx_server_generate_cpuset_string into cpuset
 * (which then owns its bitmap: PMIX_CPUSET_DESTRUCT). */
PMIX_EXPORT pmix_status_t PMIx_Parse_cpuset_string(const char *cpuset_string,
                                                   pmix_cpuset_t *cpuset);

/* The current binding of the process or calling thread (ref), into cpuset as above. */
PMIX_EXPORT pmix_status_t PMIx_Get_cpuset(pmix_cpuset_t *cpuset, pmix_bind_envelope_t ref);

/* Compare two locality strings (PMIX_LOCALITY_STRING values) and store what the two
 * locations share in *locality. */
PMIX_EXPORT pmix_status_t PMIx_Get_relative_locality(const char *locality1,
                                                     const char *locality2,
                                                     pmix_locality_t *locality);

/* Run the library's event loop once (only meaningful without a progress thread). */
PMIX_EXPORT void PMIx_Progress(void);

/* Stop the library's progress thread (info may name which one). After this, blocking
 * calls fail with PMIX_ERR_NOT_AVAILABLE. */
PMIX_EXPORT void PMIx_Progress_thread_stop(const pmix_info_t *info, size_t ninfo);

/* ------------------------------------------------------------------------------------
 * Names of constants. The const char* results are static strings owned by the library
 * (never free them); an unknown value gives a string saying so, never NULL.
 * ------------------------------------------------------------------------------------ */

PMIX_EXPORT const char *PMIx_Error_string(pmix_status_t status);
/* Inverse of PMIx_Error_string: the code for a status name or text (case ignored);
 * INT32_MIN when unknown or NULL. */
PMIX_EXPORT pmix_status_t PMIx_Error_code(const char *errname);
PMIX_EXPORT const char *PMIx_Proc_state_string(pmix_proc_state_t state);
PMIX_EXPORT const char *PMIx_Scope_string(pmix_scope_t scope);
PMIX_EXPORT const char *PMIx_Persistence_string(pmix_persistence_t persist);
PMIX_EXPORT const char *PMIx_Data_range_string(pmix_data_range_t range);
PMIX_EXPORT const char *PMIx_Data_type_string(pmix_data_type_t type);
PMIX_EXPORT const char *PMIx_Alloc_directive_string(pmix_alloc_directive_t directive);
PMIX_EXPORT const char *PMIx_Resource_block_directive_string(pmix_resource_block_directive_t directive);
PMIX_EXPORT const char *PMIx_Alloc_inheritance_string(pmix_alloc_inheritance_t inheritance);
PMIX_EXPORT const char *PMIx_IOF_channel_string(pmix_iof_channel_t channel);
PMIX_EXPORT const char *PMIx_Job_state_string(pmix_job_state_t state);
/* Key string of the attribute whose macro name is attribute ("PMIX_JOB_SIZE" gives
 * "pmix.job.size", case ignored). An unknown name gives attribute itself back, NULL
 * gives NULL; the result is never to be freed. */
PMIX_EXPORT const char *PMIx_Get_attribute_string(const char *attribute);
/* Macro name of the attribute whose key string is attrstring, with the same rules. */
PMIX_EXPORT const char *PMIx_Get_attribute_name(const char *attrstring);
PMIX_EXPORT const char *PMIx_Link_state_string(pmix_link_state_t state);
PMIX_EXPORT const char *PMIx_Device_type_string(pmix_device_type_t type);
PMIX_EXPORT const char *PMIx_Value_comparison_string(pmix_value_cmp_t cmp);
PMIX_EXPORT const char *PMIx_Group_operation_string(pmix_group_operation_t op);

/* Printable descriptions. The char* results are malloc'd and owned by the caller
 * (free); NULL input or no memory gives NULL. */
PMIX_EXPORT char *PMIx_Info_string(const pmix_info_t *info);
PMIX_EXPORT char *PMIx_Value_string(const pmix_value_t *value);
PMIX_EXPORT char *PMIx_Info_directives_string(pmix_info_directives_t directives);
PMIX_EXPORT char *PMIx_App_string(const pmix_app_t *app);
PMIX_EXPORT char *PMIx_Proc_string(const pmix_proc_t *proc);
PMIX_EXPORT char *PMIx_Resource_unit_string(const pmix_resource_unit_t *unit);

/* The library's version: a static string ("OpenPMIx 7.0.0 (...)"), never freed. */
PMIX_EXPORT const char *PMIx_Get_version(void);

/* ------------------------------------------------------------------------------------
 * Local storage, sizes, packing
 * ------------------------------------------------------------------------------------ */

/* Store a copy of val under key for proc in this process's own cache only (nothing is
 * sent anywhere). Later PMIx_Get calls for that proc and key find it. */
PMIX_EXPORT pmix_status_t PMIx_Store_internal(const pmix_proc_t *proc,
                                              const char key[], pmix_value_t *val);

/* Bytes a value / an info occupies including everything it points to (an estimate of
 * memory use, not of the packed size). */
PMIX_EXPORT pmix_status_t PMIx_Value_get_size(const pmix_value_t *val, size_t *size);
PMIX_EXPORT pmix_status_t PMIx_Info_get_size(const pmix_info_t *val, size_t *size);

/* Pack num_vals items of type at src into buffer, in the encoding expected by target
 * (NULL: this library's own). The buffer grows as needed and stays the caller's. */
PMIX_EXPORT pmix_status_t PMIx_Data_pack(const pmix_proc_t *target,
                                         pmix_data_buffer_t *buffer,
                                         void *src, int32_t num_vals,
                                         pmix_data_type_t type);

/* Unpack up to *max_num_values items of type from buffer into dest (storage for that
 * many items, provided by the caller); *max_num_values receives the count unpacked.
 * Pointer items (strings, nested structures) are malloc'd and then owned by the caller.
 * A type that does not match what was packed gives PMIX_ERR_TYPE_MISMATCH; reading
 * past the end gives PMIX_ERR_UNPACK_READ_PAST_END_OF_BUFFER. */
PMIX_EXPORT pmix_status_t PMIx_Data_unpack(const pmix_proc_t *source,
                                           pmix_data_buffer_t *buffer, void *dest,
                                           int32_t *max_num_values,
                                           pmix_data_type_t type);

/* Deep-copy one item of type at src into a new malloc'd item stored in *dest, owned by
 * the caller. */
PMIX_EXPORT pmix_status_t PMIx_Data_copy(void **dest, void *src, pmix_data_type_t type);

/* Printable form of one item of type at src, each line starting with prefix (may be
 * NULL); *output is malloc'd and owned by the caller. */
PMIX_EXPORT pmix_status_t PMIx_Data_print(char **output, char *prefix,
                                          void *src, pmix_data_type_t type);

/* Append the unread part of src to dest (src is unchanged). */
PMIX_EXPORT pmix_status_t PMIx_Data_copy_payload(pmix_data_buffer_t *dest,
                                                 pmix_data_buffer_t *src);

/* Move the unread part of buffer into payload (payload->bytes is then malloc'd and owned
 * by the caller); buffer is left empty. */
PMIX_EXPORT pmix_status_t PMIx_Data_unload(pmix_data_buffer_t *buffer,
                                           pmix_byte_object_t *payload);

/* Move payload's bytes into buffer, which takes ownership; payload is left empty. */
PMIX_EXPORT pmix_status_t PMIx_Data_load(pmix_data_buffer_t *buffer,
                                         pmix_byte_object_t *payload);

/* Copy payload's bytes into buffer (payload stays the caller's). */
PMIX_EXPORT pmix_status_t PMIx_Data_embed(pmix_data_buffer_t *buffer,
                                          const pmix_byte_object_t *payload);

/* Compress size bytes at inbytes. Returns true on success with *outbytes (malloc'd,
 * owned by the caller) and *nbytes; false if compression is unavailable or does not
 * shrink the data. */
PMIX_EXPORT bool PMIx_Data_compress(const uint8_t *inbytes, size_t size,
                                    uint8_t **outbytes, size_t *nbytes);

/* Undo PMIx_Data_compress, with the same ownership rules. */
PMIX_EXPORT bool PMIx_Data_decompress(const uint8_t *inbytes, size_t size,
                                      uint8_t **outbytes, size_t *nbytes);

/* The helper functions (PMIx_Info_create, PMIx_Argv_*, PMIx_Load_key...) and their
 * macro forms are declared in pmix_common.h. */

#if defined(c_plusplus) || defined(__cplusplus)
}
#endif

#endif /* PMIx_H */
