//! Callback typedefs and the host's `pmix_server_module_t` (OpenPMIx master: 32 slots,
//! of which the first 28 sit exactly where OpenPMIx 4.2.2 has them).

use crate::types::*;
use core::ffi::{c_char, c_int, c_void};

pub type pmix_release_cbfunc_t = Option<unsafe extern "C" fn(cbdata: *mut c_void)>;
pub type pmix_op_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, cbdata: *mut c_void)>;
pub type pmix_modex_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        data: *const c_char,
        ndata: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;
pub type pmix_spawn_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, nspace: *mut c_char, cbdata: *mut c_void)>;
pub type pmix_lookup_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        data: *mut pmix_pdata_t,
        ndata: usize,
        cbdata: *mut c_void,
    ),
>;
pub type pmix_event_notification_cbfunc_fn_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        results: *mut pmix_info_t,
        nresults: usize,
        cbfunc: pmix_op_cbfunc_t,
        thiscbdata: *mut c_void,
        notification_cbdata: *mut c_void,
    ),
>;
pub type pmix_notification_fn_t = Option<
    unsafe extern "C" fn(
        evhdlr_registration_id: usize,
        status: pmix_status_t,
        source: *const pmix_proc_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        results: *mut pmix_info_t,
        nresults: usize,
        cbfunc: pmix_event_notification_cbfunc_fn_t,
        cbdata: *mut c_void,
    ),
>;
pub type pmix_hdlr_reg_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, refid: usize, cbdata: *mut c_void)>;
pub type pmix_value_cbfunc_t =
    Option<unsafe extern "C" fn(status: pmix_status_t, kv: *mut pmix_value_t, cbdata: *mut c_void)>;
pub type pmix_info_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;
pub type pmix_credential_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        credential: *mut pmix_byte_object_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
    ),
>;
pub type pmix_validation_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        cbdata: *mut c_void,
    ),
>;
pub type pmix_device_dist_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        dist: *mut pmix_device_distance_t,
        ndist: usize,
        cbdata: *mut c_void,
        release_fn: pmix_release_cbfunc_t,
        release_cbdata: *mut c_void,
    ),
>;
pub type pmix_iof_cbfunc_t = Option<
    unsafe extern "C" fn(
        iofhdlr: usize,
        channel: pmix_iof_channel_t,
        source: *mut pmix_proc_t,
        payload: *mut pmix_byte_object_t,
        info: *mut pmix_info_t,
        ninfo: usize,
    ),
>;
pub type pmix_connection_cbfunc_t =
    Option<unsafe extern "C" fn(incoming_sd: c_int, cbdata: *mut c_void)>;
pub type pmix_tool_connection_cbfunc_t = Option<
    unsafe extern "C" fn(status: pmix_status_t, proc_: *mut pmix_proc_t, cbdata: *mut c_void),
>;
pub type pmix_dmodex_response_fn_t = Option<
    unsafe extern "C" fn(status: pmix_status_t, data: *mut c_char, sz: usize, cbdata: *mut c_void),
>;
pub type pmix_setup_application_cbfunc_t = Option<
    unsafe extern "C" fn(
        status: pmix_status_t,
        info: *mut pmix_info_t,
        ninfo: usize,
        provided_cbdata: *mut c_void,
        cbfunc: pmix_op_cbfunc_t,
        cbdata: *mut c_void,
    ),
>;

type Obj = *mut c_void;
type P = *const pmix_proc_t;
type I = *const pmix_info_t;

