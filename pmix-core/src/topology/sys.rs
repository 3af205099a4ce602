//! The FFI to the system's libhwloc (2.x, `pkg-config hwloc`; Debian's `libhwloc-dev`).
//!
//! Only exported functions of hwloc's ABI are declared (privately); the safe types
//! [`Topology`], [`Bitmap`] and [`Obj`] wrap them, and [`super`] builds on those without
//! `unsafe`. hwloc's `static inline` helpers (`hwloc_get_nbobjs_by_type`,
//! `hwloc_obj_get_info_by_name`, ...) are rewritten on top. [`Obj`] reads `struct hwloc_obj`
//! at the offsets of hwloc 2.x's stable ABI (checked with `offsetof` against 2.9.0's
//! header, and at run time by the module's tests, which compare what they read with what
//! the exported functions say).
//!
//! Why `unsafe` is allowed here: these are foreign functions. A [`Topology`] is loaded
//! before any query and outlives its [`Obj`]s (a borrow); a [`Bitmap`] is owned and freed
//! once; strings hwloc mallocs are copied, then freed once.
#![allow(unsafe_code)]

use crate::{Error, Result};
use core::ffi::{c_char, c_int, c_uint, c_ulong, c_void, CStr};
use core::marker::PhantomData;
use core::ptr::NonNull;
use pmix_sys as psys;
use std::ffi::CString;

/// `hwloc_topology_t`.
pub type RawTopo = *mut c_void;
/// `hwloc_bitmap_t` (`hwloc_cpuset_t`).
pub type RawBitmap = *mut c_void;
type RawObj = *mut c_void;
type Topo = RawTopo;
type Bm = RawBitmap;

/// `HWLOC_OBJ_MACHINE`.
pub const OBJ_MACHINE: c_int = 0;
/// `HWLOC_OBJ_PACKAGE`.
pub const OBJ_PACKAGE: c_int = 1;
/// `HWLOC_OBJ_CORE`.
pub const OBJ_CORE: c_int = 2;
/// `HWLOC_OBJ_PU`.
pub const OBJ_PU: c_int = 3;
/// `HWLOC_OBJ_L1CACHE`.
pub const OBJ_L1CACHE: c_int = 4;
/// `HWLOC_OBJ_L2CACHE`.
pub const OBJ_L2CACHE: c_int = 5;
/// `HWLOC_OBJ_L3CACHE`.
pub const OBJ_L3CACHE: c_int = 6;
/// `HWLOC_OBJ_NUMANODE`.
pub const OBJ_NUMANODE: c_int = 13;
/// `HWLOC_OBJ_OS_DEVICE`.
pub const OBJ_OS_DEVICE: c_int = 16;
/// `HWLOC_TYPE_DEPTH_NUMANODE` (the virtual depth of the NUMA nodes).
pub const DEPTH_NUMANODE: c_int = -3;
/// `HWLOC_TYPE_DEPTH_OS_DEVICE`.
pub const DEPTH_OS_DEVICE: c_int = -6;
/// `HWLOC_CPUBIND_PROCESS`.
pub const CPUBIND_PROCESS: c_int = 1;
/// `HWLOC_CPUBIND_THREAD`.
pub const CPUBIND_THREAD: c_int = 2;
/// `HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM`.
pub const FLAG_IS_THISSYSTEM: c_ulong = 1 << 1;
/// `HWLOC_TYPE_FILTER_KEEP_IMPORTANT`.
pub const FILTER_KEEP_IMPORTANT: c_int = 3;
/// `HWLOC_OBJ_OSDEV_BLOCK` .. `HWLOC_OBJ_OSDEV_COPROC`.
pub const OSDEV_BLOCK: c_int = 0;
/// `HWLOC_OBJ_OSDEV_GPU`.
pub const OSDEV_GPU: c_int = 1;
/// `HWLOC_OBJ_OSDEV_NETWORK`.
pub const OSDEV_NETWORK: c_int = 2;
/// `HWLOC_OBJ_OSDEV_OPENFABRICS`.
pub const OSDEV_OPENFABRICS: c_int = 3;
/// `HWLOC_OBJ_OSDEV_DMA`.
pub const OSDEV_DMA: c_int = 4;
/// `HWLOC_OBJ_OSDEV_COPROC`.
pub const OSDEV_COPROC: c_int = 5;

