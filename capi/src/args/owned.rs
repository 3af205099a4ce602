//! Handles on the structs an export is handed to rebuild or release ([`Owned`],
//! [`Block`]), and the type-to-`pmix_data_type_t` table ([`PmixType`]) that lets the
//! generic lifecycle exports do so safely. Each handle is made by one `unsafe fn` whose
//! `# Safety` section is the export's C contract; its methods are safe, each calling the
//! `conv` release once with a SAFETY comment naming the handle's invariant.

use crate::conv::{self, alloc};
use core::marker::PhantomData;
use core::ptr::NonNull;
use pmix_core::DataType;
use pmix_sys::*;

/// A `#[repr(C)]` struct of `pmix-sys` and the PMIx data type that describes it.
///
/// # Safety
/// `DT` is the data type whose C layout is `Self` (so `conv::elem_size(DT)` is
/// `size_of::<Self>()` and the `conv::elem_*` functions treat a `*mut Self` as one
/// element of `DT`), and all-zero bytes are a valid `Self`.
pub unsafe trait PmixType {
    /// The PMIx data type of `Self`.
    const DT: DataType;
}

macro_rules! pmix_types {
    ($($t:ty = $dt:ident;)*) => {$(
        // SAFETY: `$dt` is the data type of the C struct `$t` (pmix-sys mirrors
        // OpenPMIx's layouts; conv::elem_size maps `$dt` to `size_of::<$t>()`), and
        // `$t` holds only integers, arrays and raw pointers, for which zero is valid.
        unsafe impl PmixType for $t {
            const DT: DataType = $dt;
        }
    )*};
}

pmix_types! {
    pmix_value_t = PMIX_VALUE;
    pmix_info_t = PMIX_INFO;
    pmix_proc_t = PMIX_PROC;
    pmix_coord_t = PMIX_COORD;
    pmix_geometry_t = PMIX_GEOMETRY;
    pmix_device_t = PMIX_DEVICE;
    pmix_device_distance_t = PMIX_DEVICE_DIST;
    pmix_node_pid_t = PMIX_NODE_PID;
    pmix_regex2_t = PMIX_REGEX2;
    pmix_resource_unit_t = PMIX_RESOURCE_UNIT;
    pmix_byte_object_t = PMIX_BYTE_OBJECT;
    pmix_endpoint_t = PMIX_ENDPOINT;
    pmix_envar_t = PMIX_ENVAR;
    pmix_proc_info_t = PMIX_PROC_INFO;
    pmix_pdata_t = PMIX_PDATA;
    pmix_regattr_t = PMIX_REGATTR;
    pmix_app_t = PMIX_APP;
    pmix_query_t = PMIX_QUERY;
    pmix_topology_t = PMIX_TOPO;
    pmix_cpuset_t = PMIX_PROC_CPUSET;
}

/// Put `*t` into its constructed state (zeroed plus OpenPMIx's non-zero defaults, see
/// `conv::elem_construct`); its old content is overwritten, not released.
pub fn construct<T: PmixType>(t: &mut T) {
    // SAFETY: `t` is writable and aligned for one `T`, and `T::DT` is `T`'s data type
    // (the `PmixType` contract), which is all `elem_construct` needs.
    unsafe { conv::elem_construct(t as *mut T as *mut u8, T::DT) }
}

/// `n` initialised structs at `p` that own what the PMIx API says they own (their
/// strings, arrays and values, from libc malloc or this library) and that the library
/// may release in place. Nobody else uses them while the handle lives.
pub struct Owned<'a, T> {
    p: NonNull<T>,
    n: usize,
    _borrow: PhantomData<&'a mut T>,
}

/// As [`Owned`], and the block itself came from libc malloc (`PMIx_*_create` or the
/// `PMIX_*_CREATE` macros): releasing it frees the block too. Nothing uses the structs
/// or the block after the release.
pub struct Block<'a, T>(Owned<'a, T>);

/// An [`Owned`] handle on the `n` structs at `p`; `None` for NULL.
///
/// # Safety
/// `p` is NULL or points to `n` initialised, consecutive `T`s that own their contents
/// as [`Owned`] says, used by nobody else for `'a`.
pub unsafe fn owned_arg<'a, T>(p: *mut T, n: usize) -> Option<Owned<'a, T>> {
    if n == 0 {
        return None;
    }
    NonNull::new(p).map(|p| Owned {
        p,
        n,
        _borrow: PhantomData,
    })
}

