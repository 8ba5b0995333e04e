//! Opening inputs: files or standard input, plain or compressed, and
//! refusing what is no PGN text.
//!
//! Archives travel compressed (`.pgn.zst` dumps, `.gz` federation files),
//! often under names that do not say so, so the format is recognised by
//! its magic bytes, never by the file name (see [`crate::compression`]).
//!
//! PGN is text: an input is refused, before any of it is read as games,
//! when its first bytes (and, compressed, the first bytes it decodes to)
//! are another kind of file's (an image, an archive, a tar file, an
//! executable, ...), a UTF-16 or UTF-32 byte-order mark, or hold a NUL
//! byte; a NUL byte further on ends the reading there
//! ([`crate::pipeline::run_reader`] looks for one in every batch). Text in
//! Latin-1 or any other 8-bit encoding is PGN. An input whose decoding
//! fails in its first 64 KiB is refused too: nothing of it is read.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::compression::Compression;

/// Where an input comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    Path(PathBuf),
}

impl Source {
    /// `-` means standard input; anything else is a path.
    pub fn from_arg(arg: &Path) -> Source {
        if arg == Path::new("-") {
            Source::Stdin
        } else {
            Source::Path(arg.to_path_buf())
        }
    }

    /// The path, for a file.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Source::Stdin => None,
            Source::Path(path) => Some(path),
        }
    }
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Stdin => f.write_str("<stdin>"),
            Source::Path(path) => write!(f, "{}", path.display()),
        }
    }
}

/// An opened input: decompressed bytes, and how far through the raw
/// (possibly compressed) bytes reading has got.
pub struct Opened {
    /// The decompressed PGN bytes.
    pub reader: Reader,
    /// The format the input was in.
    pub compression: Compression,
    /// The raw size, when known (files).
    pub raw_len: Option<u64>,
    /// Raw bytes consumed so far; shared, for progress reporting.
    pub raw_read: Arc<AtomicU64>,
}

/// Whether [`open`] may map a plain file into memory.
///
/// Mapping spares the kernel copying every byte, and lets
/// [`crate::pipeline::run_reader`] hand out stretches of the file as
/// batches without a copy. But a mapped file that another program
/// truncates while it is read ends the process (`SIGBUS`), and one that
/// another program rewrites changes under the reader: only the caller
/// knows whether that can happen, so only the caller can choose mapping,
/// through an `unsafe` constructor (as ripgrep's `MmapChoice` does).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MmapChoice {
    allowed: bool,
}

impl MmapChoice {
    /// Maps plain regular files (not empty ones, not pipes or devices, not
    /// compressed files, which are decoded from the map).
    ///
    /// # Safety
    ///
    /// No other program may truncate or rewrite a file opened with this
    /// choice while its [`Opened`] (or any batch of it) is alive. A program
    /// that replaces files by renaming a new one over them, as
    /// `pgn960 tag --in-place` does, is no danger.
    pub unsafe fn auto() -> MmapChoice {
        MmapChoice { allowed: true }
    }

    /// Never maps: every input is read through the kernel as a stream.
    pub fn never() -> MmapChoice {
        MmapChoice { allowed: false }
    }
}

/// Opens a source, recognising its compression; a plain regular file is
/// mapped into memory when `mmap` allows it.
///
/// # Errors
///
/// A file that cannot be opened, is a directory, or cannot be read; a
/// compressed stream whose decoder cannot be set up or that fails before
/// it decodes a byte; bytes that are no PGN text (see the module's
/// documentation), one line saying what they are: `not PGN: a PNG image`.
///
/// # Example
///
/// ```no_run
/// use std::io::Read;
/// use pgn960::input::{open, MmapChoice, Source};
///
/// let mut opened = open(&Source::Path("games.pgn.zst".into()), MmapChoice::never())?;
/// let mut pgn = Vec::new();
/// opened.reader.read_to_end(&mut pgn)?;
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn open(source: &Source, mmap: MmapChoice) -> io::Result<Opened> {
    match source {
        Source::Stdin => opened_stream(Box::new(io::stdin()), None, Arc::default()),
        Source::Path(path) => open_file(File::open(path)?, mmap),
    }
}

