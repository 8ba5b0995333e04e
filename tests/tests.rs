//! The single integration-test binary (`autotests = false`); one module per area.

mod boundaries;
mod bugs;
mod cli_position;
mod common;
mod docs;
mod draw;
mod filter;
mod filter_properties;
mod fix;
mod fix_properties;
mod fuzz_regressions;
mod games;
mod hardening;
mod id_oracle;
mod in_place;
mod meaning;
mod numbering;
mod outputs;
mod samples;
mod shell;
mod stats;
mod stats_research;
mod stats_simulation;
mod tag;
mod tag_properties;
mod validate;
