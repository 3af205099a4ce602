//! The engine's data model: [`Value`], [`Info`], [`ProcId`], [`Key`], [`Nspace`] and the
//! composite PMIx types, as owned Rust data (no C pointers). `capi::conv` converts between
//! these and the `#[repr(C)]` structs of `pmix-sys`; `codec` encodes them.
//!
//! C strings are carried as bytes (`Vec<u8>`, no NUL), so nothing a C caller stores is
//! altered by a UTF-8 conversion. Keys and namespaces are validated on construction.

use crate::error::{Error, Result};
use pmix_sys as sys;

/// A process rank (`pmix_rank_t`).
pub type Rank = u32;
/// A PMIx data type code (`pmix_data_type_t`).
pub type DataType = u16;

/// Owned C string contents (no terminating NUL). `None` stands for a NULL pointer.
pub type CString = Option<Vec<u8>>;

/// A namespace: at most `PMIX_MAX_NSLEN` (255) bytes, no NUL.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Nspace(String);

impl Nspace {
    /// Validates length and content.
    pub fn new(s: impl Into<String>) -> Result<Self> {
        let s = s.into();
        if s.len() > sys::PMIX_MAX_NSLEN || s.as_bytes().contains(&0) {
            return Err(Error::bad_param(format!(
                "namespace too long or invalid ({} bytes)",
                s.len()
            )));
        }
        Ok(Nspace(s))
    }
    /// The namespace as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// True for the empty namespace (OpenPMIx's "invalid" namespace).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::fmt::Debug for Nspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}
impl std::fmt::Display for Nspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An attribute or data key: 1..=`PMIX_MAX_KEYLEN` (511) bytes, no NUL.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key(String);

impl Key {
    /// Validates length and content (empty keys are allowed only where OpenPMIx allows
    /// them: use [`Key::new_allow_empty`]).
    pub fn new(s: impl Into<String>) -> Result<Self> {
        let s = s.into();
        if s.is_empty() {
            return Err(Error::bad_param("empty key"));
        }
        Self::new_allow_empty(s)
    }
    /// Like [`Key::new`] but accepts the empty key (e.g. an unset `pmix_info_t`).
    pub fn new_allow_empty(s: impl Into<String>) -> Result<Self> {
        let s = s.into();
        if s.len() > sys::PMIX_MAX_KEYLEN || s.as_bytes().contains(&0) {
            return Err(Error::bad_param(format!(
                "key too long or invalid ({} bytes)",
                s.len()
            )));
        }
        Ok(Key(s))
    }
    /// The key as a string slice.
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// True for reserved keys: those beginning with `pmix` (the PMIx_Get page's rule,
    /// and OpenPMIx's four-letter test). This is why pmixrun's namespaces do not begin
    /// with `pmix`: an application that names its keys after its namespace (OpenPMIx's
    /// dmodex example does) would otherwise post reserved keys, never waited for.
    pub fn is_reserved(&self) -> bool {
        self.0.starts_with("pmix")
    }
}

// Hash, Eq and Ord of a Key are those of its string, so maps keyed by Key can be
// searched with a plain &str (no allocation on lookups).
impl std::borrow::Borrow<str> for Key {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.0)
    }
}
impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// A process identifier (`pmix_proc_t`).
#[derive(Clone, Eq, PartialOrd, Ord, Debug, Default)]
pub struct ProcId {
    /// Namespace of the process.
    pub nspace: Nspace,
    /// Rank within the namespace (or a special rank such as `PMIX_RANK_WILDCARD`).
    pub rank: Rank,
}

/// Equal when rank and namespace are: the rank first, so most unequal ids are told
/// apart without comparing namespace bytes (the same answer as comparing field by field).
impl PartialEq for ProcId {
    fn eq(&self, other: &ProcId) -> bool {
        self.rank == other.rank && self.nspace == other.nspace
    }
}

impl std::hash::Hash for ProcId {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.nspace.hash(h);
        self.rank.hash(h);
    }
}

impl ProcId {
    /// A process id from parts.
    pub fn new(nspace: Nspace, rank: Rank) -> Self {
        ProcId { nspace, rank }
    }
    /// True when the rank is `PMIX_RANK_WILDCARD`.
    pub fn is_wildcard(&self) -> bool {
        self.rank == sys::PMIX_RANK_WILDCARD
    }
}

/// True when `p` is among `procs`: named itself, or its namespace's wildcard is.
pub fn includes(procs: &[ProcId], p: &ProcId) -> bool {
    procs
        .iter()
        .any(|q| q.nspace == p.nspace && (q.rank == p.rank || q.rank == sys::PMIX_RANK_WILDCARD))
}