/// As [`open`], for a file already open (for example one its caller has
/// locked): read from its current position, which a map ignores (it maps
/// the whole file).
///
/// # Errors
///
/// As [`open`].
pub fn open_file(file: File, mmap: MmapChoice) -> io::Result<Opened> {
    let raw_read = Arc::new(AtomicU64::new(0));
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory",
        ));
    }
    if mmap.allowed
        && let Some(mapped) = Mapped::new(&file, &meta, Arc::clone(&raw_read))
    {
        return opened_mapped(mapped, raw_read);
    }
    let raw_len = meta.is_file().then_some(meta.len());
    opened_stream(Box::new(file), raw_len, raw_read)
}

/// Opens a stream that is neither a file nor standard input (bytes held
/// in memory, a socket), recognising its compression as [`open`] does.
///
/// # Errors
///
/// As [`open`]: the stream cannot be read, its decoder cannot be set up,
/// or it is a common binary format that is no PGN.
///
/// ```
/// use std::io::Read;
/// use pgn960::compression::Compression;
/// use pgn960::input::open_stream;
///
/// let packed = zstd::encode_all(&b"[Event \"A\"]\n\n*\n"[..], 3)?;
/// let mut opened = open_stream(Box::new(std::io::Cursor::new(packed)))?;
/// assert_eq!(opened.compression, Compression::Zstd);
/// let mut pgn = String::new();
/// opened.reader.read_to_string(&mut pgn)?;
/// assert_eq!(pgn, "[Event \"A\"]\n\n*\n");
/// # Ok::<_, std::io::Error>(())
/// ```
pub fn open_stream(stream: Box<dyn Read + Send>) -> io::Result<Opened> {
    opened_stream(stream, None, Arc::new(AtomicU64::new(0)))
}

/// A stream: its first bytes read to tell its compression, then put back
/// in front of the rest; the first bytes it decodes to read ahead to be
/// checked, then handed out before the rest.
fn opened_stream(
    raw: Box<dyn Read + Send>,
    raw_len: Option<u64>,
    raw_read: Arc<AtomicU64>,
) -> io::Result<Opened> {
    let mut counting = CountingReader {
        inner: raw,
        count: Arc::clone(&raw_read),
    };
    let mut head = [0u8; 6];
    let mut got = 0;
    while got < head.len() {
        match counting.read(&mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
    }
    let compression = Compression::sniff(&head[..got]);
    // Plain bytes are read in large chunks by the caller: a buffer here
    // would only add a copy. Decoders want a buffered source.
    let stitched = io::Cursor::new(head[..got].to_vec()).chain(counting);
    let decoded = match compression {
        Compression::None => Box::new(stitched),
        _ => decoder(compression, BufReader::with_capacity(1 << 16, stitched))?,
    };
    let head = Head::read(decoded, compression)?;
    check_head(&head.bytes, compression)?;
    Ok(Opened {
        reader: Reader::Stream(Box::new(head)),
        compression,
        raw_len,
        raw_read,
    })
}

/// A mapped file: plain bytes are read straight from the map, compressed
/// ones decoded from it.
fn opened_mapped(mapped: Mapped, raw_read: Arc<AtomicU64>) -> io::Result<Opened> {
    let raw_len = Some(mapped.map.len() as u64);
    let compression = Compression::sniff(&mapped.map[..mapped.map.len().min(6)]);
    let reader = match compression {
        Compression::None => {
            check_head(&mapped.map[..mapped.map.len().min(HEAD_BYTES)], compression)?;
            Reader::Mapped(mapped)
        }
        _ => {
            let head = Head::read(decoder(compression, mapped)?, compression)?;
            check_head(&head.bytes, compression)?;
            Reader::Stream(Box::new(head))
        }
    };
    Ok(Opened {
        reader,
        compression,
        raw_len,
        raw_read,
    })
}

/// Bytes at the start of an input checked before any is read as PGN: of
/// a mapped file, and of what a compressed stream decodes to. A stream
/// that cannot be decoded this far is refused whole: nothing of it is read
/// (a damaged compressed file this small holds no more than a few games).
const HEAD_BYTES: usize = 64 << 10;
/// Of a plain stream (a pipe, a terminal), whose writer may pause: what
/// its first reads give, at least this much (a tar header's magic is at
/// byte 257) and at most [`HEAD_BYTES`].
const HEAD_MIN: usize = 512;

/// The first bytes a stream decodes to, read ahead to be checked, then
/// handed out before the rest.
struct Head {
    bytes: Vec<u8>,
    at: usize,
    rest: Box<dyn Read + Send>,
}

impl Head {
    /// Reads [`HEAD_BYTES`] of a compressed stream, [`HEAD_MIN`] or more
    /// of a plain one, or up to the end.
    fn read(mut rest: Box<dyn Read + Send>, compression: Compression) -> io::Result<Head> {
        let mut bytes = vec![0; HEAD_BYTES];
        let want = match compression {
            Compression::None => HEAD_MIN,
            _ => HEAD_BYTES,
        };
        let mut got = 0;
        while got < want {
            match rest.read(&mut bytes[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => {}
                Err(err) if compression != Compression::None => {
                    return Err(io::Error::new(
                        err.kind(),
                        format!("cannot decompress it as {compression}: {err}"),
                    ));
                }
                Err(err) => return Err(err),
            }
        }
        bytes.truncate(got);
        Ok(Head { bytes, at: 0, rest })
    }
}

impl Read for Head {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at < self.bytes.len() {
            let n = (&self.bytes[self.at..]).read(buf)?;
            self.at += n;
            if self.at == self.bytes.len() {
                self.bytes = Vec::new(); // read: its memory goes
                self.at = 0;
            }
            return Ok(n);
        }
        self.rest.read(buf)
    }
}

/// Refuses the first bytes an input gives (decoded from `compression`)
/// when they are no PGN text: another kind of file, compressed data
/// inside compressed data, a UTF-16 or UTF-32 byte-order mark, a NUL.
fn check_head(head: &[u8], compression: Compression) -> io::Result<()> {
    let not_pgn = |what: String| {
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not PGN: {what}"),
        ))
    };
    let inner = Compression::sniff(head);
    if compression != Compression::None && inner != Compression::None {
        return not_pgn(format!(
            "{inner} data inside the {compression} data (decompress it twice)"
        ));
    }
    if let Some(encoding) = wide_text(head) {
        return not_pgn(format!(
            "text in {encoding} (convert it to UTF-8 first, e.g. with `iconv -f {encoding} -t UTF-8`)"
        ));
    }
    if let Some(kind) = binary_kind(head) {
        return not_pgn(kind.to_string());
    }
    match memchr::memchr(0, head) {
        Some(at) => Err(nul_byte_at(at as u64)),
        None => Ok(()),
    }
}