// Offsets in `struct hwloc_obj` (hwloc 2.x, LP64).
const OFF_NAME: usize = 24;
const OFF_ATTR: usize = 40;
const OFF_DEPTH: usize = 48;
const OFF_LOGICAL_INDEX: usize = 52;
const OFF_PARENT: usize = 72;
const OFF_ARITY: usize = 104;
const OFF_CPUSET: usize = 184;
const OFF_INFOS: usize = 216;
const OFF_INFOS_COUNT: usize = 224;

#[link(name = "hwloc")]
extern "C" {
    fn hwloc_get_api_version() -> c_uint;
    fn hwloc_topology_init(t: *mut Topo) -> c_int;
    fn hwloc_topology_load(t: Topo) -> c_int;
    fn hwloc_topology_destroy(t: Topo);
    fn hwloc_topology_set_flags(t: Topo, flags: c_ulong) -> c_int;
    fn hwloc_topology_set_io_types_filter(t: Topo, filter: c_int) -> c_int;
    fn hwloc_topology_set_xmlbuffer(t: Topo, buf: *const c_char, size: c_int) -> c_int;
    fn hwloc_topology_export_xmlbuffer(
        t: Topo,
        buf: *mut *mut c_char,
        len: *mut c_int,
        flags: c_ulong,
    ) -> c_int;
    fn hwloc_free_xmlbuffer(t: Topo, buf: *mut c_char);
    fn hwloc_topology_get_depth(t: Topo) -> c_int;
    fn hwloc_get_depth_type(t: Topo, depth: c_int) -> c_int;
    fn hwloc_get_type_depth(t: Topo, ty: c_int) -> c_int;
    fn hwloc_get_nbobjs_by_depth(t: Topo, depth: c_int) -> c_uint;
    fn hwloc_get_obj_by_depth(t: Topo, depth: c_int, idx: c_uint) -> RawObj;
    fn hwloc_topology_get_allowed_cpuset(t: Topo) -> Bm;
    fn hwloc_get_cpubind(t: Topo, set: Bm, flags: c_int) -> c_int;

    fn hwloc_bitmap_alloc() -> Bm;
    fn hwloc_bitmap_free(b: Bm);
    fn hwloc_bitmap_dup(b: Bm) -> Bm;
    fn hwloc_bitmap_isfull(b: Bm) -> c_int;
    fn hwloc_bitmap_weight(b: Bm) -> c_int;
    fn hwloc_bitmap_intersects(a: Bm, b: Bm) -> c_int;
    fn hwloc_bitmap_isincluded(sub: Bm, sup: Bm) -> c_int;
    fn hwloc_bitmap_isequal(a: Bm, b: Bm) -> c_int;
    fn hwloc_bitmap_list_asprintf(s: *mut *mut c_char, b: Bm) -> c_int;
    fn hwloc_bitmap_list_sscanf(b: Bm, s: *const c_char) -> c_int;
    fn hwloc_bitmap_asprintf(s: *mut *mut c_char, b: Bm) -> c_int;
    fn hwloc_obj_type_string(ty: c_int) -> *const c_char;
}

fn hwloc_err(what: &str) -> Error {
    Error::new(psys::PMIX_ERROR, format!("hwloc: {what} failed"))
}

/// The hwloc API version the library was built against (`0x00020800` for 2.8/2.9).
pub fn api_version() -> u32 {
    // SAFETY: a plain query without arguments.
    unsafe { hwloc_get_api_version() }
}

/// A loaded hwloc topology (owned; destroyed on drop unless leaked).
pub struct Topology {
    raw: NonNull<c_void>,
}

// SAFETY: a topology is only read after `hwloc_topology_load`, and hwloc documents
// concurrent reads of a loaded topology as thread-safe.
unsafe impl Send for Topology {}
// SAFETY: as for Send: every method only reads the loaded topology.
unsafe impl Sync for Topology {}

