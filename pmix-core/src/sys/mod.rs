#![allow(unsafe_code)]
//! (to be written)