/// A [`Block`] handle on the `n` structs at `p`; `None` for NULL.
///
/// # Safety
/// As [`owned_arg`], and the block is from libc malloc and unused after the release.
/// (`n == 0` with a non-NULL `p` is a block to free that holds no element.)
pub unsafe fn block_arg<'a, T>(p: *mut T, n: usize) -> Option<Block<'a, T>> {
    NonNull::new(p).map(|p| {
        Block(Owned {
            p,
            n,
            _borrow: PhantomData,
        })
    })
}

impl<T> Owned<'_, T> {
    fn raw(&self) -> *mut T {
        self.p.as_ptr()
    }

    /// The first (for one-struct handles: the) struct, borrowed mutably.
    pub fn get(&mut self) -> &mut T {
        // SAFETY: an `Owned` holds `n >= 1` initialised, unaliased `T`s (owned_arg
        // refuses `n == 0`).
        unsafe { self.p.as_mut() }
    }
}

impl<T: PmixType> Owned<'_, T> {
    /// Release what each struct owns and leave it constructed (`PMIx_<T>_destruct`).
    pub fn destruct_elems(&mut self) {
        let esz = core::mem::size_of::<T>();
        for i in 0..self.n {
            // SAFETY: element `i` of `n` initialised, owning `T`s (the handle's
            // invariant); `T::DT` is its data type (`PmixType`).
            unsafe {
                let e = (self.raw() as *mut u8).add(i * esz);
                conv::elem_destruct(e, T::DT);
                conv::elem_construct(e, T::DT);
            }
        }
    }
}

impl<T: PmixType> Block<'_, T> {
    /// Release every struct and free the block (`PMIx_<T>_free`).
    pub fn free_elems(self) {
        // SAFETY: a malloc'd block of `n` initialised `T`s owning their contents (the
        // handle's invariant), `T::DT` their data type: elem_array_free's contract.
        unsafe { conv::elem_array_free(self.0.raw() as *mut u8, self.0.n, T::DT) }
    }
}

impl Owned<'_, pmix_info_t> {
    /// Release the info's value unless it is persistent (`PMIx_Info_destruct`).
    pub fn destruct(self) {
        // SAFETY: an initialised info owning its value unless persistent (the handle's
        // invariant): info_destruct's contract.
        unsafe { conv::info_destruct(self.raw()) }
    }
}

impl Block<'_, pmix_info_t> {
    /// Release the infos' values (persistent ones kept) and free the block.
    pub fn free(self) {
        // SAFETY: a malloc'd array of `n` initialised infos (the handle's invariant):
        // info_array_free's contract.
        unsafe { conv::info_array_free(self.0.raw(), self.0.n) }
    }
}

impl Owned<'_, pmix_value_t> {
    /// Release what the value owns and leave it `PMIX_UNDEF` (`PMIx_Value_destruct`).
    pub fn destruct(self) {
        // SAFETY: an initialised value owning its malloc'd data (the handle's
        // invariant): value_destruct's contract.
        unsafe { conv::value_destruct(self.raw()) }
    }
}

impl Owned<'_, pmix_data_array_t> {
    /// Release the elements and their block, leaving the array empty.
    pub fn destruct(&mut self) {
        // SAFETY: an initialised data array owning its malloc'd block (the handle's
        // invariant): darray_destruct's contract.
        unsafe { conv::darray_destruct(self.raw()) }
    }
}

impl Block<'_, pmix_data_array_t> {
    /// Release the elements and free the array struct itself (`PMIx_Data_array_free`).
    pub fn free(mut self) {
        self.0.destruct();
        // SAFETY: the struct's block came from malloc and is unused afterwards (the
        // handle's invariant).
        unsafe { alloc::free(self.0.raw()) }
    }
}

impl Owned<'_, pmix_regattr_t> {
    /// Append `d` to the attribute's description lines.
    ///
    /// # Errors
    /// `PMIX_ERR_NOMEM`.
    pub fn append_description(&mut self, d: &[u8]) -> pmix_core::Result<()> {
        // SAFETY: the description is NULL or a malloc'd NULL-terminated argv of malloc'd
        // strings (the handle's invariant): argv_append's contract.
        unsafe { conv::argv_append(&mut self.p.as_mut().description, d) }
    }
}

