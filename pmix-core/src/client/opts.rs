use super::*;

/// The directives of a Get, decoded.
#[derive(Debug, Clone, Default)]
pub struct GetOpts {
    /// `PMIX_OPTIONAL`: local data only.
    pub optional: bool,
    /// `PMIX_IMMEDIATE`: the server's store only, no waiting.
    pub immediate: bool,
    /// `PMIX_GET_REFRESH_CACHE`.
    pub refresh: bool,
    /// `PMIX_TIMEOUT`.
    pub timeout: Option<Duration>,
    /// `PMIX_SESSION_INFO`/`JOB_INFO`/`APP_INFO`/`NODE_INFO`.
    pub level: Level,
    /// `PMIX_DATA_SCOPE`.
    pub scope: Option<u8>,
    /// `PMIX_APPNUM` qualifier (with `PMIX_APP_INFO`).
    pub appnum: Option<u32>,
    /// `PMIX_HOSTNAME` qualifier (with `PMIX_NODE_INFO`).
    pub hostname: Option<String>,
    /// `PMIX_NODEID` qualifier (with `PMIX_NODE_INFO`).
    pub nodeid: Option<u32>,
    /// Every directive, passed on to the server.
    pub info: Vec<Info>,
}

/// `PMIX_TIMEOUT` (seconds) from a directive list, if positive.
pub fn timeout_of(info: &[Info]) -> Option<Duration> {
    info.iter()
        .find(|i| i.key.as_str() == keys::TIMEOUT)
        .and_then(|i| match i.value {
            Value::Int(v) | Value::Int32(v) => u64::try_from(v).ok(),
            _ => i.value.as_u64(),
        })
        .filter(|&s| s > 0)
        .map(Duration::from_secs)
}

pub(super) fn flag(info: &[Info], key: &str) -> bool {
    info.iter()
        .any(|i| i.key.as_str() == key && i.value.is_true())
}

impl GetOpts {
    /// A Get without directives (what [`GetOpts::default`] and an empty list give).
    pub const NONE: GetOpts = GetOpts {
        optional: false,
        immediate: false,
        refresh: false,
        timeout: None,
        level: Level::Any,
        scope: None,
        appnum: None,
        hostname: None,
        nodeid: None,
        info: Vec::new(),
    };

    /// Decode the directives of a Get.
    pub fn from_info(info: &[Info]) -> GetOpts {
        if info.is_empty() {
            return GetOpts::default();
        }
        let level = if flag(info, keys::NODE_INFO) {
            Level::Node
        } else if flag(info, keys::APP_INFO) {
            Level::App
        } else if flag(info, keys::JOB_INFO) || flag(info, keys::SESSION_INFO) {
            Level::Job
        } else {
            Level::Any
        };
        GetOpts {
            optional: flag(info, keys::OPTIONAL),
            immediate: flag(info, keys::IMMEDIATE),
            refresh: flag(info, keys::GET_REFRESH_CACHE),
            timeout: timeout_of(info),
            level,
            scope: info
                .iter()
                .find(|i| i.key.as_str() == keys::DATA_SCOPE)
                .and_then(|i| match i.value {
                    Value::Scope(s) => Some(s),
                    _ => i.value.as_u64().map(|v| v as u8),
                }),
            appnum: (level == Level::App)
                .then(|| {
                    info.iter()
                        .find(|i| i.key.as_str() == keys::APPNUM)
                        .and_then(|i| i.value.as_u64())
                        .map(|v| v as u32)
                })
                .flatten(),
            hostname: (level == Level::Node)
                .then(|| {
                    info.iter()
                        .find(|i| i.key.as_str() == keys::HOSTNAME)
                        .and_then(|i| i.value.as_str().map(str::to_string))
                })
                .flatten(),
            nodeid: (level == Level::Node)
                .then(|| {
                    info.iter()
                        .find(|i| i.key.as_str() == keys::NODEID)
                        .and_then(|i| i.value.as_u64())
                        .map(|v| v as u32)
                })
                .flatten(),
            info: info.to_vec(),
        }
    }
}

/// For a Get that names qualifiers: the container key to fetch instead, and the
/// selection to apply to it.
pub(super) type Selector = Box<dyn FnOnce(Value) -> Result<Value> + Send>;

pub(super) fn qualified_get(key: Option<&Key>, opts: &GetOpts) -> Option<(Key, Selector)> {
    // The common Get names no qualifier: decide that before copying anything.
    let key = key?;
    if !opts
        .info
        .iter()
        .any(|i| i.flags & sys::PMIX_INFO_QUALIFIER != 0)
    {
        return None;
    }
    let k = key.clone();
    let quals = qualified::requested(&opts.info);
    if quals.is_empty() {
        return None;
    }
    let container = Key::new(qualified::CONTAINER).ok()?;
    Some((
        container,
        Box::new(move |c: Value| {
            qualified::select(&c, &k, &quals)
                .ok_or_else(|| Error::not_found(format!("no value of {} with those qualifiers", k)))
        }),
    ))
}

pub(super) fn without_qualifiers(opts: &GetOpts) -> GetOpts {
    let mut o = opts.clone();
    o.info.retain(|i| i.flags & sys::PMIX_INFO_QUALIFIER == 0);
    o
}