/// An hwloc bitmap (a cpuset), owned: freed on drop unless given up by
/// [`Bitmap::into_raw`].
pub struct Bitmap {
    raw: NonNull<c_void>,
}

// SAFETY: the bitmap is a heap block owned by this value alone.
unsafe impl Send for Bitmap {}

/// An object of a topology, valid while the topology is borrowed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Obj<'t> {
    raw: NonNull<c_void>,
    _topo: PhantomData<&'t Topology>,
}

impl Topology {
    fn init() -> Result<Topology> {
        let mut t: Topo = core::ptr::null_mut();
        // SAFETY: `t` is a valid out-pointer; on success it holds a new topology.
        let rc = unsafe { hwloc_topology_init(&mut t) };
        let raw = NonNull::new(t).filter(|_| rc == 0);
        let topo = Topology {
            raw: raw.ok_or_else(|| hwloc_err("hwloc_topology_init"))?,
        };
        // SAFETY: an initialised topology, not yet loaded: its important I/O devices are
        // asked for (as OpenPMIx does, for device distances).
        unsafe { hwloc_topology_set_io_types_filter(topo.ptr(), FILTER_KEEP_IMPORTANT) };
        Ok(topo)
    }

    fn load(self) -> Result<Topology> {
        // SAFETY: an initialised topology, loaded once.
        if unsafe { hwloc_topology_load(self.ptr()) } != 0 {
            return Err(hwloc_err("hwloc_topology_load"));
        }
        Ok(self)
    }

    /// Discover this machine's topology (with its important I/O devices).
    ///
    /// # Errors
    /// `PMIX_ERROR` when hwloc cannot discover it.
    pub fn discover() -> Result<Topology> {
        Topology::init()?.load()
    }

    /// Load a topology from hwloc's XML export (`PMIX_HWLOC_XML_V2`), marked as this
    /// system's (so binding queries work on it).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` when the XML is not a topology hwloc accepts.
    pub fn from_xml(xml: &str) -> Result<Topology> {
        let c = CString::new(xml).map_err(|_| Error::bad_param("topology XML with a NUL"))?;
        let len = c_int::try_from(c.as_bytes_with_nul().len())
            .map_err(|_| Error::bad_param("topology XML too large"))?;
        let t = Topology::init()?;
        // SAFETY: an initialised topology; `c` is NUL-terminated and `len` counts its NUL,
        // as hwloc_topology_set_xmlbuffer wants; `c` outlives the load below.
        if unsafe { hwloc_topology_set_xmlbuffer(t.ptr(), c.as_ptr(), len) } != 0 {
            return Err(Error::bad_param("hwloc rejected the topology XML"));
        }
        // SAFETY: an initialised topology, before its load.
        unsafe { hwloc_topology_set_flags(t.ptr(), FLAG_IS_THISSYSTEM) };
        t.load()
            .map_err(|_| Error::bad_param("hwloc could not load the topology XML"))
    }

    /// Borrow a caller's loaded topology (a `pmix_topology_t`'s) without owning it.
    ///
    /// # Safety
    /// `t` is NULL or a loaded hwloc topology that stays alive while the result is used.
    pub unsafe fn borrow_raw(t: RawTopo) -> Option<core::mem::ManuallyDrop<Topology>> {
        NonNull::new(t).map(|raw| core::mem::ManuallyDrop::new(Topology { raw }))
    }

    /// The `hwloc_topology_t` (for `pmix_topology_t.topology`).
    pub fn ptr(&self) -> RawTopo {
        self.raw.as_ptr()
    }

