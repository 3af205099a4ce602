//! `#[repr(C)]` mirrors of OpenPMIx's public structs, with their layouts pinned by
//! compile-time assertions (x86-64 / LP64). Field names are OpenPMIx's.

use core::ffi::{c_char, c_int, c_uint, c_void};

pub type pmix_status_t = c_int;
pub type pmix_rank_t = u32;
pub type pmix_data_type_t = u16;
pub type pmix_scope_t = u8;
pub type pmix_data_range_t = u8;
pub type pmix_persistence_t = u8;
pub type pmix_info_directives_t = u32;
pub type pmix_proc_state_t = u8;
pub type pmix_job_state_t = u8;
pub type pmix_alloc_directive_t = u8;
pub type pmix_resource_block_directive_t = u8;
pub type pmix_alloc_inheritance_t = u8;
pub type pmix_iof_channel_t = u16;
pub type pmix_link_state_t = u8;
pub type pmix_coord_view_t = u8;
pub type pmix_locality_t = u16;
pub type pmix_device_type_t = u64;
pub type pmix_bind_envelope_t = u8;
/// C enums (`pmix_boolean_t`, `pmix_value_cmp_t`, `pmix_group_opt_t`,
/// `pmix_group_operation_t`, `pmix_fabric_operation_t`) are `int`-sized.
pub type pmix_value_cmp_t = c_int;
pub type pmix_boolean_t = c_int;
pub type pmix_group_opt_t = c_int;
pub type pmix_group_operation_t = c_int;
pub type pmix_fabric_operation_t = c_int;

pub const PMIX_MAX_NSLEN: usize = 255;
pub const PMIX_MAX_KEYLEN: usize = 511;

