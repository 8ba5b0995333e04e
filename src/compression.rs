//! Compression formats: recognised by their magic bytes when reading, and
//! written with one set of choices, [`Settings`] (the format, its level,
//! the threads its encoder may use and the memory they take), made in one
//! place so that every output compresses the same way.
//!
//! A file rewritten in place keeps about its size: [`Settings::keeping`]
//! reads the level a file was written at where its format records it
//! (gzip's extra flags, bzip2's block size, xz's dictionary size) and, for
//! zstd, whose frames record no level, the highest level of the band its
//! window size belongs to in zstd's own table of levels, so that a file
//! does not grow.

use std::fmt;
use std::io::{self, Write};
use std::ops::RangeInclusive;
use std::path::Path;

/// A compression format recognised by its magic bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain bytes.
    None,
    /// gzip (`1f 8b`); concatenated members are read as one stream.
    Gzip,
    /// Zstandard (`28 b5 2f fd`); concatenated frames are read as one stream.
    Zstd,
    /// bzip2 (`BZh`); concatenated streams are read as one.
    Bzip2,
    /// xz (`fd 37 7a 58 5a 00`); concatenated streams are read as one.
    Xz,
}

impl Compression {
    /// Every compressed format.
    pub const COMPRESSED: [Compression; 4] = [
        Compression::Gzip,
        Compression::Zstd,
        Compression::Bzip2,
        Compression::Xz,
    ];

    /// Recognises a format from the first bytes of a stream (six suffice).
    ///
    /// ```
    /// use pgn960::compression::Compression;
    ///
    /// assert_eq!(Compression::sniff(b"\x28\xb5\x2f\xfd\x00"), Compression::Zstd);
    /// assert_eq!(Compression::sniff(b"[Event \"x\"]"), Compression::None);
    /// ```
    pub fn sniff(head: &[u8]) -> Compression {
        if head.starts_with(b"\x1f\x8b") {
            Compression::Gzip
        } else if head.starts_with(b"\x28\xb5\x2f\xfd") {
            Compression::Zstd
        } else if head.starts_with(b"BZh") && head.get(3).is_some_and(|b| (b'1'..=b'9').contains(b))
        {
            Compression::Bzip2
        } else if head.starts_with(b"\xfd7zXZ\x00") {
            Compression::Xz
        } else {
            Compression::None
        }
    }

    /// The file-name extension of the format, without its dot: `gz`,
    /// `zst`, `bz2`, `xz`; empty for plain bytes. For naming outputs:
    /// inputs are recognised by their bytes, never by their names.
    pub fn extension(self) -> &'static str {
        match self {
            Compression::None => "",
            Compression::Gzip => "gz",
            Compression::Zstd => "zst",
            Compression::Bzip2 => "bz2",
            Compression::Xz => "xz",
        }
    }

    /// The compression a file name asks for by its extension: `.gz`,
    /// `.zst`, `.bz2` or `.xz`, in any case; plain bytes for any other.
    /// For naming outputs only: inputs are recognised by their bytes.
    ///
    /// ```
    /// use pgn960::compression::Compression;
    /// use std::path::Path;
    ///
    /// assert_eq!(Compression::of_path(Path::new("some.pgn.ZST")), Compression::Zstd);
    /// assert_eq!(Compression::of_path(Path::new("some.pgn")), Compression::None);
    /// ```
    pub fn of_path(path: &Path) -> Compression {
        let extension = path.extension().and_then(|ext| ext.to_str()).unwrap_or("");
        Compression::COMPRESSED
            .into_iter()
            .find(|compression| compression.extension().eq_ignore_ascii_case(extension))
            .unwrap_or(Compression::None)
    }

    /// The levels of the format's own scale: gzip and bzip2 1–9, xz 0–9,
    /// zstd 1–22; plain bytes have only 0.
    pub fn levels(self) -> RangeInclusive<u32> {
        match self {
            Compression::None => 0..=0,
            Compression::Gzip | Compression::Bzip2 => 1..=9,
            Compression::Zstd => 1..=22,
            Compression::Xz => 0..=9,
        }
    }

    /// The level the format's own tool writes by default: gzip 6, zstd 3,
    /// bzip2 9, xz 6.
    pub fn default_level(self) -> u32 {
        match self {
            Compression::None => 0,
            Compression::Gzip | Compression::Xz => 6,
            Compression::Zstd => 3,
            Compression::Bzip2 => 9,
        }
    }

    /// Wraps `writer` so that what is written to it comes out in this
    /// format, at its default level, on one thread.
    ///
    /// # Errors
    ///
    /// Errors if the encoder cannot be set up.
    pub fn encoder<'a, W: Write + 'a>(self, writer: W) -> io::Result<Encoder<'a, W>> {
        Settings::new(self).encoder(writer)
    }
}

