//! A hard limit on the memory of a child process, enforced by the kernel:
//! going over it fails the run however briefly it happens, and no
//! polling can miss it.
//!
//! The child runs under `RLIMIT_DATA` (set with setrlimit(2) between fork
//! and exec, as `prlimit --data` does): since Linux 4.7 it bounds every
//! private writable mapping, that is the heap, anonymous maps and thread
//! stacks, as address space committed rather than pages touched. That is
//! a bound from above on the memory the process can make resident of its
//! own: a mapped input (read-only), the binary's code and the page cache
//! of what it writes are not counted, as the kernel can take those back.
//! An allocation past the limit fails at once: Rust aborts the process
//! ("memory allocation of N bytes failed", SIGABRT), a thread that cannot
//! get its stack panics, and the test sees either.
//!
//! No cgroup is needed (nor root): the tests run the same wherever they
//! run on Linux. Elsewhere they say they were skipped (under CI, where a
//! skip is a failure, they fail).

use std::io::{self, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use crate::common::say_skipped;

/// The bound the guide promises for any command and any input: 64 MiB.
pub const LIMIT: u64 = 64 << 20;

/// What a thread's stack adds to the data of a process: its whole
/// reservation (Rust's default, 2 MiB), of which a thread touches a few
/// KiB. The limit on data is [`LIMIT`] and this much for each thread the
/// command may start, so that it bounds the memory the command uses, not
/// the address space its stacks reserve.
const STACK: u64 = 2 << 20;

/// Threads a command starts beside its `--threads` workers: the reader,
/// the writer, an encoder, a decoder.
const OWN_THREADS: u64 = 4;

/// The limit on data for `pgn960 ARGS`: [`LIMIT`], and a stack for each
/// of its threads (`--threads`, else as many as the machine has cores).
fn data_limit(args: &[String]) -> u64 {
    let threads = args
        .iter()
        .position(|arg| arg == "--threads")
        .and_then(|at| args.get(at + 1)?.parse().ok())
        .unwrap_or_else(|| thread::available_parallelism().map_or(1, |n| n.get() as u64));
    LIMIT + (threads + OWN_THREADS) * STACK
}

/// How the kernel holds a child to its limit: `RLIMIT_DATA`.
#[derive(Clone, Debug)]
pub struct Enforcer;

impl Enforcer {
    /// The enforcer, on Linux; `None` elsewhere (the test `test` said to
    /// be skipped).
    pub fn get(test: &str) -> Option<Enforcer> {
        if cfg!(target_os = "linux") {
            Some(Enforcer)
        } else {
            say_skipped(test, "RLIMIT_DATA bounds anonymous memory only on Linux");
            None
        }
    }

    /// What the limit is, for messages.
    pub fn describe(&self) -> String {
        format!(
            "{} MiB of data and the threads' stacks (RLIMIT_DATA)",
            LIMIT >> 20
        )
    }
}

/// Writes a child's standard input.
pub type Writer = Box<dyn FnOnce(&mut dyn Write) + Send>;

/// What a child's standard input is.
pub enum Feed {
    /// Nothing (`/dev/null`).
    Nothing,
    /// These bytes, written from a thread of the test.
    Bytes(Vec<u8>),
    /// Whatever this writes, from a thread of the test: a generator that
    /// streams an input never stored whole. It should stop at the first
    /// error (the child has ended).
    Stream(Writer),
}

/// How a run under the limit went.
pub struct Limited {
    pub status: ExitStatus,
    /// Standard output, when kept; else empty.
    pub stdout: Vec<u8>,
    /// How many bytes went to standard output.
    pub stdout_len: u64,
    pub stderr: String,
    /// Whether the child went over the limit: an allocation that failed
    /// (Rust's abort, a C program's segmentation fault, an error of
    /// `ENOMEM`).
    pub over_limit: bool,
    pub elapsed: Duration,
}

impl Limited {
    /// The exit code; -1 when a signal ended the child.
    pub fn code(&self) -> i32 {
        self.status.code().unwrap_or(-1)
    }

    /// Asserts the child stayed within the limit and ended by itself with
    /// one of `codes`.
    pub fn assert_within(&self, enforcer: &Enforcer, codes: &[i32], what: &str) {
        assert!(
            !self.over_limit,
            "{what}: went over {} (status {}): {}",
            enforcer.describe(),
            self.status,
            self.stderr
        );
        assert!(
            codes.contains(&self.code()),
            "{what}: exit {} (status {}), not one of {codes:?}; stderr:\n{}",
            self.code(),
            self.status,
            self.stderr
        );
        assert!(
            !self.stderr.contains("panicked"),
            "{what} panicked:\n{}",
            self.stderr
        );
    }
}

/// A command to run under the limit.
pub struct Run {
    args: Vec<String>,
    feed: Feed,
    keep_stdout: bool,
    time_limit: Duration,
    slow_reader: Option<Duration>,
    /// The limit instead of the enforcer's own (for a test of the harness).
    limit: Option<u64>,
    /// Variables set in the child's environment.
    env: Vec<(String, String)>,
}

impl Run {
    /// `pgn960 ARGS`, with nothing on standard input, standard output
    /// counted and dropped, and two minutes to finish.
    pub fn pgn960<S: AsRef<str>>(args: &[S]) -> Run {
        Run::program(env!("CARGO_BIN_EXE_pgn960"), args)
    }

    /// `PROGRAM ARGS`, otherwise as [`Run::pgn960`].
    pub fn program<S: AsRef<str>>(program: &str, args: &[S]) -> Run {
        let mut all = vec![program.to_string()];
        all.extend(args.iter().map(|a| a.as_ref().to_string()));
        Run {
            args: all,
            feed: Feed::Nothing,
            keep_stdout: false,
            time_limit: Duration::from_secs(120),
            slow_reader: None,
            limit: None,
            env: Vec::new(),
        }
    }

    /// Sets `key` to `value` in the child's environment.
    pub fn env(mut self, key: &str, value: &str) -> Self {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    pub fn feed(mut self, feed: Feed) -> Self {
        self.feed = feed;
        self
    }

    pub fn keep_stdout(mut self) -> Self {
        self.keep_stdout = true;
        self
    }

    /// Reads standard output only after `pause`, as a slow disk or pipe
    /// would: the batches in flight then fill up.
    pub fn slow_reader(mut self, pause: Duration) -> Self {
        self.slow_reader = Some(pause);
        self
    }

    /// Holds the child to `bytes` rather than the enforcer's limit.
    pub fn limit(mut self, bytes: u64) -> Self {
        self.limit = Some(bytes);
        self
    }

    /// Runs the command under `enforcer`'s limit, waiting for it at most
    /// the time limit (a child still running then fails the test).
    pub fn run(self, enforcer: &Enforcer) -> Limited {
        let limit = self.limit.unwrap_or_else(|| data_limit(&self.args));
        let mut command = Command::new(&self.args[0]);
        command
            .args(&self.args[1..])
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(match self.feed {
                Feed::Nothing => Stdio::null(),
                _ => Stdio::piped(),
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        limit_data_on_exec(&mut command, limit);
        let start = Instant::now();
        let mut child = command.spawn().expect("the program starts");
        let streams = Streams::start(&mut child, self.feed, self.keep_stdout, self.slow_reader);
        let status = wait_at_most(&mut child, self.time_limit);
        let elapsed = start.elapsed();
        let (stdout, stdout_len, stderr) = streams.finish();
        let Some(status) = status else {
            panic!(
                "{:?} did not finish within {:?} under {}",
                &self.args[1..],
                self.time_limit,
                enforcer.describe()
            );
        };
        let over_limit = status.signal() == Some(libc::SIGABRT)
            || status.signal() == Some(libc::SIGSEGV)
            || stderr.contains("memory allocation of")
            || stderr.contains("os error 12");
        Limited {
            status,
            stdout,
            stdout_len,
            stderr,
            over_limit,
            elapsed,
        }
    }
}

/// Has the child limit its own data (heap, anonymous maps, thread stacks)
/// to `bytes` before it runs the program, as `prlimit --data` does.
fn limit_data_on_exec(command: &mut Command, bytes: u64) {
    // SAFETY: between fork and exec the closure only calls setrlimit(2),
    // which is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// The threads that feed a child and drain its output.
struct Streams {
    feeder: Option<thread::JoinHandle<()>>,
    stdout: thread::JoinHandle<(Vec<u8>, u64)>,
    stderr: thread::JoinHandle<String>,
}

impl Streams {
    fn start(child: &mut Child, feed: Feed, keep: bool, pause: Option<Duration>) -> Streams {
        let input = child.stdin.take();
        let feeder = input.map(|mut input| {
            thread::spawn(move || match feed {
                Feed::Nothing => {}
                Feed::Bytes(bytes) => {
                    let _ = input.write_all(&bytes);
                }
                Feed::Stream(write) => write(&mut input),
            })
        });
        let mut out = child.stdout.take().expect("piped stdout");
        let stdout = thread::spawn(move || {
            if let Some(pause) = pause {
                thread::sleep(pause);
            }
            let mut kept = Vec::new();
            let mut len = 0u64;
            let mut buf = vec![0; 1 << 16];
            loop {
                match out.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        len += n as u64;
                        if keep {
                            kept.extend_from_slice(&buf[..n]);
                        }
                    }
                }
            }
            (kept, len)
        });
        let mut err = child.stderr.take().expect("piped stderr");
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            text
        });
        Streams {
            feeder,
            stdout,
            stderr,
        }
    }

    fn finish(self) -> (Vec<u8>, u64, String) {
        if let Some(feeder) = self.feeder {
            feeder.join().expect("the feeder ends");
        }
        let (stdout, len) = self.stdout.join().expect("the stdout reader ends");
        let stderr = self.stderr.join().expect("the stderr reader ends");
        (stdout, len, stderr)
    }
}

/// Waits for `child` at most `limit`; kills it and returns `None` after.
fn wait_at_most(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("waitable") {
            return Some(status);
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        thread::sleep(Duration::from_millis(10));
    }
}

/// The harness itself: a program that takes more than the limit is
/// stopped, and one that stays under it is not, so that a test passing
/// under it means something. A shell holds a string of 96 MiB (over the
/// limit, then gone), or of 8 MiB; `sh` is everywhere the tests run.
#[test]
fn the_limit_stops_a_program_that_goes_over_it() {
    let Some(enforcer) = Enforcer::get("the_limit_stops_a_program_that_goes_over_it") else {
        return;
    };
    let hold = |mib: u64| {
        format!(
            "x=$(head -c {} /dev/zero | tr '\\0' a); echo ${{#x}}",
            mib << 20
        )
    };
    let over = Run::program("sh", &["-c", &hold(96)]).run(&enforcer);
    assert!(
        over.over_limit && over.code() != 0,
        "a shell holding 96 MiB ran under {} (status {})",
        enforcer.describe(),
        over.status
    );
    let under = Run::program("sh", &["-c", &hold(8)])
        .keep_stdout()
        .run(&enforcer);
    under.assert_within(&enforcer, &[0], "a shell holding 8 MiB");
    assert_eq!(under.stdout, format!("{}\n", 8 << 20).as_bytes());
    // The same 96 MiB under a limit of 1 GiB (the shell's string grows by
    // doubling): the limit is the one set.
    let larger = Run::program("sh", &["-c", &hold(96)])
        .keep_stdout()
        .limit(1 << 30)
        .run(&enforcer);
    larger.assert_within(&enforcer, &[0], "a shell holding 96 MiB under 1 GiB");
}