impl std::fmt::Display for ProcId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.rank {
            sys::PMIX_RANK_WILDCARD => write!(f, "{}:*", self.nspace),
            sys::PMIX_RANK_UNDEF => write!(f, "{}:undef", self.nspace),
            sys::PMIX_RANK_INVALID => write!(f, "{}:invalid", self.nspace),
            r => write!(f, "{}:{}", self.nspace, r),
        }
    }
}

/// Data scope of a `PMIx_Put` (`pmix_scope_t`), including master's deletion scopes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Scope {
    /// `PMIX_SCOPE_UNDEF`.
    Undef,
    /// `PMIX_LOCAL`: peers on the same node.
    Local,
    /// `PMIX_REMOTE`: peers on other nodes.
    Remote,
    /// `PMIX_GLOBAL`: everyone.
    Global,
    /// `PMIX_INTERNAL`: this process only.
    Internal,
}

impl Scope {
    /// Decode a storage scope (1..=4, or 0 for undef).
    pub fn from_raw(s: u8) -> Option<Scope> {
        Some(match s {
            sys::PMIX_SCOPE_UNDEF => Scope::Undef,
            sys::PMIX_LOCAL => Scope::Local,
            sys::PMIX_REMOTE => Scope::Remote,
            sys::PMIX_GLOBAL => Scope::Global,
            sys::PMIX_INTERNAL => Scope::Internal,
            _ => return None,
        })
    }
    /// The raw `pmix_scope_t`.
    pub fn raw(self) -> u8 {
        match self {
            Scope::Undef => sys::PMIX_SCOPE_UNDEF,
            Scope::Local => sys::PMIX_LOCAL,
            Scope::Remote => sys::PMIX_REMOTE,
            Scope::Global => sys::PMIX_GLOBAL,
            Scope::Internal => sys::PMIX_INTERNAL,
        }
    }
}

/// `pmix_info_t`: a key, directive flags and a value.
#[derive(Clone, PartialEq, Debug)]
pub struct Info {
    /// The key (may be empty for an unset info).
    pub key: Key,
    /// `PMIX_INFO_REQD`, `PMIX_INFO_QUALIFIER`, … (`pmix_info_directives_t`).
    pub flags: u32,
    /// The value.
    pub value: Value,
}

impl Info {
    /// An info with no flags. Panics never: an invalid key yields `Err`.
    pub fn new(key: &str, value: Value) -> Result<Info> {
        Ok(Info {
            key: Key::new(key)?,
            flags: 0,
            value,
        })
    }
}

/// `pmix_app_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct App {
    /// Executable.
    pub cmd: CString,
    /// Arguments (argv\[0\] included), NULL-terminated in C.
    pub argv: Option<Vec<Vec<u8>>>,
    /// Environment entries `NAME=value`.
    pub env: Option<Vec<Vec<u8>>>,
    /// Working directory.
    pub cwd: CString,
    /// Number of processes.
    pub maxprocs: i32,
    /// Per-app directives.
    pub info: Vec<Info>,
}

/// `pmix_pdata_t`.
#[derive(Clone, PartialEq, Debug)]
pub struct Pdata {
    /// Publisher.
    pub proc_: ProcId,
    /// Key.
    pub key: Key,
    /// Value.
    pub value: Value,
}

/// `pmix_query_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Query {
    /// Keys queried.
    pub keys: Option<Vec<Vec<u8>>>,
    /// Qualifiers.
    pub qualifiers: Vec<Info>,
}

/// `pmix_proc_info_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct ProcInfo {
    /// Process id.
    pub proc_: ProcId,
    /// Host name.
    pub hostname: CString,
    /// Executable name.
    pub executable_name: CString,
    /// OS pid.
    pub pid: i32,
    /// Exit code.
    pub exit_code: i32,
    /// `pmix_proc_state_t`.
    pub state: u8,
}

/// `pmix_envar_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Envar {
    /// Variable name.
    pub envar: CString,
    /// Value.
    pub value: CString,
    /// Separator character.
    pub separator: u8,
}

/// `pmix_coord_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Coord {
    /// `pmix_coord_view_t`.
    pub view: u8,
    /// Coordinates, one per dimension.
    pub coord: Vec<u32>,
}

/// `pmix_regattr_t`.
#[derive(Clone, PartialEq, Debug)]
pub struct Regattr {
    /// Attribute name (e.g. "PMIX_TIMEOUT").
    pub name: CString,
    /// Key string.
    pub string: Key,
    /// Value type.
    pub dtype: DataType,
    /// Description lines.
    pub description: Option<Vec<Vec<u8>>>,
}

/// `pmix_geometry_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Geometry {
    /// Fabric index.
    pub fabric: u64,
    /// UUID.
    pub uuid: CString,
    /// OS name.
    pub osname: CString,
    /// Coordinates.
    pub coordinates: Vec<Coord>,
}