impl fmt::Display for Compression {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Compression::None => "plain",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
            Compression::Xz => "xz",
        })
    }
}

/// The memory an encoder may take, all its threads together: threads are
/// given up before this is passed, never the level. A level's tables are
/// bounded so that one thread fits (see [`ZSTD_TABLE_LOG`] and
/// [`XZ_DICTIONARY`]); several threads of zstd or xz fit only at low
/// levels, each holding jobs of its own.
pub const ENCODER_MEMORY: u64 = 16 << 20;

/// The largest zstd hash and chain tables, as logs of their entries of 4
/// bytes: 4 MiB each. zstd's table gives level 19 a chain table of 64 MiB
/// and a hash table of 16 MiB (and 128 MiB of window at level 22); its
/// window is kept up to [`ZSTD_WINDOW_LOG`], so that the file it writes
/// reads back as written at about its level.
pub const ZSTD_TABLE_LOG: u32 = 20;

/// The largest zstd window, as a log: 4 MiB (level 16's; 8 MiB from 17).
pub const ZSTD_WINDOW_LOG: u32 = 22;

/// The largest xz dictionary: 1.5 MiB (presets 3 to 9 have 4 to 64 MiB,
/// and take 32 to 674 MiB to compress). No preset has this size, so a
/// file written with it is read back as written at the default level, 6.
pub const XZ_DICTIONARY: u32 = 3 << 19;

/// How an output is compressed: the format, its level and the threads its
/// encoder may use (only zstd and xz use more than one), within
/// [`ENCODER_MEMORY`] unless a single thread alone takes more.
///
/// ```
/// use pgn960::compression::{Compression, Settings};
///
/// let settings = Settings::new(Compression::Zstd).with_level(1)?.with_threads(2);
/// assert_eq!((settings.level(), settings.threads()), (1, 2));
/// // Level 19 on two threads would pass ENCODER_MEMORY: it takes one.
/// let settings = Settings::new(Compression::Zstd).with_level(19)?.with_threads(2);
/// assert_eq!((settings.level(), settings.threads()), (19, 1));
/// assert!(Settings::new(Compression::Gzip).with_level(15).is_err());
/// # Ok::<_, pgn960::compression::LevelError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    compression: Compression,
    level: u32,
    threads: u32,
}

/// A level beyond a format's scale.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelError {
    /// The format.
    pub compression: Compression,
    /// The level asked for.
    pub level: u32,
}

impl fmt::Display for LevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let levels = self.compression.levels();
        write!(
            f,
            "level {} is not one of {}'s levels ({} to {})",
            self.level,
            self.compression,
            levels.start(),
            levels.end()
        )
    }
}

impl std::error::Error for LevelError {}

impl Settings {
    /// The format at its default level ([`Compression::default_level`]),
    /// on one thread.
    pub fn new(compression: Compression) -> Settings {
        Settings {
            compression,
            level: compression.default_level(),
            threads: 1,
        }
    }

