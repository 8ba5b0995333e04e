//! `pgn960 tag`: add or correct `Chess960Id` tags, changing no other byte.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pgn960::input::{self, Opened, Source};
use pgn960::pipeline::{PipelineConfig, PipelineError};
use pgn960::tag::{TagCounts, TagOptions, apply, tag_batch};

use super::archive::{ArchiveArgs, Progress, refuse_output_among_inputs, run_input};
use super::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};

/// Add or correct the Chess960Id tag of every Chess960 game.
///
/// Every other byte of the input reaches the output unchanged: comments,
/// line endings, tag order, broken games. A game gets `[Chess960Id "N"]`
/// (Scharnagl number) when its Variant names Chess960 or its FEN is a
/// Chess960 start array other than 518; a wrong existing value is rewritten
/// in place. Double FRC, set-up and unreadable games are passed through.
#[derive(clap::Args, Debug)]
#[command(after_help = "Examples:
  pgn960 tag games.pgn > tagged.pgn
  pgn960 tag archive.pgn.zst -o tagged.pgn
  pgn960 tag --in-place --fritz9 2024/*.pgn
  pgn960 tag --check archive.pgn || echo 'archive needs tagging'
  zstdcat dump.pgn.zst | pgn960 tag - > tagged.pgn")]
pub struct Args {
    #[command(flatten)]
    archive: ArchiveArgs,

    /// Write to FILE instead of standard output.
    #[arg(short, long, value_name = "FILE", conflicts_with_all = ["in_place", "check"])]
    output: Option<PathBuf>,

    /// Rewrite each input file (through a temporary file in the same
    /// directory, renamed over the original only when complete); a
    /// compressed file keeps its compression. Files that need no change are
    /// not touched.
    #[arg(long, conflicts_with = "check")]
    in_place: bool,

    /// Write nothing; exit 1 when any game would change.
    #[arg(long)]
    check: bool,

    /// Also write [Chess960Fritz9Id "M"] with the Fritz9 number (1-960).
    #[arg(long)]
    fritz9: bool,

    /// Also tag plain standard-chess games (with 518).
    #[arg(long)]
    include_standard: bool,
}

/// Where tagged games go.
enum Sink {
    /// `--check`: nowhere.
    Nowhere,
    /// Standard output or `-o FILE`, all inputs one after another.
    Stream(Box<dyn Write>),
    /// `--in-place`: each input to its own temporary file.
    InPlace,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let sources = args.archive.sources();
    let options = TagOptions {
        include_standard: args.include_standard,
        fritz9: args.fritz9,
    };
    if args.in_place && sources.contains(&Source::Stdin) {
        bail!("--in-place needs input files, not standard input");
    }
    let mut sink = if args.check {
        Sink::Nowhere
    } else if args.in_place {
        Sink::InPlace
    } else if let Some(path) = &args.output {
        refuse_output_among_inputs(path, &sources)?;
        let file = File::create(path).with_context(|| format!("{}", path.display()))?;
        Sink::Stream(Box::new(file))
    } else {
        // Batches go out as vectored writes of large spans: the standard
        // output's own line buffering would only add a copy.
        let stdout = io::stdout()
            .as_fd()
            .try_clone_to_owned()
            .context("standard output")?;
        Sink::Stream(Box::new(File::from(stdout)))
    };

    let mut progress = args.archive.progress(&sources);
    let mut total = TagCounts::default();
    let mut failed = false;
    for source in &sources {
        let result =
            input::open(source)
                .map_err(TagError::Input)
                .and_then(|opened| match &mut sink {
                    Sink::Nowhere => {
                        tag_stream(opened, &args, options, &mut io::sink(), &mut progress)
                    }
                    Sink::Stream(out) => tag_stream(opened, &args, options, out, &mut progress),
                    Sink::InPlace => tag_in_place(opened, source, &args, options, &mut progress),
                });
        match result {
            Ok(counts) => total.merge(&counts),
            Err(TagError::Input(err)) => {
                progress.finish();
                eprintln!("pgn960: {source}: {err}");
                failed = true;
            }
            Err(TagError::InPlace(err)) => {
                progress.finish();
                eprintln!("pgn960: {source}: not rewritten, left as it was: {err}");
                failed = true;
            }
            Err(TagError::Output(err)) => {
                progress.finish();
                return Err(err).context(output_name(&args));
            }
        }
    }
    if let Sink::Stream(mut out) = sink {
        out.flush().context(output_name(&args))?;
    }
    progress.finish();
    if !args.archive.quiet {
        print_summary(&total, args.check);
    }
    Ok(if failed {
        EXIT_ERROR
    } else if args.check && total.changes() {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// An input problem ends that input; so does a failure to rewrite it in
/// place (the original stays as it was); an output problem ends the run.
enum TagError {
    Input(io::Error),
    InPlace(io::Error),
    Output(io::Error),
}

fn output_name(args: &Args) -> String {
    match &args.output {
        Some(path) => format!("writing {}", path.display()),
        None => "writing output".to_string(),
    }
}

fn tag_stream(
    opened: Opened,
    args: &Args,
    options: TagOptions,
    out: &mut impl Write,
    progress: &mut Progress,
) -> Result<TagCounts, TagError> {
    let mut counts = TagCounts::default();
    let config = PipelineConfig {
        line_numbers: false, // tag shows no line numbers
        ..args.archive.pipeline()
    };
    let result = run_input(
        opened,
        config,
        progress,
        |batch| tag_batch(batch, options),
        |batch, (edits, batch_counts)| {
            counts.merge(&batch_counts);
            apply(&batch.data, &edits, out)
        },
    );
    match result {
        Ok(()) => Ok(counts),
        Err(PipelineError::Read(err)) => Err(TagError::Input(err)),
        Err(PipelineError::Consume(err)) => Err(TagError::Output(err)),
    }
}

fn tag_in_place(
    opened: Opened,
    source: &Source,
    args: &Args,
    options: TagOptions,
    progress: &mut Progress,
) -> Result<TagCounts, TagError> {
    let given = source.path().expect("--in-place refuses standard input");
    // Through a symbolic link, the file it points to is rewritten (in its
    // own directory) and the link stays a link.
    let path = &fs::canonicalize(given).map_err(TagError::InPlace)?;
    let compression = opened.compression;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let file_name = path.file_name().map_or_else(
        || "input".into(),
        |name| name.to_string_lossy().into_owned(),
    );
    let temp = tempfile::Builder::new()
        .prefix(&format!(".{file_name}."))
        .suffix(input::IN_PLACE_TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(|err| {
            TagError::InPlace(io::Error::new(
                err.kind(),
                format!(
                    "cannot create a temporary file in {}: {}",
                    dir.display(),
                    // tempfile's message would repeat the temporary's name.
                    err.raw_os_error().map_or_else(
                        || err.to_string(),
                        |code| { io::Error::from_raw_os_error(code).to_string() }
                    )
                ),
            ))
        })?;
    let temp_path = temp.path().to_path_buf();
    let writing = |err: io::Error| {
        TagError::InPlace(io::Error::new(
            err.kind(),
            format!("writing {}: {err}", temp_path.display()),
        ))
    };
    let mut encoder = compression
        .encoder(BufWriter::with_capacity(1 << 20, temp.as_file()))
        .map_err(writing)?;
    let counts = match tag_stream(opened, args, options, &mut encoder, progress) {
        Err(TagError::Output(err)) => return Err(writing(err)),
        other => other?,
    };
    if !counts.changes() {
        return Ok(counts); // the temporary file is removed on drop
    }
    let writer = encoder.finish().map_err(writing)?;
    writer
        .into_inner()
        .map_err(|err| writing(err.into_error()))?;
    let permissions = fs::metadata(path).map_err(writing)?.permissions();
    temp.as_file()
        .set_permissions(permissions)
        .and_then(|()| temp.as_file().sync_all())
        .map_err(writing)?;
    // Only now, with the new file complete and on disk, does the original
    // go: rename is atomic, so a kill leaves one file or the other.
    temp.persist(path).map_err(|err| writing(err.error))?;
    Ok(counts)
}

fn print_summary(counts: &TagCounts, check: bool) {
    let verb = if check { "would be " } else { "" };
    eprintln!(
        "pgn960 tag: {} games read, {} Chess960 games\n  \
         id tags: {} {verb}added, {} {verb}rewritten, {} already right\n  \
         left as they are: {} Double FRC, {} set-up or other variant, {} standard, {} unreadable",
        counts.games,
        counts.chess960,
        counts.added,
        counts.rewritten,
        counts.already_right,
        counts.double_frc,
        counts.set_up,
        counts.standard,
        counts.unreadable,
    );
}