/// `pmix_device_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Device {
    /// UUID.
    pub uuid: CString,
    /// OS name.
    pub osname: CString,
    /// `pmix_device_type_t`.
    pub dtype: u64,
}

/// `pmix_device_distance_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct DeviceDistance {
    /// UUID.
    pub uuid: CString,
    /// OS name.
    pub osname: CString,
    /// `pmix_device_type_t`.
    pub dtype: u64,
    /// Minimum distance.
    pub mindist: u16,
    /// Maximum distance.
    pub maxdist: u16,
}

/// `pmix_endpoint_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Endpoint {
    /// UUID.
    pub uuid: CString,
    /// OS name.
    pub osname: CString,
    /// Endpoint bytes.
    pub endpt: Vec<u8>,
}

/// `pmix_topology_t` / `pmix_cpuset_t`: the source name and an opaque pointer
/// (hwloc object) that is carried, never dereferenced, by the engine.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Opaque {
    /// Source (e.g. "hwloc").
    pub source: CString,
    /// The C pointer, as an address.
    pub ptr: usize,
}

/// `pmix_node_pid_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct NodePid {
    /// Host name.
    pub hostname: CString,
    /// Node id.
    pub nodeid: u32,
    /// OS pid.
    pub pid: i32,
}

/// `pmix_regex2_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct Regex2 {
    /// Regex type name.
    pub rtype: CString,
    /// Bytes.
    pub bytes: Vec<u8>,
}

/// `pmix_resource_unit_t`.
#[derive(Clone, PartialEq, Debug, Default)]
pub struct ResourceUnit {
    /// `pmix_device_type_t`.
    pub dtype: u64,
    /// Count.
    pub count: u64,
}

/// `pmix_data_array_t`: a type code and elements, each a [`Value`] of that type
/// (e.g. `Value::Info` elements for a `PMIX_INFO` array).
#[derive(Clone, PartialEq, Debug)]
pub struct DataArray {
    /// Element type.
    pub dtype: DataType,
    /// Elements.
    pub items: Vec<Value>,
}

