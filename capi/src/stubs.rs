//! Exports whose runtime arrives in later issues: each returns PMIX_ERR_NOT_SUPPORTED.