    /// The format of a compressed stream that begins with `head`, at the
    /// level it was written at, as far as its header tells (1 KiB of head
    /// is always enough), on one thread:
    ///
    /// - gzip: 9 when its extra flags say "maximum compression", 1 when
    ///   they say "fastest", else 6;
    /// - bzip2: the level, which is its block size (`BZh9`: 900 kB);
    /// - xz: the preset whose dictionary is the smallest that holds the
    ///   first block's (8 MiB: 6, the default; presets 3 and 4 share 4 MiB,
    ///   5 and 6 share 8 MiB: the higher is taken);
    /// - zstd, which records no level: the highest level of zstd's table
    ///   with the window the first frame records (up to 512 KiB: 1, 1 MiB:
    ///   2, 2 MiB: 8, 4 MiB: 16, 8 MiB or more: 19), so that the file does
    ///   not grow; a frame written in one piece, whose window is its whole
    ///   content (a file of a few MiB), gets 19, which costs little there.
    ///
    /// A header that does not read gives the format's default level.
    pub fn keeping(compression: Compression, head: &[u8]) -> Settings {
        let level = match compression {
            Compression::None => None,
            Compression::Gzip => head.get(8).map(|flags| match flags {
                2 => 9,
                4 => 1,
                _ => 6,
            }),
            Compression::Bzip2 => head
                .get(3)
                .filter(|b| (b'1'..=b'9').contains(b))
                .map(|b| u32::from(b - b'0')),
            Compression::Xz => xz_dictionary(head).map(|dictionary| {
                if dictionary == u64::from(XZ_DICTIONARY) {
                    6
                } else {
                    xz_preset_of_dictionary(dictionary)
                }
            }),
            Compression::Zstd => zstd_window_log(head).map(|window| match window {
                None => 19,
                Some(..=19) => 1,
                Some(20) => 2,
                Some(21) => 8,
                Some(22) => 16,
                Some(_) => 19,
            }),
        };
        Settings {
            compression,
            level: level.unwrap_or(compression.default_level()),
            threads: 1,
        }
    }

    /// These settings at `level`, on the format's own scale.
    ///
    /// # Errors
    ///
    /// A level beyond [`Compression::levels`].
    pub fn with_level(self, level: u32) -> Result<Settings, LevelError> {
        if !self.compression.levels().contains(&level) {
            return Err(LevelError {
                compression: self.compression,
                level,
            });
        }
        Ok(Settings { level, ..self })
    }

    /// These settings with up to `threads` threads: as many as the format
    /// can use (one for gzip and bzip2) within [`ENCODER_MEMORY`], and at
    /// least one.
    pub fn with_threads(self, threads: u32) -> Settings {
        let one = Settings { threads: 1, ..self };
        let mut threads = match self.compression {
            Compression::Zstd | Compression::Xz => threads.max(1),
            _ => 1,
        };
        while threads > 1 && (Settings { threads, ..self }).memory() > ENCODER_MEMORY {
            threads -= 1;
        }
        Settings { threads, ..one }
    }

    /// The format.
    pub fn compression(&self) -> Compression {
        self.compression
    }

    /// The level, on the format's own scale.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// The threads the encoder uses.
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// About how many bytes the encoder takes, all threads together: the
    /// compressor's own tables, as its library estimates them (xz) or as
    /// zstd's table of levels sizes them, plus the input each thread holds.
    pub fn memory(&self) -> u64 {
        let threads = u64::from(self.threads);
        match self.compression {
            Compression::None => 0,
            // zlib's deflate state, and bzip2's blocks and sort arrays.
            Compression::Gzip => 256 << 10,
            Compression::Bzip2 => 400_000 + 800_000 * u64::from(self.level),
            Compression::Zstd => {
                let [window, chain, hash] = zstd_bounded_logs(self.level);
                let tables = (4u64 << chain) + (4u64 << hash) + (1u64 << window);
                // Several threads: each holds a job of four windows, read
                // in and written out, beside its own tables.
                let jobs = if threads > 1 { 8u64 << window } else { 0 };
                threads * (tables + jobs)
            }
            // One thread: the figures of xz's manual, by preset, up to
            // preset 2; from 3 on, the dictionary is bounded, and the
            // match finder takes 11.5 times it (xz's manual: 48 MiB for
            // preset 4's 4 MiB), with 2 MiB of buffers.
            Compression::Xz if threads == 1 => match self.level {
                0 => 3 << 20,
                1 => 9 << 20,
                2 => 17 << 20,
                _ => u64::from(XZ_DICTIONARY) * 23 / 2 + (2 << 20),
            },
            Compression::Xz => xz_filters(self.level).map_or(u64::MAX, |filters| {
                let mut builder = xz2::stream::MtStreamBuilder::new();
                builder.filters(filters).threads(self.threads);
                builder.memusage()
            }),
        }
    }

