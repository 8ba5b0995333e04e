//! The game splitter plus the tag rewrite, on arbitrary bytes.
//!
//! Input: byte 0 chooses the options (bit 0 `include_standard`, bit 1
//! `fritz9`) and the batch size (bits 2..8, 1 to 64 bytes, so that tiny
//! batches cut games at every possible place); the rest is the PGN.
//!
//! Asserts: the batches' bytes concatenate to the input; the tagged output
//! differs from the input only in id tags and their line endings (by the
//! splitter's reading and by `tests/id_oracle.rs`, which reads only bytes); tagging
//! the output again gives the same bytes; the input written to a file and
//! read through the pipeline (which maps a file and hands out stretches of
//! the map) gives the same output, also when the file is split on several
//! threads at once from `[Event` lines (every one, or a few bytes apart).
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use pgn960::compression::Compression;
use pgn960::input::{MmapChoice, Source, open};
use pgn960::pipeline::{PipelineConfig, run_reader_split_every};
use pgn960::split::GameReader;
use pgn960::tag::{TagOptions, apply, strip_ids, tag_batch};

#[path = "../../tests/id_oracle.rs"]
mod id_oracle;

fuzz_target!(|data: &[u8]| {
    let Some((&head, input)) = data.split_first() else {
        return;
    };
    let options = TagOptions {
        include_standard: head & 1 != 0,
        fritz9: head & 2 != 0,
    };
    let batch_bytes = usize::from(head >> 2) + 1;

    let (joined, once) = tag(input, batch_bytes, options);
    assert!(
        joined == input,
        "the batches do not concatenate to the input"
    );
    assert!(
        strip_ids(&once) == strip_ids(input),
        "tagging changed bytes outside the id tags"
    );
    // The same, by an oracle that reads bytes without the splitter.
    if let Some(change) = id_oracle::id_edits_only(input, &once) {
        panic!("{change}");
    }
    let (_, twice) = tag(&once, batch_bytes, options);
    assert!(twice == once, "tagging the output again changed it");
    for stretch in [usize::MAX, 1, 40] {
        if let Some(mapped) = tag_mapped(input, batch_bytes, options, stretch) {
            assert!(
                mapped == once,
                "a mapped file split from [Event lines {stretch} bytes apart tags differently \
                 from the same bytes streamed"
            );
        }
    }
});

/// Tags `input` written to a file, through the pipeline as the binary does
/// (split on several threads from `[Event` lines `stretch` bytes apart);
/// `None` when the file does not open as plain PGN (its first bytes are a
/// compression format's or another file type's magic) or holds a NUL byte.
fn tag_mapped(
    input: &[u8],
    batch_bytes: usize,
    options: TagOptions,
    stretch: usize,
) -> Option<Vec<u8>> {
    let mut file = tempfile::NamedTempFile::new_in("/dev/shm")
        .or_else(|_| tempfile::NamedTempFile::new())
        .expect("a temporary file");
    file.write_all(input).expect("writing a temporary file");
    // SAFETY: the target's own temporary file, which nothing else touches.
    let mmap = unsafe { MmapChoice::auto() };
    let opened = open(&Source::Path(file.path().to_path_buf()), mmap).ok()?;
    if opened.compression != Compression::None {
        return None;
    }
    let config = PipelineConfig {
        threads: 2,
        batch_bytes,
        line_numbers: false,
    };
    let mut out = Vec::with_capacity(input.len() + 64);
    let result = run_reader_split_every(
        opened.reader,
        config,
        stretch,
        |batch| tag_batch(batch, options),
        |batch, (edits, _counts)| apply(&batch.data, &edits, &mut out),
    );
    // PGN text holds no NUL byte: one past the first bytes ends the run.
    if input.contains(&0) {
        assert!(result.is_err(), "a NUL byte ends the reading");
        return None;
    }
    assert!(result.is_ok(), "reading a plain file in memory cannot fail");
    Some(out)
}

/// Tags `input`; returns the concatenated batch bytes and the output.
fn tag(input: &[u8], batch_bytes: usize, options: TagOptions) -> (Vec<u8>, Vec<u8>) {
    let mut reader = GameReader::new(input).batch_bytes(batch_bytes);
    let mut joined = Vec::with_capacity(input.len());
    let mut out = Vec::with_capacity(input.len() + 64);
    while let Some(batch) = reader.next_batch().expect("reading a slice cannot fail") {
        joined.extend_from_slice(&batch.data);
        let (edits, _counts) = tag_batch(&batch, options);
        apply(&batch.data, &edits, &mut out).expect("writing to a Vec cannot fail");
    }
    (joined, out)
}