impl Owned<'_, pmix_data_buffer_t> {
    /// Free the payload and reset the buffer (`PMIx_Data_buffer_destruct`).
    pub fn destruct(&mut self) {
        // SAFETY: the buffer's payload is NULL or malloc'd and owned by it (the handle's
        // invariant): dbuf_destruct's contract.
        unsafe { conv::dbuf_destruct(self.p.as_mut()) }
    }
}

impl Owned<'_, pmix_data_buffer_t> {
    /// The unread bytes `[unpack_ptr, base_ptr + bytes_used)`, borrowed.
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` when the buffer's pointers are inconsistent.
    pub fn unread(&self) -> pmix_core::Result<&[u8]> {
        // SAFETY: an initialised buffer, not written meanwhile (the handle's invariant).
        let b = unsafe { self.p.as_ref() };
        let (off, used) = conv::dbuf_unread_range(b)?;
        if off == used {
            return Ok(&[]);
        }
        // SAFETY: the payload holds `bytes_used` readable bytes (the handle's
        // invariant) and `off < used <= bytes_used` was checked above.
        Ok(unsafe { core::slice::from_raw_parts((b.base_ptr as *const u8).add(off), used - off) })
    }
}

impl Block<'_, pmix_data_buffer_t> {
    /// Free the payload and the buffer struct (`PMIx_Data_buffer_release`).
    pub fn free(mut self) {
        self.0.destruct();
        // SAFETY: the struct came from malloc and is unused afterwards (the invariant).
        unsafe { alloc::free(self.0.raw()) }
    }
}

/// Write `v` into `*out` (a deep copy, every buffer from libc malloc); the old content
/// is overwritten, not released. On error `*out` is a `PMIX_UNDEF` value owning nothing.
///
/// # Errors
/// As `conv::value_to_c`.
pub fn value_into(v: &pmix_core::Value, out: &mut pmix_value_t) -> pmix_core::Result<()> {
    // SAFETY: `out` is writable for one value, which is value_to_c's whole contract.
    unsafe { conv::value_to_c(v, out) }
}

/// One datum of PMIx data type `t`, as `PMIx_Value_load`, `PMIx_Info_load` and
/// `PMIx_Data_pack` take it (a `char *` for `PMIX_STRING`, the struct's address
/// otherwise; NULL for "no data").
#[derive(Clone, Copy)]
pub struct Datum<'a> {
    p: *const core::ffi::c_void,
    t: pmix_data_type_t,
    _borrow: PhantomData<&'a ()>,
}

/// A [`Datum`] handle on `p` of type `t`.
///
/// # Safety
/// `p` is NULL or points to an initialised datum of type `t` (the buffers it points to
/// readable), not written while the handle lives.
pub unsafe fn datum_ptr_arg<'a>(p: *const core::ffi::c_void, t: pmix_data_type_t) -> Datum<'a> {
    Datum {
        p,
        t,
        _borrow: PhantomData,
    }
}

impl Datum<'_> {
    /// Load a copy of the datum into `*val` (`PMIx_Value_load`'s rules); the old content
    /// of `*val` is overwritten, not released.
    pub fn load_into(self, val: &mut pmix_value_t) -> pmix_status_t {
        // SAFETY: `val` is writable; `p` is NULL or a datum of type `t` (the handle's
        // invariant): what `value::load` requires.
        unsafe { crate::helpers::value::load(val, self.p, self.t) }
    }
}

/// An all-zero `T`: the constructed state of the PMIx structs (bar the few whose
/// `construct` sets non-zero defaults, see [`construct`]).
pub fn zeroed<T: PmixType>() -> T {
    // SAFETY: all-zero bytes are a valid `T` (the `PmixType` contract).
    unsafe { core::mem::zeroed() }
}

impl<T> Block<'_, T> {
    /// Free the block without looking at its elements (for structs that own nothing,
    /// whose count the caller may not know exactly).
    pub fn free_block(self) {
        // SAFETY: the block came from libc malloc and is unused afterwards (the
        // handle's invariant).
        unsafe { alloc::free(self.0.raw()) }
    }
}

/// A malloc'd copy of `v` (released with libc `free`, after whatever `v` owns).
///
/// # Errors
/// `PMIX_ERR_NOMEM`.
pub fn malloc_one<T>(v: T) -> pmix_core::Result<*mut T> {
    let p = alloc::calloc_array::<T>(1)?;
    // SAFETY: `p` is a fresh, aligned allocation for one `T`.
    unsafe { p.write(v) };
    Ok(p)
}

/// Write `v` to the possibly unaligned `p` (a datum slot the C caller names by type).
///
/// # Safety
/// `p` is writable for `size_of::<T>()` bytes.
pub unsafe fn set_unaligned_arg<T>(p: *mut T, v: T) {
    // SAFETY: writable (caller's promise); no alignment needed.
    unsafe { p.write_unaligned(v) }
}

/// A NULL-terminated `char **` of NUL-terminated strings, read during the call.
#[derive(Clone, Copy)]
pub struct Argv<'a> {
    p: *const *mut core::ffi::c_char,
    _borrow: PhantomData<&'a ()>,
}

/// An [`Argv`] handle on `p` (NULL allowed: no vector).
///
/// # Safety
/// `p` is NULL or a NULL-terminated array of pointers to NUL-terminated strings, none of
/// it written while the handle lives.
pub unsafe fn argv_arg<'a>(p: *const *mut core::ffi::c_char) -> Argv<'a> {
    Argv {
        p,
        _borrow: PhantomData,
    }
}

impl Argv<'_> {
    /// The number of entries (0 for NULL).
    pub fn count(self) -> usize {
        // SAFETY: NULL or NULL-terminated (the handle's invariant).
        unsafe { conv::argv_count(self.p) }
    }

    /// The entries as owned byte strings (`None` for NULL).
    pub fn to_vec(self) -> Option<Vec<Vec<u8>>> {
        // SAFETY: NULL or a NULL-terminated array of C strings (the handle's invariant).
        unsafe { conv::argv_from_c(self.p) }
    }
}

/// The `char ***` slot of a malloc'd `char **` that the library may grow or free: NULL
/// or a NULL-terminated malloc'd array of malloc'd strings.
pub struct ArgvSlot<'a> {
    slot: &'a mut *mut *mut core::ffi::c_char,
}

/// An [`ArgvSlot`] handle on `*p`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` (logged) for a NULL `p`.
///
/// # Safety
/// `p` is NULL or a writable slot holding NULL or a NULL-terminated malloc'd array of
/// malloc'd strings, used by nobody else while the handle lives.
pub unsafe fn argv_slot_arg<'a>(
    p: *mut *mut *mut core::ffi::c_char,
    what: &str,
) -> Result<ArgvSlot<'a>, super::Status> {
    // SAFETY: this function's contract includes mut_arg's.
    unsafe { super::mut_arg(p, what) }.map(|slot| ArgvSlot { slot })
}