    /// Wraps `writer` so that what is written to it comes out compressed
    /// with these settings.
    ///
    /// # Errors
    ///
    /// Errors if the encoder cannot be set up.
    pub fn encoder<'a, W: Write + 'a>(self, writer: W) -> io::Result<Encoder<'a, W>> {
        let level = self.level;
        Ok(match self.compression {
            Compression::None => Encoder::Plain(writer),
            Compression::Gzip => Encoder::Gzip(flate2::write::GzEncoder::new(
                writer,
                flate2::Compression::new(level),
            )),
            Compression::Zstd => {
                let logs = zstd_bounded_logs(level);
                let level = i32::try_from(level).expect("zstd's levels are small");
                let mut encoder = zstd::stream::write::Encoder::new(writer, level)?;
                if logs != zstd_table_logs(self.level) {
                    let [window, chain, hash] = logs;
                    encoder.set_parameter(zstd::stream::raw::CParameter::WindowLog(window))?;
                    encoder.set_parameter(zstd::stream::raw::CParameter::ChainLog(chain))?;
                    encoder.set_parameter(zstd::stream::raw::CParameter::HashLog(hash))?;
                }
                if self.threads > 1 {
                    encoder.multithread(self.threads)?;
                }
                Encoder::Zstd(encoder)
            }
            Compression::Bzip2 => Encoder::Bzip2(bzip2::write::BzEncoder::new(
                writer,
                bzip2::Compression::new(level),
            )),
            Compression::Xz => {
                let filters = xz_filters(level).map_err(io::Error::from)?;
                let stream = if self.threads > 1 {
                    xz2::stream::MtStreamBuilder::new()
                        .filters(filters)
                        .threads(self.threads)
                        .check(xz2::stream::Check::Crc64)
                        .encoder()
                } else {
                    xz2::stream::Stream::new_stream_encoder(&filters, xz2::stream::Check::Crc64)
                }
                .map_err(io::Error::from)?;
                Encoder::Xz(xz2::write::XzEncoder::new_stream(writer, stream))
            }
        })
    }
}

impl fmt::Display for Settings {
    /// `zstd level 19 on 2 threads`, `gzip level 6`, `plain`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.compression == Compression::None {
            return f.write_str("plain");
        }
        write!(f, "{} level {}", self.compression, self.level)?;
        if self.threads > 1 {
            write!(f, " on {} threads", self.threads)?;
        }
        Ok(())
    }
}

/// [`zstd_table_logs`] within [`ZSTD_WINDOW_LOG`] and [`ZSTD_TABLE_LOG`].
fn zstd_bounded_logs(level: u32) -> [u32; 3] {
    let [window, chain, hash] = zstd_table_logs(level);
    [
        window.min(ZSTD_WINDOW_LOG),
        chain.min(ZSTD_TABLE_LOG),
        hash.min(ZSTD_TABLE_LOG),
    ]
}

/// The LZMA2 filter of an xz preset, its dictionary within
/// [`XZ_DICTIONARY`].
fn xz_filters(preset: u32) -> Result<xz2::stream::Filters, xz2::stream::Error> {
    let mut options = xz2::stream::LzmaOptions::new_preset(preset)?;
    if preset >= 3 {
        options.dict_size(XZ_DICTIONARY);
    }
    let mut filters = xz2::stream::Filters::new();
    filters.lzma2(&options);
    Ok(filters)
}

/// The logs of the window, chain table and hash table of a zstd level for
/// a large input, from zstd's table of levels (`clevels.h`, zstd 1.5).
fn zstd_table_logs(level: u32) -> [u32; 3] {
    match level {
        ..=1 => [19, 13, 14],
        2 => [20, 15, 16],
        3 => [21, 16, 17],
        4 => [21, 18, 18],
        5 | 6 => [21, 18, 19],
        7 | 8 => [21, 19, 20],
        9 => [22, 20, 21],
        10 | 11 => [22, 21, 22],
        12 => [22, 22, 23],
        13 => [22, 22, 22],
        14 => [22, 22, 23],
        15 => [22, 23, 23],
        16 => [22, 22, 22],
        17 | 18 => [23, 23, 22],
        19 => [23, 24, 22],
        20 => [25, 25, 23],
        21 => [26, 26, 24],
        _ => [27, 27, 25],
    }
}

