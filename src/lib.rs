//! tfr-inspect: the application over [`tfr_core`], its scriptable subcommands ([`cli`]) and its
//! interactive inspector ([`tui`]).
//!
//! The core's modules are not re-exported: the application and its tests name them as
//! `tfr_core::frame`, so a path always says which crate it is in.

pub mod cli;
pub mod hint;
pub mod remote;
pub mod status;
pub mod tui;