/// The error of a NUL byte at `offset` (in the decoded input): no PGN text
/// holds one.
pub(crate) fn nul_byte_at(offset: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("not PGN: a NUL byte at byte {offset} (binary data, or text in UTF-16 or UTF-32)"),
    )
}

/// The encoding a byte-order mark names, for those that are no 8-bit text.
fn wide_text(head: &[u8]) -> Option<&'static str> {
    const MARKS: [(&[u8], &str); 4] = [
        (b"\xff\xfe\x00\x00", "UTF-32LE"),
        (b"\x00\x00\xfe\xff", "UTF-32BE"),
        (b"\xff\xfe", "UTF-16LE"),
        (b"\xfe\xff", "UTF-16BE"),
    ];
    MARKS
        .iter()
        .find(|(mark, _)| head.starts_with(mark))
        .map(|&(_, encoding)| encoding)
}

/// A decoder of `compression` over a buffered source.
fn decoder(
    compression: Compression,
    source: impl BufRead + Send + 'static,
) -> io::Result<Box<dyn Read + Send>> {
    Ok(match compression {
        Compression::None => Box::new(source),
        Compression::Gzip => Box::new(flate2::bufread::MultiGzDecoder::new(source)),
        Compression::Zstd => Box::new(zstd::stream::read::Decoder::with_buffer(source)?),
        Compression::Bzip2 => Box::new(bzip2::bufread::MultiBzDecoder::new(source)),
        Compression::Xz => Box::new(xz2::bufread::XzDecoder::new_multi_decoder(source)),
    })
}

/// The decompressed bytes of an [`Opened`] input.
pub enum Reader {
    /// A plain file mapped into memory, read without copies through the
    /// kernel.
    Mapped(Mapped),
    /// Anything else: standard input, a pipe, a compressed stream.
    Stream(Box<dyn Read + Send>),
}