/// A PMIx value of any data type (`pmix_value_t`, and the element types of data arrays).
#[derive(Clone, PartialEq, Debug, Default)]
pub enum Value {
    /// `PMIX_UNDEF`.
    #[default]
    Undef,
    /// `PMIX_BOOL`.
    Bool(bool),
    /// `PMIX_BYTE`.
    Byte(u8),
    /// `PMIX_STRING` (None = NULL).
    String(CString),
    /// `PMIX_SIZE`.
    Size(u64),
    /// `PMIX_PID`.
    Pid(i32),
    /// `PMIX_INT`.
    Int(i32),
    /// `PMIX_INT8`.
    Int8(i8),
    /// `PMIX_INT16`.
    Int16(i16),
    /// `PMIX_INT32`.
    Int32(i32),
    /// `PMIX_INT64`.
    Int64(i64),
    /// `PMIX_UINT`.
    Uint(u32),
    /// `PMIX_UINT8`.
    Uint8(u8),
    /// `PMIX_UINT16`.
    Uint16(u16),
    /// `PMIX_UINT32`.
    Uint32(u32),
    /// `PMIX_UINT64`.
    Uint64(u64),
    /// `PMIX_FLOAT`.
    Float(f32),
    /// `PMIX_DOUBLE`.
    Double(f64),
    /// `PMIX_TIMEVAL` (seconds, microseconds).
    Timeval(i64, i64),
    /// `PMIX_TIME`.
    Time(i64),
    /// `PMIX_STATUS`.
    Status(i32),
    /// `PMIX_PROC_RANK`.
    Rank(Rank),
    /// `PMIX_PROC_NSPACE` (None = NULL pointer).
    ProcNspace(Option<Nspace>),
    /// `PMIX_PROC` (None = NULL pointer).
    Proc(Option<ProcId>),
    /// `PMIX_BYTE_OBJECT`.
    ByteObject(Vec<u8>),
    /// `PMIX_COMPRESSED_STRING`.
    CompressedString(Vec<u8>),
    /// `PMIX_COMPRESSED_BYTE_OBJECT`.
    CompressedByteObject(Vec<u8>),
    /// `PMIX_REGEX` (a byte object).
    Regex(Vec<u8>),
    /// `PMIX_PERSIST`.
    Persist(u8),
    /// `PMIX_SCOPE`.
    Scope(u8),
    /// `PMIX_DATA_RANGE`.
    Range(u8),
    /// `PMIX_PROC_STATE`.
    ProcState(u8),
    /// `PMIX_JOB_STATE`.
    JobState(u8),
    /// `PMIX_LINK_STATE`.
    LinkState(u8),
    /// `PMIX_ALLOC_DIRECTIVE`.
    AllocDirective(u8),
    /// `PMIX_RESBLOCK_DIRECTIVE`.
    ResblockDirective(u8),
    /// `PMIX_ALLOC_INHERIT`.
    AllocInherit(u8),
    /// `PMIX_COMMAND` (`pmix_cmd_t`, u8).
    Command(u8),
    /// `PMIX_INFO_DIRECTIVES`.
    InfoDirectives(u32),
    /// `PMIX_DATA_TYPE`.
    DataType(DataType),
    /// `PMIX_IOF_CHANNEL`.
    IofChannel(u16),
    /// `PMIX_LOCTYPE`.
    Locality(u16),
    /// `PMIX_DEVTYPE`.
    DevType(u64),
    /// `PMIX_POINTER`: an address carried as-is (never dereferenced, never sent).
    Pointer(usize),
    /// `PMIX_PROC_INFO`.
    ProcInfo(Box<ProcInfo>),
    /// `PMIX_DATA_ARRAY`.
    DataArray(Box<DataArray>),
    /// `PMIX_ENVAR`.
    Envar(Envar),
    /// `PMIX_COORD`.
    Coord(Box<Coord>),
    /// `PMIX_TOPO`.
    Topo(Box<Opaque>),
    /// `PMIX_PROC_CPUSET`.
    Cpuset(Box<Opaque>),
    /// `PMIX_GEOMETRY`.
    Geometry(Box<Geometry>),
    /// `PMIX_DEVICE`.
    Device(Box<Device>),
    /// `PMIX_DEVICE_DIST`.
    DeviceDist(Box<DeviceDistance>),
    /// `PMIX_ENDPOINT`.
    Endpoint(Box<Endpoint>),
    /// `PMIX_DATA_BUFFER` (its unread bytes).
    DataBuffer(Vec<u8>),
    /// `PMIX_RESOURCE_UNIT`.
    ResourceUnit(ResourceUnit),
    /// `PMIX_NODE_PID`.
    NodePid(Box<NodePid>),
    /// `PMIX_REGEX2`.
    Regex2(Box<Regex2>),
    /// `PMIX_REGATTR` (only as a data-array element or through the pointer member).
    Regattr(Box<Regattr>),
    /// `PMIX_INFO` (only as a data-array element).
    Info(Box<Info>),
    /// `PMIX_APP` (only as a data-array element).
    App(Box<App>),
    /// `PMIX_PDATA` (only as a data-array element).
    Pdata(Box<Pdata>),
    /// `PMIX_QUERY` (only as a data-array element).
    Query(Box<Query>),
    /// `PMIX_VALUE` (only as a data-array element).
    Value(Box<Value>),
}