pub type pmix_nspace_t = [c_char; PMIX_MAX_NSLEN + 1];
pub type pmix_key_t = [c_char; PMIX_MAX_KEYLEN + 1];

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_proc_t {
    pub nspace: pmix_nspace_t,
    pub rank: pmix_rank_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_byte_object_t {
    pub bytes: *mut c_char,
    pub size: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_data_array_t {
    pub type_: pmix_data_type_t,
    pub size: usize,
    pub array: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_envar_t {
    pub envar: *mut c_char,
    pub value: *mut c_char,
    pub separator: c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_coord_t {
    pub view: pmix_coord_view_t,
    pub coord: *mut u32,
    pub dims: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_proc_info_t {
    pub proc_: pmix_proc_t,
    pub hostname: *mut c_char,
    pub executable_name: *mut c_char,
    pub pid: libc::pid_t,
    pub exit_code: c_int,
    pub state: pmix_proc_state_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_topology_t {
    pub source: *mut c_char,
    pub topology: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_cpuset_t {
    pub source: *mut c_char,
    pub bitmap: *mut c_void,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_geometry_t {
    pub fabric: usize,
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub coordinates: *mut pmix_coord_t,
    pub ncoords: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_device_t {
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub type_: pmix_device_type_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_device_distance_t {
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub type_: pmix_device_type_t,
    pub mindist: u16,
    pub maxdist: u16,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_endpoint_t {
    pub uuid: *mut c_char,
    pub osname: *mut c_char,
    pub endpt: pmix_byte_object_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_data_buffer_t {
    pub base_ptr: *mut c_char,
    pub pack_ptr: *mut c_char,
    pub unpack_ptr: *mut c_char,
    pub bytes_allocated: usize,
    pub bytes_used: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_resource_unit_t {
    pub type_: pmix_device_type_t,
    pub count: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_node_pid_t {
    pub hostname: *mut c_char,
    pub nodeid: u32,
    pub pid: libc::pid_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_regex2_t {
    pub type_: *mut c_char,
    pub bytes: *mut u8,
    pub len: usize,
}

/// The payload of a `pmix_value_t`: 24 bytes, 8-aligned (the inline `pmix_envar_t`
/// sets the size).
#[repr(C)]
#[derive(Clone, Copy)]
pub union pmix_value_data {
    pub flag: bool,
    pub byte: u8,
    pub string: *mut c_char,
    pub size: usize,
    pub pid: libc::pid_t,
    pub integer: c_int,
    pub int8: i8,
    pub int16: i16,
    pub int32: i32,
    pub int64: i64,
    pub uint: c_uint,
    pub uint8: u8,
    pub uint16: u16,
    pub uint32: u32,
    pub uint64: u64,
    pub fval: f32,
    pub dval: f64,
    pub tv: libc::timeval,
    pub time: libc::time_t,
    pub status: pmix_status_t,
    pub rank: pmix_rank_t,
    pub nspace: *mut pmix_nspace_t,
    pub proc_: *mut pmix_proc_t,
    pub bo: pmix_byte_object_t,
    pub persist: pmix_persistence_t,
    pub scope: pmix_scope_t,
    pub range: pmix_data_range_t,
    pub state: pmix_proc_state_t,
    pub pinfo: *mut pmix_proc_info_t,
    pub darray: *mut pmix_data_array_t,
    pub ptr: *mut c_void,
    pub adir: pmix_alloc_directive_t,
    pub rbdir: pmix_resource_block_directive_t,
    pub inheritance: pmix_alloc_inheritance_t,
    pub envar: pmix_envar_t,
    pub coord: *mut pmix_coord_t,
    pub linkstate: pmix_link_state_t,
    pub jstate: pmix_job_state_t,
    pub topo: *mut pmix_topology_t,
    pub cpuset: *mut pmix_cpuset_t,
    pub locality: pmix_locality_t,
    pub geometry: *mut pmix_geometry_t,
    pub devtype: pmix_device_type_t,
    pub device: *mut pmix_device_t,
    pub devdist: *mut pmix_device_distance_t,
    pub endpoint: *mut pmix_endpoint_t,
    pub dbuf: *mut pmix_data_buffer_t,
    pub resunit: *mut pmix_resource_unit_t,
    pub nodepid: *mut pmix_node_pid_t,
    pub regex2: *mut pmix_regex2_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_value_t {
    pub type_: pmix_data_type_t,
    pub data: pmix_value_data,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_info_t {
    pub key: pmix_key_t,
    pub flags: pmix_info_directives_t,
    pub value: pmix_value_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_pdata_t {
    pub proc_: pmix_proc_t,
    pub key: pmix_key_t,
    pub value: pmix_value_t,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_app_t {
    pub cmd: *mut c_char,
    pub argv: *mut *mut c_char,
    pub env: *mut *mut c_char,
    pub cwd: *mut c_char,
    pub maxprocs: c_int,
    pub info: *mut pmix_info_t,
    pub ninfo: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_query_t {
    pub keys: *mut *mut c_char,
    pub qualifiers: *mut pmix_info_t,
    pub nqual: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_regattr_t {
    pub name: *mut c_char,
    pub string: pmix_key_t,
    pub type_: pmix_data_type_t,
    pub description: *mut *mut c_char,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct pmix_fabric_t {
    pub name: *mut c_char,
    pub index: usize,
    pub info: *mut pmix_info_t,
    pub ninfo: usize,
    pub module: *mut c_void,
}

/// Sizes and offsets measured against OpenPMIx 4.2.2's headers on x86-64.
const _: () = {
    use core::mem::{align_of, offset_of, size_of};
    assert!(size_of::<pmix_proc_t>() == 260 && align_of::<pmix_proc_t>() == 4);
    assert!(offset_of!(pmix_proc_t, rank) == 256);
    assert!(size_of::<pmix_byte_object_t>() == 16);
    assert!(size_of::<pmix_data_array_t>() == 24 && offset_of!(pmix_data_array_t, array) == 16);
    assert!(size_of::<pmix_value_data>() == 24);
    assert!(size_of::<pmix_value_t>() == 32 && offset_of!(pmix_value_t, data) == 8);
    assert!(size_of::<pmix_info_t>() == 552);
    assert!(offset_of!(pmix_info_t, flags) == 512 && offset_of!(pmix_info_t, value) == 520);
    assert!(size_of::<pmix_pdata_t>() == 808);
    assert!(offset_of!(pmix_pdata_t, key) == 260 && offset_of!(pmix_pdata_t, value) == 776);
    assert!(size_of::<pmix_app_t>() == 56 && offset_of!(pmix_app_t, ninfo) == 48);
    assert!(size_of::<pmix_query_t>() == 24);
    assert!(size_of::<pmix_envar_t>() == 24);
    assert!(size_of::<pmix_coord_t>() == 24);
    assert!(size_of::<pmix_proc_info_t>() == 296 && offset_of!(pmix_proc_info_t, state) == 288);
    assert!(size_of::<pmix_regattr_t>() == 536 && offset_of!(pmix_regattr_t, description) == 528);
    assert!(size_of::<pmix_topology_t>() == 16 && size_of::<pmix_cpuset_t>() == 16);
    assert!(size_of::<pmix_geometry_t>() == 40);
    assert!(size_of::<pmix_device_distance_t>() == 32);
    assert!(offset_of!(pmix_device_distance_t, maxdist) == 26);
    assert!(size_of::<pmix_endpoint_t>() == 32);
    assert!(size_of::<pmix_data_buffer_t>() == 40);
    assert!(size_of::<pmix_fabric_t>() == 40);
    assert!(size_of::<pmix_device_t>() == 24);
    assert!(size_of::<pmix_node_pid_t>() == 16 && offset_of!(pmix_node_pid_t, pid) == 12);
    assert!(size_of::<pmix_regex2_t>() == 24);
    assert!(size_of::<pmix_resource_unit_t>() == 16);
};