impl Read for Reader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Reader::Mapped(mapped) => mapped.read(buf),
            Reader::Stream(stream) => stream.read(buf),
        }
    }
}

/// A regular file mapped into memory, read front to back.
///
/// Reading a mapped file spares the kernel copying every byte into a
/// buffer, which on a fast disk cache costs more than scanning the bytes;
/// [`crate::pipeline::run_reader`] goes further and hands out stretches of
/// the map as batches, copying nothing. The pages read are handed back to
/// the kernel as reading moves on (by the pipeline, as batches are done
/// with), so the map never adds more than a few MiB to the memory in use.
/// As with
/// every tool that maps its input (ripgrep among them), a file truncated
/// by another program while it is read ends the process (`SIGBUS`).
pub struct Mapped {
    map: Arc<memmap2::Mmap>,
    at: usize,
    /// Pages before this have been handed back.
    released: usize,
    count: Arc<AtomicU64>,
}

/// Bytes read past the last handed-back page before handing back more.
const RELEASE_BYTES: usize = 1 << 20;

impl Mapped {
    /// Maps `file` when it is a regular, non-empty file that the system
    /// lets map; `None` otherwise (it is then read as a stream).
    fn new(file: &File, meta: &std::fs::Metadata, count: Arc<AtomicU64>) -> Option<Mapped> {
        if !meta.is_file() || meta.len() == 0 {
            return None;
        }
        // SAFETY: the map is only read. Its bytes could change or vanish
        // only if another program rewrote or truncated the file while we
        // read it, which the caller of `MmapChoice::auto` rules out.
        let map = unsafe { memmap2::Mmap::map(file) }.ok()?;
        // Only a hint: reading ahead is the kernel's business.
        let _ = map.advise(memmap2::Advice::Sequential);
        Some(Mapped {
            map: Arc::new(map),
            at: 0,
            released: 0,
            count,
        })
    }

    /// The map, where reading has got to, and the count of bytes read: for
    /// a reader that hands out stretches of the map itself.
    pub(crate) fn into_parts(self) -> (Arc<memmap2::Mmap>, usize, Arc<AtomicU64>) {
        (self.map, self.at, self.count)
    }

    /// Hands the pages already read back to the kernel, a MiB at a time.
    fn release_read_pages(&mut self) {
        if self.at >= self.released + RELEASE_BYTES {
            release_pages(&self.map, &mut self.released, self.at);
        }
    }
}

/// Gives the whole pages of `map[*released..to]` back to the kernel and
/// moves `released` up to the last of them.
pub(crate) fn release_pages(map: &memmap2::Mmap, released: &mut usize, to: usize) {
    const PAGE: usize = 4096;
    let from = *released / PAGE * PAGE;
    let to_page = to / PAGE * PAGE;
    if to_page > from {
        // SAFETY: `MADV_DONTNEED` on a read-only file mapping only drops the
        // pages from this process; touching them again reads them back from
        // the file. Nothing does: callers give back only bytes that have
        // been read and done with, and reading only moves on.
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to_page - from)
        };
        *released = to_page;
    }
}

impl Read for Mapped {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.read(buf)?;
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Mapped {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        Ok(&self.map[self.at..])
    }

    fn consume(&mut self, amount: usize) {
        let amount = amount.min(self.map.len() - self.at);
        self.at += amount;
        self.count.fetch_add(amount as u64, Ordering::Relaxed);
        self.release_read_pages();
    }
}

