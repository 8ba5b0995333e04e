//! The `pgn960` binary: parses the command line and hands over to the library.
//!
//! Everything that knows about terminals, exit codes and argument syntax
//! lives here and in `cli/`; the library never sees clap types.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    bound_freed_memory();
    cli::run()
}

/// Allocations of 256 KiB and more (batches' records, a batch's rows, the
/// Parquet writer's pages) go straight to the kernel and back once freed.
///
/// By default glibc raises that threshold to the size of every large
/// block freed (up to 32 MiB), after which such blocks come from each
/// thread's arena and stay there once freed: on eight threads, `games` on
/// a million tiny games held 99 MiB, 57 MiB with the threshold fixed.
fn bound_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets allocator parameters; called before any
    // thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 10);
    }
}