impl Value {
    /// The PMIx data type code of this value.
    pub fn dtype(&self) -> DataType {
        use self::Value::*;
        match self {
            Undef => sys::PMIX_UNDEF,
            Bool(_) => sys::PMIX_BOOL,
            Byte(_) => sys::PMIX_BYTE,
            String(_) => sys::PMIX_STRING,
            Size(_) => sys::PMIX_SIZE,
            Pid(_) => sys::PMIX_PID,
            Int(_) => sys::PMIX_INT,
            Int8(_) => sys::PMIX_INT8,
            Int16(_) => sys::PMIX_INT16,
            Int32(_) => sys::PMIX_INT32,
            Int64(_) => sys::PMIX_INT64,
            Uint(_) => sys::PMIX_UINT,
            Uint8(_) => sys::PMIX_UINT8,
            Uint16(_) => sys::PMIX_UINT16,
            Uint32(_) => sys::PMIX_UINT32,
            Uint64(_) => sys::PMIX_UINT64,
            Float(_) => sys::PMIX_FLOAT,
            Double(_) => sys::PMIX_DOUBLE,
            Timeval(..) => sys::PMIX_TIMEVAL,
            Time(_) => sys::PMIX_TIME,
            Status(_) => sys::PMIX_STATUS,
            Rank(_) => sys::PMIX_PROC_RANK,
            ProcNspace(_) => sys::PMIX_PROC_NSPACE,
            Proc(_) => sys::PMIX_PROC,
            ByteObject(_) => sys::PMIX_BYTE_OBJECT,
            CompressedString(_) => sys::PMIX_COMPRESSED_STRING,
            CompressedByteObject(_) => sys::PMIX_COMPRESSED_BYTE_OBJECT,
            Regex(_) => sys::PMIX_REGEX,
            Persist(_) => sys::PMIX_PERSIST,
            Scope(_) => sys::PMIX_SCOPE,
            Range(_) => sys::PMIX_DATA_RANGE,
            ProcState(_) => sys::PMIX_PROC_STATE,
            JobState(_) => sys::PMIX_JOB_STATE,
            LinkState(_) => sys::PMIX_LINK_STATE,
            AllocDirective(_) => sys::PMIX_ALLOC_DIRECTIVE,
            ResblockDirective(_) => sys::PMIX_RESBLOCK_DIRECTIVE,
            AllocInherit(_) => sys::PMIX_ALLOC_INHERIT,
            Command(_) => sys::PMIX_COMMAND,
            InfoDirectives(_) => sys::PMIX_INFO_DIRECTIVES,
            DataType(_) => sys::PMIX_DATA_TYPE,
            IofChannel(_) => sys::PMIX_IOF_CHANNEL,
            Locality(_) => sys::PMIX_LOCTYPE,
            DevType(_) => sys::PMIX_DEVTYPE,
            Pointer(_) => sys::PMIX_POINTER,
            ProcInfo(_) => sys::PMIX_PROC_INFO,
            DataArray(_) => sys::PMIX_DATA_ARRAY,
            Envar(_) => sys::PMIX_ENVAR,
            Coord(_) => sys::PMIX_COORD,
            Topo(_) => sys::PMIX_TOPO,
            Cpuset(_) => sys::PMIX_PROC_CPUSET,
            Geometry(_) => sys::PMIX_GEOMETRY,
            Device(_) => sys::PMIX_DEVICE,
            DeviceDist(_) => sys::PMIX_DEVICE_DIST,
            Endpoint(_) => sys::PMIX_ENDPOINT,
            DataBuffer(_) => sys::PMIX_DATA_BUFFER,
            ResourceUnit(_) => sys::PMIX_RESOURCE_UNIT,
            NodePid(_) => sys::PMIX_NODE_PID,
            Regex2(_) => sys::PMIX_REGEX2,
            Regattr(_) => sys::PMIX_REGATTR,
            Info(_) => sys::PMIX_INFO,
            App(_) => sys::PMIX_APP,
            Pdata(_) => sys::PMIX_PDATA,
            Query(_) => sys::PMIX_QUERY,
            Value(_) => sys::PMIX_VALUE,
        }
    }

    /// A `PMIX_STRING` value from a Rust string.
    pub fn string(s: &str) -> Value {
        Value::String(Some(s.as_bytes().to_vec()))
    }

    /// The truth of a directive value, as OpenPMIx reads it: `PMIX_UNDEF` counts as true
    /// (Open MPI passes `pmix.optional` with no value), a bool is itself, and anything
    /// else is false.
    pub fn is_true(&self) -> bool {
        match self {
            Value::Undef => true,
            Value::Bool(b) => *b,
            _ => false,
        }
    }

    /// The value as an unsigned integer, if it is any integer type that fits.
    pub fn as_u64(&self) -> Option<u64> {
        use self::Value::*;
        match *self {
            Size(v) | Uint64(v) => Some(v),
            Uint(v) | Uint32(v) | Rank(v) => Some(v as u64),
            Uint16(v) => Some(v as u64),
            Uint8(v) | Byte(v) => Some(v as u64),
            Int(v) | Int32(v) | Pid(v) => u64::try_from(v).ok(),
            Int64(v) => u64::try_from(v).ok(),
            Int16(v) => u64::try_from(v).ok(),
            Int8(v) => u64::try_from(v).ok(),
            _ => None,
        }
    }