    /// The topology as hwloc's XML (v2 format).
    ///
    /// # Errors
    /// `PMIX_ERROR` when hwloc cannot export it.
    pub fn export_xml(&self) -> Result<String> {
        let mut buf: *mut c_char = core::ptr::null_mut();
        let mut len: c_int = 0;
        // SAFETY: a loaded topology and valid out-pointers.
        let rc = unsafe { hwloc_topology_export_xmlbuffer(self.ptr(), &mut buf, &mut len, 0) };
        if rc != 0 || buf.is_null() {
            return Err(hwloc_err("hwloc_topology_export_xmlbuffer"));
        }
        // SAFETY: hwloc returned a NUL-terminated buffer; it is freed once, after the copy.
        let s = unsafe { CStr::from_ptr(buf) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: the buffer this topology exported, freed once.
        unsafe { hwloc_free_xmlbuffer(self.ptr(), buf) };
        Ok(s)
    }

    /// The number of levels (`hwloc_topology_get_depth`).
    pub fn depth(&self) -> i32 {
        // SAFETY: a loaded topology.
        unsafe { hwloc_topology_get_depth(self.ptr()) }
    }

    /// The object type of a level (`HWLOC_OBJ_*`; -1 for a bad depth).
    pub fn depth_type(&self, depth: i32) -> i32 {
        // SAFETY: a loaded topology; a bad depth gives an error value.
        unsafe { hwloc_get_depth_type(self.ptr(), depth) }
    }

    /// The level of an object type (negative: none, several, or a virtual depth).
    pub fn type_depth(&self, ty: i32) -> i32 {
        // SAFETY: a loaded topology.
        unsafe { hwloc_get_type_depth(self.ptr(), ty) }
    }

    /// The number of objects at `depth` (0 for an unknown depth).
    pub fn width(&self, depth: i32) -> u32 {
        // SAFETY: a loaded topology; an unknown depth gives 0.
        unsafe { hwloc_get_nbobjs_by_depth(self.ptr(), depth) }
    }

    /// Object `i` of level `depth`.
    pub fn obj(&self, depth: i32, i: u32) -> Option<Obj<'_>> {
        // SAFETY: a loaded topology; out of range gives NULL.
        let o = unsafe { hwloc_get_obj_by_depth(self.ptr(), depth, i) };
        NonNull::new(o).map(|raw| Obj {
            raw,
            _topo: PhantomData,
        })
    }

    /// The cpus this topology allows (the whole set of an unbound process).
    ///
    /// # Errors
    /// `PMIX_ERR_NOMEM`.
    pub fn allowed_cpuset(&self) -> Result<Bitmap> {
        // SAFETY: a loaded topology; its allowed set is duplicated, not taken.
        Bitmap::from_new(unsafe { hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(self.ptr())) })
    }

    /// The binding of the process (`thread` false) or of the calling thread.
    ///
    /// # Errors
    /// `PMIX_ERR_NOT_FOUND` when hwloc cannot read it.
    pub fn cpubind(&self, thread: bool) -> Result<Bitmap> {
        let flag = if thread {
            CPUBIND_THREAD
        } else {
            CPUBIND_PROCESS
        };
        let b = Bitmap::new()?;
        // SAFETY: a loaded topology and a bitmap we own.
        if unsafe { hwloc_get_cpubind(self.ptr(), b.ptr(), flag) } != 0 {
            return Err(Error::not_found("hwloc could not read the binding"));
        }
        Ok(b)
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        // SAFETY: our topology, destroyed once.
        unsafe { hwloc_topology_destroy(self.ptr()) }
    }
}

/// Destroy a topology a C caller hands back (`PMIx_Topology_destruct`).
///
/// # Safety
/// `t` is a live hwloc topology that nobody uses or destroys afterwards.
pub unsafe fn destroy_raw_topology(t: RawTopo) {
    if !t.is_null() {
        // SAFETY: as the caller promises.
        unsafe { hwloc_topology_destroy(t) }
    }
}

/// Free a bitmap a C caller hands back (`PMIx_Cpuset_destruct`).
///
/// # Safety
/// `b` is a live hwloc bitmap that nobody uses or frees afterwards.
pub unsafe fn free_raw_bitmap(b: RawBitmap) {
    if !b.is_null() {
        // SAFETY: as the caller promises.
        unsafe { hwloc_bitmap_free(b) }
    }
}

impl<'t> Obj<'t> {
    /// Read a field of type `T` at `off` bytes into the object.
    fn field<T: Copy>(&self, off: usize) -> T {
        // SAFETY: `raw` is an object of a live (borrowed) topology, a `struct hwloc_obj`
        // whose field at `off` (hwloc 2.x's ABI offset) has type `T`, aligned as C lays it out.
        unsafe { core::ptr::read((self.raw.as_ptr() as *const u8).add(off) as *const T) }
    }

