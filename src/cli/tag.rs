//! `pgn960 tag`: add or correct `Chess960Id` tags, changing no other byte.

use std::io::{self, Write};

use anyhow::Context;
use pgn960::input::Opened;
use pgn960::pipeline::{PipelineConfig, PipelineError};
use pgn960::tag::{TagCounts, TagOptions, apply, tag_batch};

use super::archive::{ArchiveArgs, InputFailure, Progress, for_each_input, run_input, walk_inputs};
use super::in_place::RewriteError;
use super::output::Outputs;
use super::rewrite::{RewriteArgs, Sink};
use super::summary::{self, Rewritten};
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

    #[command(flatten)]
    rewrite: RewriteArgs,

    /// Also write [Chess960Fritz9Id "M"] with the Fritz9 number (1-960).
    #[arg(long)]
    fritz9: bool,

    /// Also tag plain standard-chess games (with 518).
    #[arg(long)]
    include_standard: bool,
}

pub fn run(args: Args) -> anyhow::Result<u8> {
    let sources = args.archive.sources();
    let options = TagOptions {
        include_standard: args.include_standard,
        fritz9: args.fritz9,
    };
    let outputs = Outputs::guarding(&sources).hint(", or use --in-place");
    let mut sink = Sink::of(&args.rewrite, &sources, &outputs, args.archive.threads)?;

    let config = args.archive.pipeline();
    let mut progress = args.archive.progress(&sources);
    let mut total = TagCounts::default();
    let mut rewritten = Vec::new();
    let inputs = if let Sink::InPlace(in_place) = &sink {
        let in_place = *in_place;
        walk_inputs(
            &sources,
            &mut progress,
            |source| Ok(in_place.open_source(source)?),
            |source, mut original, progress| {
                let opened = original.take_input();
                let settings = original.settings();
                let before = total;
                let result = original.rewrite(|out| {
                    tag_stream(opened, config, options, out, progress, &mut total)
                        .map_err(RewriteError::from)?;
                    Ok(total.changed_since(&before))
                });
                match result {
                    Ok(changed) => {
                        if changed {
                            rewritten.push(Rewritten::new(source, settings));
                        }
                        Ok(())
                    }
                    Err(failure) => {
                        // The games were read, but the file keeps its old ids.
                        total = TagCounts {
                            kinds: total.kinds,
                            ..before
                        };
                        Err(failure.into())
                    }
                }
            },
        )?
    } else {
        for_each_input(&sources, &mut progress, |_, opened, progress| {
            let out = sink
                .stream()
                .expect("a sink that is no --in-place has a stream");
            let result = tag_stream(opened, config, options, out, progress, &mut total)
                .map_err(|err| InputFailure::of(err, || args.rewrite.output_name()));
            sink.end_input();
            result
        })?
    };
    sink.finish(inputs.opened > 0)
        .with_context(|| args.rewrite.output_name())?;
    progress.finish();
    if !args.archive.quiet && inputs.opened > 0 {
        print_summary(&total, args.rewrite.check, &rewritten);
    }
    outputs.settle(if inputs.failed {
        EXIT_ERROR
    } else if args.rewrite.check && total.changes() {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    })
}

/// Tags one input into `out`, adding its games to `total` as they go out
/// (so that an input cut short still counts the games read before).
fn tag_stream(
    opened: Opened,
    config: PipelineConfig,
    options: TagOptions,
    out: &mut dyn Write,
    progress: &mut Progress,
    total: &mut TagCounts,
) -> Result<(), PipelineError<io::Error>> {
    run_input(
        opened,
        config,
        progress,
        |batch| tag_batch(batch, options),
        |batch, (edits, batch_counts)| {
            total.merge(&batch_counts);
            apply(&batch.data, &edits, out)
        },
    )
}

fn print_summary(counts: &TagCounts, check: bool, rewritten: &[Rewritten]) {
    let (would, tagged) = if check {
        (
            "would be ",
            format!("{} to tag", summary::count(counts.tagged, "game", "games")),
        )
    } else {
        (
            "",
            format!("tagged {}", summary::count(counts.tagged, "game", "games")),
        )
    };
    let mut text = format!(
        "pgn960 tag: {}\n  {tagged}: {} {would}added, {} {would}rewritten, {} already right\n",
        summary::games_by_kind(&counts.kinds, "read"),
        summary::count(counts.added, "id tag", "id tags"),
        counts.rewritten,
        counts.already_right,
    );
    if counts.removed > 0 {
        text.push_str(&format!(
            "  {} {would}removed: a second of a game's id tags\n",
            summary::count(counts.removed, "repeated id tag", "repeated id tags"),
        ));
    }
    if counts.left_alone > 0 {
        text.push_str(&format!(
            "  left as {}: an id tag that does not end on its line, or no safe place for a new one\n",
            if counts.left_alone == 1 {
                "it was: 1 game".to_string()
            } else {
                format!("they were: {} games", counts.left_alone)
            }
        ));
    }
    summary::push_rewritten(&mut text, rewritten);
    eprint!("{text}");
}