/// Names common binary formats that people pass by mistake (no PGN starts
/// with these bytes); most hold NUL bytes too, but a name helps more.
fn binary_kind(head: &[u8]) -> Option<&'static str> {
    const KINDS: [(&[u8], &str); 16] = [
        (b"\xff\xd8\xff", "a JPEG image"),
        (b"\x89PNG", "a PNG image"),
        (b"GIF8", "a GIF image"),
        (b"RIFF", "a RIFF file (WebP image, WAV or AVI)"),
        (b"II*\x00", "a TIFF image"),
        (b"MM\x00*", "a TIFF image"),
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive (unzip it first)"),
        (b"7z\xbc\xaf", "a 7-Zip archive (extract it first)"),
        (b"Rar!\x1a\x07", "a RAR archive (extract it first)"),
        (b"\x04\x22\x4d\x18", "an LZ4 archive (decompress it first)"),
        (b"\x7fELF", "an executable"),
        (b"\xcf\xfa\xed\xfe", "an executable"),
        (b"\xca\xfe\xba\xbe", "an executable"),
        (b"SQLite format 3\x00", "an SQLite database"),
        (b"PAR1", "a Parquet file"),
    ];
    // A tar header holds a file name first; its magic is at byte 257.
    if head.get(257..262) == Some(b"ustar") {
        return Some("a tar archive (extract it first)");
    }
    KINDS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
        .map(|&(_, kind)| kind)
}

/// Counts the bytes read through it.
struct CountingReader {
    inner: Box<dyn Read + Send>,
    count: Arc<AtomicU64>,
}

impl Read for CountingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn roundtrip(compression: Compression) {
        let pgn = b"[Event \"x\"]\n\n1. e4 *\n".repeat(100);
        let mut encoder = compression.encoder(Vec::new()).unwrap();
        encoder.write_all(&pgn).unwrap();
        let packed = encoder.finish().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no-telling-name");
        std::fs::write(&path, &packed).unwrap();
        // SAFETY: the test's own file, which nothing else touches.
        let mut opened = open(&Source::Path(path.clone()), unsafe { MmapChoice::auto() }).unwrap();
        assert_eq!(
            matches!(opened.reader, Reader::Mapped(_)),
            compression == Compression::None
        );
        let mut streamed = open(&Source::Path(path), MmapChoice::never()).unwrap();
        assert!(matches!(streamed.reader, Reader::Stream(_)));
        let mut out = Vec::new();
        streamed.reader.read_to_end(&mut out).unwrap();
        assert_eq!(out, pgn);
        assert_eq!(opened.compression, compression);
        let mut out = Vec::new();
        opened.reader.read_to_end(&mut out).unwrap();
        assert_eq!(out, pgn);
        assert_eq!(opened.raw_read.load(Ordering::Relaxed), packed.len() as u64);
    }

    #[test]
    fn a_stream_read_a_byte_at_a_time_and_interrupted_is_sniffed_whole() {
        let pgn = b"[Event \"x\"]\n\n1. e4 *\n".repeat(10);
        for compression in [Compression::None, Compression::Gzip, Compression::Zstd] {
            let mut encoder = compression.encoder(Vec::new()).unwrap();
            encoder.write_all(&pgn).unwrap();
            let packed: &'static [u8] = encoder.finish().unwrap().leak();
            // Every other read is interrupted, the others give one byte:
            // the magic number comes in six reads.
            let raw = Box::new(crate::test_support::Interrupting::new(packed, 1));
            let raw_read = Arc::new(AtomicU64::new(0));
            let mut opened = opened_stream(raw, None, Arc::clone(&raw_read)).unwrap();
            assert_eq!(opened.compression, compression);
            let mut out = Vec::new();
            opened.reader.read_to_end(&mut out).unwrap();
            assert_eq!(out, pgn, "{compression:?}");
            assert_eq!(raw_read.load(Ordering::Relaxed), packed.len() as u64);
        }
    }

    #[test]
    fn every_format_round_trips_by_magic() {
        for compression in [
            Compression::None,
            Compression::Gzip,
            Compression::Zstd,
            Compression::Bzip2,
            Compression::Xz,
        ] {
            roundtrip(compression);
        }
    }

    #[test]
    fn binary_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let jpeg = dir.path().join("photo.pgn");
        std::fs::write(&jpeg, b"\xff\xd8\xff\xe0\x00\x10JFIF").unwrap();
        for mmap in [MmapChoice::never(), unsafe { MmapChoice::auto() }] {
            let err = open(&Source::Path(jpeg.clone()), mmap)
                .err()
                .expect("a JPEG is no PGN");
            assert_eq!(err.to_string(), "not PGN: a JPEG image");
        }
    }

    #[test]
    fn directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = open(&Source::Path(dir.path().to_path_buf()), MmapChoice::never())
            .err()
            .expect("a directory is no input");
        assert_eq!(err.kind(), io::ErrorKind::IsADirectory);
    }
}