    /// A `PMIX_DATA_ARRAY` of `PMIX_PROC` naming `procs` (what [`Value::procs`] reads).
    pub fn proc_array(procs: &[ProcId]) -> Value {
        Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_PROC,
            items: procs.iter().map(|p| Value::Proc(Some(p.clone()))).collect(),
        }))
    }

    /// The processes a `PMIX_PROC` value or a data array of them names (nothing for any
    /// other value).
    pub fn procs(&self) -> Vec<ProcId> {
        match self {
            Value::Proc(Some(p)) => vec![p.clone()],
            Value::DataArray(a) => a
                .items
                .iter()
                .filter_map(|x| match x {
                    Value::Proc(Some(p)) => Some(p.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    /// String contents if this is a non-NULL `PMIX_STRING`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(Some(b)) => std::str::from_utf8(b).ok(),
            _ => None,
        }
    }
}

/// Outcome of [`Value::compare`] (`pmix_value_cmp_t`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ValueCmp {
    /// `PMIX_EQUAL`.
    Equal,
    /// `PMIX_VALUE1_GREATER`.
    Value1Greater,
    /// `PMIX_VALUE2_GREATER`.
    Value2Greater,
    /// `PMIX_VALUE_TYPE_DIFFERENT`.
    TypeDifferent,
    /// `PMIX_VALUE_INCOMPATIBLE_OBJECTS` (e.g. coordinates in different views).
    IncompatibleObjects,
    /// `PMIX_VALUE_COMPARISON_NOT_AVAIL` (opaque objects, NaN, absent objects).
    NotAvailable,
}

impl ValueCmp {
    /// The `pmix_value_cmp_t` code.
    pub fn raw(self) -> sys::pmix_value_cmp_t {
        match self {
            ValueCmp::Equal => sys::PMIX_EQUAL,
            ValueCmp::Value1Greater => sys::PMIX_VALUE1_GREATER,
            ValueCmp::Value2Greater => sys::PMIX_VALUE2_GREATER,
            ValueCmp::TypeDifferent => sys::PMIX_VALUE_TYPE_DIFFERENT,
            ValueCmp::IncompatibleObjects => sys::PMIX_VALUE_INCOMPATIBLE_OBJECTS,
            ValueCmp::NotAvailable => sys::PMIX_VALUE_COMPARISON_NOT_AVAIL,
        }
    }

    fn of(o: std::cmp::Ordering) -> Self {
        match o {
            std::cmp::Ordering::Less => ValueCmp::Value2Greater,
            std::cmp::Ordering::Equal => ValueCmp::Equal,
            std::cmp::Ordering::Greater => ValueCmp::Value1Greater,
        }
    }

    /// `self`, or `next()` when `self` is `Equal`.
    fn then(self, next: impl FnOnce() -> ValueCmp) -> ValueCmp {
        if self == ValueCmp::Equal {
            next()
        } else {
            self
        }
    }
}

impl Value {
    /// Compare two values the way `PMIx_Value_compare` does: different types are
    /// `TypeDifferent`; numbers compare numerically, strings and byte strings
    /// byte-wise (shorter byte objects first), structs field by field in declaration
    /// order, data arrays by element type, then length, then element by element.
    /// Objects whose order is undefined (hwloc topologies/cpusets that are not the same
    /// object, NaN, absent procs, apps, queries) give `NotAvailable`.
    pub fn compare(&self, other: &Value) -> ValueCmp {
        use self::Value as V;
        use ValueCmp as C;
        if self.dtype() != other.dtype() {
            return C::TypeDifferent;
        }
        match (self, other) {
            (V::Undef, V::Undef) => C::Equal,
            (V::Bool(a), V::Bool(b)) => by_ord(a, b),
            (V::Byte(a), V::Byte(b))
            | (V::Uint8(a), V::Uint8(b))
            | (V::Persist(a), V::Persist(b))
            | (V::Scope(a), V::Scope(b))
            | (V::Range(a), V::Range(b))
            | (V::ProcState(a), V::ProcState(b))
            | (V::JobState(a), V::JobState(b))
            | (V::LinkState(a), V::LinkState(b))
            | (V::AllocDirective(a), V::AllocDirective(b))
            | (V::ResblockDirective(a), V::ResblockDirective(b))
            | (V::AllocInherit(a), V::AllocInherit(b))
            | (V::Command(a), V::Command(b)) => by_ord(a, b),
            (V::Int8(a), V::Int8(b)) => by_ord(a, b),
            (V::Int16(a), V::Int16(b)) => by_ord(a, b),
            (V::Uint16(a), V::Uint16(b))
            | (V::DataType(a), V::DataType(b))
            | (V::IofChannel(a), V::IofChannel(b))
            | (V::Locality(a), V::Locality(b)) => by_ord(a, b),
            (V::Int(a), V::Int(b))
            | (V::Int32(a), V::Int32(b))
            | (V::Pid(a), V::Pid(b))
            | (V::Status(a), V::Status(b)) => by_ord(a, b),
            (V::Uint(a), V::Uint(b))
            | (V::Uint32(a), V::Uint32(b))
            | (V::Rank(a), V::Rank(b))
            | (V::InfoDirectives(a), V::InfoDirectives(b)) => by_ord(a, b),
            (V::Int64(a), V::Int64(b)) | (V::Time(a), V::Time(b)) => by_ord(a, b),
            (V::Uint64(a), V::Uint64(b))
            | (V::Size(a), V::Size(b))
            | (V::DevType(a), V::DevType(b)) => by_ord(a, b),
            (V::Float(a), V::Float(b)) => a.partial_cmp(b).map_or(C::NotAvailable, C::of),
            (V::Double(a), V::Double(b)) => a.partial_cmp(b).map_or(C::NotAvailable, C::of),
            (V::Timeval(a, x), V::Timeval(b, y)) => by_ord(&(a, x), &(b, y)),
            (V::Pointer(a), V::Pointer(b)) => by_ord(a, b),
            (V::String(a), V::String(b)) => by_ord(a, b),
            (V::ProcNspace(a), V::ProcNspace(b)) => by_presence(a, b),
            (V::Proc(a), V::Proc(b)) => by_presence(a, b),
            (V::ByteObject(a), V::ByteObject(b))
            | (V::CompressedString(a), V::CompressedString(b))
            | (V::CompressedByteObject(a), V::CompressedByteObject(b))
            | (V::Regex(a), V::Regex(b))
            | (V::DataBuffer(a), V::DataBuffer(b)) => by_bytes(a, b),
            _ => self.compare_struct(other),
        }
    }

    /// [`Value::compare`] of two values of the same type, for the struct types (and, last,
    /// every other type).
    fn compare_struct(&self, other: &Value) -> ValueCmp {
        use self::Value as V;
        use ValueCmp as C;
        match (self, other) {
            (V::ProcInfo(a), V::ProcInfo(b)) => by_ord(
                &(
                    &a.proc_,
                    &a.hostname,
                    &a.executable_name,
                    a.pid,
                    a.exit_code,
                ),
                &(
                    &b.proc_,
                    &b.hostname,
                    &b.executable_name,
                    b.pid,
                    b.exit_code,
                ),
            ),
            (V::Envar(a), V::Envar(b)) => by_ord(
                &(&a.envar, &a.value, a.separator),
                &(&b.envar, &b.value, b.separator),
            ),
            (V::NodePid(a), V::NodePid(b)) => by_ord(
                &(&a.hostname, a.nodeid, a.pid),
                &(&b.hostname, b.nodeid, b.pid),
            ),
            (V::Regex2(a), V::Regex2(b)) => {
                by_ord(&a.rtype, &b.rtype).then(|| by_bytes(&a.bytes, &b.bytes))
            }
            (V::Regattr(a), V::Regattr(b)) => {
                if a.name.is_none() && b.name.is_none() {
                    return C::NotAvailable;
                }
                by_ord(
                    &(&a.name, &a.string, a.dtype),
                    &(&b.name, &b.string, b.dtype),
                )
                .then(|| {
                    let (x, y) = (
                        a.description.as_deref().unwrap_or(&[]),
                        b.description.as_deref().unwrap_or(&[]),
                    );
                    by_ord(
                        &(a.description.is_some(), x.len(), x),
                        &(b.description.is_some(), y.len(), y),
                    )
                })
            }
            (V::Info(a), V::Info(b)) => by_ord(&a.key, &b.key).then(|| a.value.compare(&b.value)),
            (V::Pdata(a), V::Pdata(b)) => {
                by_ord(&(&a.proc_, &a.key), &(&b.proc_, &b.key)).then(|| a.value.compare(&b.value))
            }
            (V::Value(a), V::Value(b)) => a.compare(b),
            (V::DataArray(a), V::DataArray(b)) => {
                if a.dtype != b.dtype {
                    return C::TypeDifferent;
                }
                by_ord(&a.items.len(), &b.items.len()).then(|| {
                    a.items
                        .iter()
                        .zip(&b.items)
                        .map(|(x, y)| x.compare(y))
                        .find(|c| *c != C::Equal)
                        .unwrap_or(C::Equal)
                })
            }
            _ => self.compare_fabric(other),
        }
    }

    /// [`Value::compare`] of two values of the same type, for the fabric, device and
    /// topology types (and, last, every other type).
    fn compare_fabric(&self, other: &Value) -> ValueCmp {
        use self::Value as V;
        use ValueCmp as C;
        match (self, other) {
            (V::Coord(a), V::Coord(b)) => by_coord(a, b),
            (V::Topo(a), V::Topo(b)) | (V::Cpuset(a), V::Cpuset(b)) => by_opaque(a, b),
            (V::Geometry(a), V::Geometry(b)) => {
                if a.fabric != b.fabric {
                    return C::IncompatibleObjects;
                }
                by_ord(
                    &(&a.uuid, &a.osname, a.coordinates.len()),
                    &(&b.uuid, &b.osname, b.coordinates.len()),
                )
                .then(|| {
                    a.coordinates
                        .iter()
                        .zip(&b.coordinates)
                        .map(|(x, y)| by_coord(x, y))
                        .find(|c| *c != C::Equal)
                        .unwrap_or(C::Equal)
                })
            }
            (V::Device(a), V::Device(b)) => {
                if a.dtype != b.dtype {
                    return C::IncompatibleObjects;
                }
                by_ord(&(&a.uuid, &a.osname), &(&b.uuid, &b.osname))
            }
            (V::DeviceDist(a), V::DeviceDist(b)) => {
                if a.dtype != b.dtype {
                    return C::IncompatibleObjects;
                }
                by_ord(
                    &(&a.uuid, &a.osname, a.mindist, a.maxdist),
                    &(&b.uuid, &b.osname, b.mindist, b.maxdist),
                )
            }
            (V::Endpoint(a), V::Endpoint(b)) => {
                by_ord(&(&a.uuid, &a.osname), &(&b.uuid, &b.osname))
                    .then(|| by_bytes(&a.endpt, &b.endpt))
            }
            (V::ResourceUnit(a), V::ResourceUnit(b)) => {
                if a.dtype != b.dtype {
                    return C::IncompatibleObjects;
                }
                by_ord(&a.count, &b.count)
            }
            (a, b) if a == b => C::Equal,
            _ => C::NotAvailable,
        }
    }
}

/// [`Value::compare`] of two ordered values.
fn by_ord<T: Ord + ?Sized>(a: &T, b: &T) -> ValueCmp {
    ValueCmp::of(a.cmp(b))
}

/// [`Value::compare`] of two byte strings: shorter first, then byte-wise.
fn by_bytes(a: &[u8], b: &[u8]) -> ValueCmp {
    by_ord(&(a.len(), a), &(b.len(), b))
}

/// [`Value::compare`] of two optional values: absent ones have no order.
fn by_presence<T: Ord>(a: &Option<T>, b: &Option<T>) -> ValueCmp {
    match (a, b) {
        (None, None) => ValueCmp::Equal,
        (Some(a), Some(b)) => by_ord(a, b),
        _ => ValueCmp::NotAvailable,
    }
}

/// [`Value::compare`] of two opaque objects (hwloc topologies, cpusets).
fn by_opaque(a: &Opaque, b: &Opaque) -> ValueCmp {
    match (&a.source, &b.source) {
        (None, None) => ValueCmp::NotAvailable,
        (Some(x), Some(y)) if x == y && a.ptr == b.ptr => ValueCmp::Equal,
        (Some(x), Some(y)) if x == y => ValueCmp::NotAvailable,
        _ => ValueCmp::IncompatibleObjects,
    }
}

/// [`Value::compare`] of two coordinates: only those of the same view compare.
fn by_coord(a: &Coord, b: &Coord) -> ValueCmp {
    if a.view != b.view {
        return ValueCmp::IncompatibleObjects;
    }
    by_ord(&(a.coord.len(), &a.coord), &(b.coord.len(), &b.coord))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_keys_begin_with_pmix() {
        let r = |k: &str| Key::new(k).unwrap().is_reserved();
        assert!(r("pmix.job.size"));
        assert!(r("pmixrs.fence.tag"));
        assert!(r("pmixkey"));
        // An application's key named after a pmixrun namespace is its own.
        assert!(!r("job.vm.1234-0-local"));
        assert!(!r("victim"));
    }

    #[test]
    fn key_length_limits() {
        assert!(Key::new("a".repeat(511)).is_ok());
        assert_eq!(
            Key::new("a".repeat(512)).unwrap_err().status,
            sys::PMIX_ERR_BAD_PARAM
        );
        assert!(Key::new("").is_err());
        assert!(Nspace::new("n".repeat(256)).is_err());
    }

    #[test]
    fn undef_directive_reads_true() {
        assert!(Value::Undef.is_true());
        assert!(!Value::Bool(false).is_true());
        assert!(!Value::Int(1).is_true());
    }

    #[test]
    fn compare_orders_numbers_numerically_and_flags_mismatches() {
        assert_eq!(
            Value::Uint32(256).compare(&Value::Uint32(1)),
            ValueCmp::Value1Greater
        );
        assert_eq!(
            Value::Int(-1).compare(&Value::Int(1)),
            ValueCmp::Value2Greater
        );
        assert_eq!(
            Value::string("a").compare(&Value::string("a")),
            ValueCmp::Equal
        );
        assert_eq!(
            Value::Int(1).compare(&Value::Uint32(1)),
            ValueCmp::TypeDifferent
        );
        assert_eq!(
            Value::Double(f64::NAN).compare(&Value::Double(1.0)),
            ValueCmp::NotAvailable
        );
        let c1 = Value::Coord(Box::new(Coord {
            view: 1,
            coord: vec![1],
        }));
        let c2 = Value::Coord(Box::new(Coord {
            view: 2,
            coord: vec![1],
        }));
        assert_eq!(c1.compare(&c2), ValueCmp::IncompatibleObjects);
        let a = Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INT,
            items: vec![Value::Int(1), Value::Int(2)],
        }));
        let b = Value::DataArray(Box::new(DataArray {
            dtype: sys::PMIX_INT,
            items: vec![Value::Int(1), Value::Int(3)],
        }));
        assert_eq!(a.compare(&b), ValueCmp::Value2Greater);
        assert_eq!(a.compare(&a.clone()), ValueCmp::Equal);
    }
}
