//! The translation of [`super::Xlate`] without a server: requests out, replies in.
