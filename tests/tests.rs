//! The single integration-test binary (`autotests = false`); one module per area.

mod cli_position;
mod numbering;
mod readme;
mod stats;
mod validate;