/// The window of a zstd stream's first frame, as a power of two rounded
/// up: `Some(None)` for a frame written in one piece (no window of its
/// own), `None` when the header does not read.
fn zstd_window_log(head: &[u8]) -> Option<Option<u32>> {
    let descriptor = *head.get(4)?;
    if descriptor & 0x20 != 0 {
        return Some(None); // single segment: the window is the content
    }
    let window = *head.get(5)?;
    let exponent = u32::from(window >> 3);
    let mantissa = window & 7;
    Some(Some(10 + exponent + u32::from(mantissa > 0)))
}

/// The LZMA2 dictionary size of an xz stream's first block, from its
/// block header (after the 12 bytes of the stream header).
fn xz_dictionary(head: &[u8]) -> Option<u64> {
    let header = head.get(12..)?;
    let size = (usize::from(*header.first()?) + 1) * 4;
    let header = header.get(..size)?;
    let flags = header[1];
    let mut at = 2;
    // The compressed and uncompressed sizes, when given, as varints.
    for present in [flags & 0x40 != 0, flags & 0x80 != 0] {
        if present {
            at += varint(header.get(at..)?)?.1;
        }
    }
    for _ in 0..=(flags & 3) {
        let (id, n) = varint(header.get(at..)?)?;
        at += n;
        let (props, n) = varint(header.get(at..)?)?;
        at += n;
        if id == 0x21 && props == 1 {
            let bits = u32::from(*header.get(at)?);
            if bits > 40 {
                return None;
            }
            return Some(if bits == 40 {
                u64::from(u32::MAX)
            } else {
                u64::from(2 | (bits & 1)) << (bits / 2 + 11)
            });
        }
        at += usize::try_from(props).ok()?;
    }
    None
}

/// A varint of xz's headers, and how many bytes it took.
fn varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate().take(9) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// The xz preset whose dictionary is the smallest that holds `dictionary`
/// bytes.
fn xz_preset_of_dictionary(dictionary: u64) -> u32 {
    // The presets' dictionaries: 256 KiB, 1, 2, 4 (3 and 4), 8 (5 and 6),
    // 16, 32 and 64 MiB.
    const PRESETS: [(u64, u32); 8] = [
        (256 << 10, 0),
        (1 << 20, 1),
        (2 << 20, 2),
        (4 << 20, 4),
        (8 << 20, 6),
        (16 << 20, 7),
        (32 << 20, 8),
        (64 << 20, 9),
    ];
    PRESETS
        .iter()
        .find(|&&(size, _)| dictionary <= size)
        .map_or(9, |&(_, preset)| preset)
}

/// A writer that compresses in one of the [`Compression`] formats.
pub enum Encoder<'a, W: Write> {
    /// No compression.
    Plain(W),
    /// gzip.
    Gzip(flate2::write::GzEncoder<W>),
    /// Zstandard.
    Zstd(zstd::stream::write::Encoder<'a, W>),
    /// bzip2.
    Bzip2(bzip2::write::BzEncoder<W>),
    /// xz.
    Xz(xz2::write::XzEncoder<W>),
}

impl<W: Write> Encoder<'_, W> {
    /// Writes the format's trailer and returns the inner writer.
    ///
    /// # Errors
    ///
    /// Any error of the inner writer.
    pub fn finish(self) -> io::Result<W> {
        match self {
            Encoder::Plain(w) => Ok(w),
            Encoder::Gzip(e) => e.finish(),
            Encoder::Zstd(e) => e.finish(),
            Encoder::Bzip2(e) => e.finish(),
            Encoder::Xz(e) => e.finish(),
        }
    }
}

impl<W: Write> Write for Encoder<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Encoder::Plain(w) => w.write(buf),
            Encoder::Gzip(e) => e.write(buf),
            Encoder::Zstd(e) => e.write(buf),
            Encoder::Bzip2(e) => e.write(buf),
            Encoder::Xz(e) => e.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Encoder::Plain(w) => w.flush(),
            Encoder::Gzip(e) => e.flush(),
            Encoder::Zstd(e) => e.flush(),
            Encoder::Bzip2(e) => e.flush(),
            Encoder::Xz(e) => e.flush(),
        }
    }
}