impl ArgvSlot<'_> {
    /// The vector, read-only.
    pub fn argv(&self) -> Argv<'_> {
        Argv {
            p: *self.slot,
            _borrow: PhantomData,
        }
    }

    /// Append a copy of `arg` (creating the vector when the slot is NULL).
    ///
    /// # Errors
    /// As `conv::argv_append`.
    pub fn append(&mut self, arg: &[u8]) -> pmix_core::Result<()> {
        // SAFETY: the slot holds NULL or a malloc'd argv (the handle's invariant).
        unsafe { conv::argv_append(self.slot, arg) }
    }

    /// Insert a copy of `arg` at the front.
    ///
    /// # Errors
    /// As `conv::argv_prepend`.
    pub fn prepend(&mut self, arg: &[u8]) -> pmix_core::Result<()> {
        // SAFETY: as in `append`.
        unsafe { conv::argv_prepend(self.slot, arg) }
    }
}

/// Free a NULL-terminated malloc'd `char **` and its strings (`PMIx_Argv_free`).
///
/// # Safety
/// `p` is NULL or a NULL-terminated malloc'd array of malloc'd strings, none of it used
/// after the call.
pub unsafe fn argv_free_arg(p: *mut *mut core::ffi::c_char) {
    // SAFETY: this function's contract is argv_free's.
    unsafe { conv::argv_free(p) }
}
