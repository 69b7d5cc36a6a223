//! The colour of each token role, as `hex` and the teaching outputs paint them (ANSI SGR), so a
//! tag is the same yellow wherever it is shown.

use tfr_core::annotate::Role;

pub fn colour(role: Role) -> &'static str {
    match role {
        Role::Frame => "\x1b[34m",
        Role::BadCrc | Role::Unparsed => "\x1b[1;31m",
        Role::Tag => "\x1b[33m",
        Role::Length => "\x1b[35m",
        Role::Value => "\x1b[32m",
        Role::Data => "\x1b[36m",
    }
}