    /// `obj->type` (`HWLOC_OBJ_*`).
    pub fn kind(&self) -> i32 {
        self.field(0)
    }

    /// `obj->name` (None for most objects).
    pub fn name(&self) -> Option<String> {
        cstring(self.field(OFF_NAME))
    }

    /// `obj->depth` (negative for I/O and memory objects).
    pub fn depth(&self) -> i32 {
        self.field(OFF_DEPTH)
    }

    /// `obj->logical_index`.
    pub fn logical_index(&self) -> u32 {
        self.field(OFF_LOGICAL_INDEX)
    }

    /// `obj->parent` (None for the root).
    pub fn parent(&self) -> Option<Obj<'t>> {
        NonNull::new(self.field::<RawObj>(OFF_PARENT)).map(|raw| Obj {
            raw,
            _topo: PhantomData,
        })
    }

    /// `obj->arity` (the number of normal children).
    pub fn arity(&self) -> u32 {
        self.field(OFF_ARITY)
    }

    /// hwloc's name of the object's type (`Machine`, `Package`, `PU`, ...).
    pub fn type_name(&self) -> String {
        // SAFETY: hwloc returns a static string for any type value ("Unknown" otherwise).
        cstring(unsafe { hwloc_obj_type_string(self.kind()) }).unwrap_or_default()
    }

    /// The object's cpuset in hwloc's hexadecimal format (`0x00000003`), if it has one.
    pub fn cpuset_hex(&self) -> Option<String> {
        let c = self.cpuset()?;
        let mut s: *mut c_char = core::ptr::null_mut();
        // SAFETY: a live bitmap of the borrowed topology and a valid out-pointer.
        let n = unsafe { hwloc_bitmap_asprintf(&mut s, c) };
        let out = (n >= 0).then(|| cstring(s)).flatten();
        // SAFETY: hwloc's malloc'd string (or NULL), freed once.
        unsafe { libc::free(s.cast()) };
        out
    }

    fn cpuset(&self) -> Option<Bm> {
        let c: Bm = self.field(OFF_CPUSET);
        (!c.is_null()).then_some(c)
    }

    /// True when the object has a cpuset (a normal object, not I/O or Misc).
    pub fn has_cpuset(&self) -> bool {
        self.cpuset().is_some()
    }

    /// True when the object's cpuset meets `set`.
    pub fn intersects(&self, set: &Bitmap) -> bool {
        // SAFETY: two live bitmaps (the object's belongs to the borrowed topology).
        self.cpuset()
            .is_some_and(|c| unsafe { hwloc_bitmap_intersects(c, set.ptr()) } != 0)
    }

    /// True when `set` is included in the object's cpuset.
    pub fn covers(&self, set: &Bitmap) -> bool {
        // SAFETY: two live bitmaps (the object's belongs to the borrowed topology).
        self.cpuset()
            .is_some_and(|c| unsafe { hwloc_bitmap_isincluded(set.ptr(), c) } != 0)
    }

    /// The number of PUs of the object's cpuset (0 without one).
    pub fn weight(&self) -> i32 {
        // SAFETY: a live bitmap of the borrowed topology.
        self.cpuset()
            .map_or(0, |c| unsafe { hwloc_bitmap_weight(c) })
    }

    /// `obj->attr->osdev.type` of an OS device (-1 for another object).
    pub fn osdev_type(&self) -> i32 {
        if self.kind() != OBJ_OS_DEVICE {
            return -1;
        }
        let attr: *const c_int = self.field(OFF_ATTR);
        if attr.is_null() {
            -1
        } else {
            // SAFETY: an OS device's attribute union starts with its hwloc_obj_osdev_type_t.
            unsafe { *attr }
        }
    }

    /// The value of the object's info `name` (`hwloc_obj_get_info_by_name`).
    pub fn info(&self, name: &str) -> Option<String> {
        let infos: *const [*const c_char; 2] = self.field(OFF_INFOS);
        let n: c_uint = self.field(OFF_INFOS_COUNT);
        if infos.is_null() {
            return None;
        }
        (0..n as usize)
            // SAFETY: `infos` points at `infos_count` pairs of strings
            // (`struct hwloc_info_s { char *name; char *value; }`).
            .map(|i| unsafe { *infos.add(i) })
            .find(|p| cstring(p[0]).is_some_and(|k| k.eq_ignore_ascii_case(name)))
            .and_then(|p| cstring(p[1]))
    }
}

