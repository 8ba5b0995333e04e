//! Start-position classification from arbitrary tag values: the input and what is asserted are described at
//! `classify_tags` in `tests/fuzz_checks.rs`, which `cargo test` also runs over
//! the regression inputs and seeded random inputs (a stable harness).
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/id_oracle.rs"]
#[allow(dead_code)]
mod id_oracle;

#[path = "../../tests/fuzz_checks.rs"]
#[allow(dead_code)]
mod fuzz_checks;

fuzz_target!(|data: &[u8]| fuzz_checks::classify_tags(data));
