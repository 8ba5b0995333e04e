//! The single integration-test binary (`autotests = false`); one module per area.

mod cli_position;
mod common;
mod draw;
mod fix;
mod fix_properties;
mod fuzz_regressions;
mod hardening;
mod meaning;
mod numbering;
mod outputs;
mod readme;
mod samples;
mod shell;
mod stats;
mod tag;
mod tag_properties;
mod validate;