/// The host's upcall table. A host built against OpenPMIx 4.2.2 provides only the first
/// 28 slots (224 bytes); see `PMIx_server_init` for how the 4 newer slots are detected.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_server_module_t {
    pub client_connected:
        Option<unsafe extern "C" fn(P, Obj, pmix_op_cbfunc_t, *mut c_void) -> pmix_status_t>,
    pub client_finalized:
        Option<unsafe extern "C" fn(P, Obj, pmix_op_cbfunc_t, *mut c_void) -> pmix_status_t>,
    pub abort: Option<
        unsafe extern "C" fn(
            P,
            Obj,
            c_int,
            *const c_char,
            *mut pmix_proc_t,
            usize,
            pmix_op_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub fence_nb: Option<
        unsafe extern "C" fn(
            P,
            usize,
            I,
            usize,
            *mut c_char,
            usize,
            pmix_modex_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub direct_modex: Option<
        unsafe extern "C" fn(P, I, usize, pmix_modex_cbfunc_t, *mut c_void) -> pmix_status_t,
    >,
    pub publish:
        Option<unsafe extern "C" fn(P, I, usize, pmix_op_cbfunc_t, *mut c_void) -> pmix_status_t>,
    pub lookup: Option<
        unsafe extern "C" fn(
            P,
            *mut *mut c_char,
            I,
            usize,
            pmix_lookup_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub unpublish: Option<
        unsafe extern "C" fn(
            P,
            *mut *mut c_char,
            I,
            usize,
            pmix_op_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub spawn: Option<
        unsafe extern "C" fn(
            P,
            I,
            usize,
            *const pmix_app_t,
            usize,
            pmix_spawn_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub connect: Option<
        unsafe extern "C" fn(P, usize, I, usize, pmix_op_cbfunc_t, *mut c_void) -> pmix_status_t,
    >,
    pub disconnect: Option<
        unsafe extern "C" fn(P, usize, I, usize, pmix_op_cbfunc_t, *mut c_void) -> pmix_status_t,
    >,
    pub register_events: Option<
        unsafe extern "C" fn(
            *mut pmix_status_t,
            usize,
            I,
            usize,
            pmix_op_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub deregister_events: Option<
        unsafe extern "C" fn(
            *mut pmix_status_t,
            usize,
            pmix_op_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub listener:
        Option<unsafe extern "C" fn(c_int, pmix_connection_cbfunc_t, *mut c_void) -> pmix_status_t>,
    pub notify_event: Option<
        unsafe extern "C" fn(
            pmix_status_t,
            P,
            pmix_data_range_t,
            *mut pmix_info_t,
            usize,
            pmix_op_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub query: Option<
        unsafe extern "C" fn(
            *mut pmix_proc_t,
            *mut pmix_query_t,
            usize,
            pmix_info_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub tool_connected: Option<
        unsafe extern "C" fn(*mut pmix_info_t, usize, pmix_tool_connection_cbfunc_t, *mut c_void),
    >,
    pub log: Option<unsafe extern "C" fn(P, I, usize, I, usize, pmix_op_cbfunc_t, *mut c_void)>,
    pub allocate: Option<
        unsafe extern "C" fn(
            P,
            pmix_alloc_directive_t,
            I,
            usize,
            pmix_info_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub job_control: Option<
        unsafe extern "C" fn(
            P,
            P,
            usize,
            I,
            usize,
            pmix_info_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub monitor: Option<
        unsafe extern "C" fn(
            P,
            I,
            pmix_status_t,
            I,
            usize,
            pmix_info_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub get_credential: Option<
        unsafe extern "C" fn(P, I, usize, pmix_credential_cbfunc_t, *mut c_void) -> pmix_status_t,
    >,
    pub validate_credential: Option<
        unsafe extern "C" fn(
            P,
            *const pmix_byte_object_t,
            I,
            usize,
            pmix_validation_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub iof_pull: Option<
        unsafe extern "C" fn(
            P,
            usize,
            I,
            usize,
            pmix_iof_channel_t,
            pmix_op_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub push_stdin: Option<
        unsafe extern "C" fn(
            P,
            P,
            usize,
            I,
            usize,
            *const pmix_byte_object_t,
            pmix_op_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub group: Option<
        unsafe extern "C" fn(
            pmix_group_operation_t,
            *mut c_char,
            P,
            usize,
            I,
            usize,
            pmix_info_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub fabric: Option<
        unsafe extern "C" fn(
            P,
            pmix_fabric_operation_t,
            I,
            usize,
            pmix_info_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub client_connected2: Option<
        unsafe extern "C" fn(
            P,
            Obj,
            *mut pmix_info_t,
            usize,
            pmix_op_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    // ---- slots 29-32: OpenPMIx master only ----
    pub tool_connected2: Option<
        unsafe extern "C" fn(
            *mut pmix_info_t,
            usize,
            pmix_tool_connection_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
    pub log2: Option<
        unsafe extern "C" fn(P, I, usize, I, usize, pmix_op_cbfunc_t, *mut c_void) -> pmix_status_t,
    >,
    pub session_control: Option<
        unsafe extern "C" fn(P, u32, I, usize, pmix_info_cbfunc_t, *mut c_void) -> pmix_status_t,
    >,
    pub resource_block: Option<
        unsafe extern "C" fn(
            P,
            pmix_resource_block_directive_t,
            *const c_char,
            *const pmix_resource_unit_t,
            usize,
            I,
            usize,
            pmix_op_cbfunc_t,
            *mut c_void,
        ) -> pmix_status_t,
    >,
}

/// Number of slots in OpenPMIx 4.2.2's module (224 bytes).
pub const PMIX_SERVER_MODULE_SLOTS_V4: usize = 28;
/// Number of slots in OpenPMIx master's module (256 bytes).
pub const PMIX_SERVER_MODULE_SLOTS: usize = 32;

const _: () = {
    use core::mem::{offset_of, size_of};
    assert!(size_of::<pmix_server_module_t>() == 256);
    assert!(offset_of!(pmix_server_module_t, client_connected2) == 216);
    assert!(offset_of!(pmix_server_module_t, resource_block) == 248);
};
