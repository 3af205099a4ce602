//! The engine's one error type. `capi` maps it to a `pmix_status_t` in one place
//! ([`Error::status`]).

use pmix_sys as sys;
use std::fmt;

/// An error from the engine, with the status it maps to and a context message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    /// The PMIx status code this error surfaces as.
    pub status: sys::pmix_status_t,
    /// Human-readable context, for logs.
    pub context: String,
}

impl Error {
    /// An error with the given status and context.
    pub fn new(status: sys::pmix_status_t, context: impl Into<String>) -> Self {
        Error {
            status,
            context: context.into(),
        }
    }
    /// `PMIX_ERR_BAD_PARAM` with context.
    pub fn bad_param(context: impl Into<String>) -> Self {
        Self::new(sys::PMIX_ERR_BAD_PARAM, context)
    }
    /// `PMIX_ERR_NOT_FOUND` with context.
    pub fn not_found(context: impl Into<String>) -> Self {
        Self::new(sys::PMIX_ERR_NOT_FOUND, context)
    }
    /// `PMIX_ERR_NOT_SUPPORTED` with context.
    pub fn not_supported(context: impl Into<String>) -> Self {
        Self::new(sys::PMIX_ERR_NOT_SUPPORTED, context)
    }
    /// `PMIX_ERR_UNPACK_FAILURE` with context (malformed or truncated input).
    pub fn unpack(context: impl Into<String>) -> Self {
        Self::new(sys::PMIX_ERR_UNPACK_FAILURE, context)
    }
    /// The status code.
    pub fn status(&self) -> sys::pmix_status_t {
        self.status
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = sys::status_text(self.status).unwrap_or("UNKNOWN");
        write!(f, "{} ({}): {}", name, self.status, self.context)
    }
}

impl std::error::Error for Error {}

/// Result alias used throughout the engine.
pub type Result<T> = std::result::Result<T, Error>;