fn cstring(p: *const c_char) -> Option<String> {
    // SAFETY: hwloc's strings are NUL-terminated and live as long as their topology.
    (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
}

impl Bitmap {
    fn from_new(b: Bm) -> Result<Bitmap> {
        NonNull::new(b)
            .map(|raw| Bitmap { raw })
            .ok_or_else(|| Error::new(psys::PMIX_ERR_NOMEM, "hwloc_bitmap_alloc"))
    }

    /// An empty bitmap.
    ///
    /// # Errors
    /// `PMIX_ERR_NOMEM`.
    pub fn new() -> Result<Bitmap> {
        // SAFETY: a plain allocation.
        Bitmap::from_new(unsafe { hwloc_bitmap_alloc() })
    }

    /// Parse hwloc's list format (`0-3,8`).
    ///
    /// # Errors
    /// `PMIX_ERR_BAD_PARAM` when hwloc rejects the list.
    pub fn parse_list(list: &str) -> Result<Bitmap> {
        let bad = || Error::bad_param(format!("{list:?} is not an hwloc cpu list"));
        let c = CString::new(list).map_err(|_| bad())?;
        let b = Bitmap::new()?;
        // SAFETY: a bitmap we own and a NUL-terminated string.
        if unsafe { hwloc_bitmap_list_sscanf(b.ptr(), c.as_ptr()) } != 0 {
            return Err(bad());
        }
        Ok(b)
    }

    /// A copy of a bitmap this library does not own (a caller's `pmix_cpuset_t`).
    ///
    /// # Safety
    /// `b` is a live hwloc bitmap (or NULL).
    pub unsafe fn dup_raw(b: RawBitmap) -> Option<Bitmap> {
        if b.is_null() {
            return None;
        }
        // SAFETY: as the caller promises.
        Bitmap::from_new(unsafe { hwloc_bitmap_dup(b) }).ok()
    }

    /// The raw bitmap.
    pub fn ptr(&self) -> RawBitmap {
        self.raw.as_ptr()
    }

    /// Give up ownership (the C caller frees it, with `PMIx_Cpuset_destruct`).
    pub fn into_raw(self) -> RawBitmap {
        core::mem::ManuallyDrop::new(self).ptr()
    }

    /// True when every bit (to infinity) is set.
    pub fn is_full(&self) -> bool {
        // SAFETY: a live bitmap.
        unsafe { hwloc_bitmap_isfull(self.ptr()) != 0 }
    }

    /// How many bits are set (-1: infinitely many).
    pub fn weight(&self) -> i32 {
        // SAFETY: a live bitmap.
        unsafe { hwloc_bitmap_weight(self.ptr()) }
    }

    /// hwloc's list format of the bitmap (`0-3,8`).
    pub fn to_list(&self) -> String {
        let mut s: *mut c_char = core::ptr::null_mut();
        // SAFETY: a live bitmap and a valid out-pointer; hwloc mallocs the string.
        let n = unsafe { hwloc_bitmap_list_asprintf(&mut s, self.ptr()) };
        if n < 0 {
            return String::new();
        }
        let out = cstring(s).unwrap_or_default();
        // SAFETY: hwloc's malloc'd string (or NULL), freed once.
        unsafe { libc::free(s.cast()) };
        out
    }
}

impl PartialEq for Bitmap {
    fn eq(&self, o: &Bitmap) -> bool {
        // SAFETY: two live bitmaps.
        unsafe { hwloc_bitmap_isequal(self.ptr(), o.ptr()) != 0 }
    }
}

impl core::fmt::Debug for Bitmap {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Bitmap({})", self.to_list())
    }
}

impl Drop for Bitmap {
    fn drop(&mut self) {
        // SAFETY: our bitmap, freed once.
        unsafe { hwloc_bitmap_free(self.ptr()) }
    }
}
