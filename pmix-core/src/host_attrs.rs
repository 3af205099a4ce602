//! The attributes a host says it supports, per function (`PMIx_Register_attributes`),
//! kept for the life of the process and reported to `PMIx_Query_info` with
//! `PMIX_QUERY_ATTRIBUTE_SUPPORT` and `PMIX_HOST_ATTRIBUTES` / `PMIX_HOST_FUNCTIONS`
//! (the server answers its clients' such queries from here).

use crate::error::{Error, Result};
use pmix_sys as sys;
use std::collections::BTreeMap;
use std::sync::Mutex;

static REGISTRY: Mutex<BTreeMap<String, Vec<String>>> = Mutex::new(BTreeMap::new());

fn lock() -> std::sync::MutexGuard<'static, BTreeMap<String, Vec<String>>> {
    // A panic while holding the lock cannot leave the map inconsistent.
    REGISTRY.lock().unwrap_or_else(|p| p.into_inner())
}

/// Record that the host supports `attrs` (attribute names such as `"PMIX_TIMEOUT"`) for
/// `function`.
///
/// # Errors
/// `PMIX_ERR_REPEAT_ATTR_REGISTRATION` if `function` was registered before (the first
/// registration stays).
pub fn register(function: &str, attrs: Vec<String>) -> Result<()> {
    let mut m = lock();
    if m.contains_key(function) {
        return Err(Error::new(
            sys::PMIX_ERR_REPEAT_ATTR_REGISTRATION,
            format!("attributes of {} are already registered", function),
        ));
    }
    m.insert(function.to_string(), attrs);
    Ok(())
}

/// Every registered function with its attributes, by function name.
pub fn registered() -> Vec<(String, Vec<String>)> {
    lock().iter().map(|(f, a)| (f.clone(), a.clone())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_registers_once() {
        register("hostattrs_test_fn", vec!["PMIX_TIMEOUT".into()]).unwrap();
        assert_eq!(
            register("hostattrs_test_fn", vec![]).unwrap_err().status,
            sys::PMIX_ERR_REPEAT_ATTR_REGISTRATION
        );
        assert!(registered()
            .iter()
            .any(|(f, a)| f == "hostattrs_test_fn" && a == &["PMIX_TIMEOUT".to_string()]));
    }
}
