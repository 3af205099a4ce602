//! `Wire` implementations for the engine's data model (`value.rs`) and sequences.
//! (Filled in by the codec work: Nspace, Key, ProcId, Value of every type, Info, …)
