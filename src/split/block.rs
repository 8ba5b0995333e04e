//! 64 bytes of input at a time as bit masks of the bytes the splitter stops
//! at, so that skipping movetext and comments costs a few instructions per
//! stop instead of a search call each.
//!
//! Movetext in the lichess dialect holds a `{ [%clk ...] }` comment every
//! thirty bytes or so: searching for each `{` and `}` with memchr pays the
//! call's set-up twice per comment, more than the bytes cost. Classifying a
//! block once and reading its masks with `trailing_zeros` does not.

/// Bytes per block: one bit of a `u64` each.
pub(super) const BLOCK: usize = 64;

/// Bit masks of `buf[start..start + len]`: bit `i` stands for
/// `buf[start + i]`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Block {
    pub start: usize,
    /// At most [`BLOCK`]; fewer only at the end of the buffer.
    pub len: usize,
    /// `{`, `[`, `;` and `%`: where movetext stops.
    pub movetext: u64,
    /// `{`: where a comment begins.
    pub open: u64,
    /// `}`: where a comment ends.
    pub close: u64,
    /// `\n` and `\r`.
    pub line_ends: u64,
}

impl Block {
    /// Classifies the (up to) 64 bytes of `buf` from `start`.
    #[inline]
    pub fn at(buf: &[u8], start: usize) -> Block {
        let bytes = &buf[start..];
        let len = bytes.len().min(BLOCK);
        let mut chunk = [0u8; BLOCK];
        let chunk: &[u8; BLOCK] = match bytes.first_chunk::<BLOCK>() {
            Some(full) => full,
            None => {
                // Zero is none of the bytes looked for.
                chunk[..len].copy_from_slice(&bytes[..len]);
                &chunk
            }
        };
        let [movetext, open, close, line_ends] = masks(chunk);
        Block {
            start,
            len,
            movetext,
            open,
            close,
            line_ends,
        }
    }

    /// Whether the block still describes `buf`: a block cut short by the
    /// end of the buffer is stale once more bytes have been read.
    pub fn is_current(&self, buf_len: usize) -> bool {
        self.len == BLOCK || self.start + self.len == buf_len
    }

    /// Whether `buf[at]` (within the block) is a `{`.
    pub fn is_open(&self, at: usize) -> bool {
        self.open >> (at - self.start) & 1 == 1
    }

    /// The offset just past the block.
    pub fn end(&self) -> usize {
        self.start + self.len
    }
}

/// The bits of `mask` for the offsets `from..to` within a block (both at
/// most [`BLOCK`]).
pub(super) fn bits_between(mask: u64, from: usize, to: usize) -> u64 {
    if from >= to {
        return 0;
    }
    let below_to = if to >= BLOCK { !0 } else { (1u64 << to) - 1 };
    mask & below_to & (!0u64 << from)
}

/// `[movetext, open, close, line_ends]` masks of one block, the widest
/// way this CPU has: AVX-512BW, else SSE2 (the standard library asks the
/// CPU once and caches the answer: each call reads it). (AVX2 masks,
/// tried on an Intel host, made `tag` and `stats` no faster than SSE2's.)
#[cfg(target_arch = "x86_64")]
#[inline]
fn masks(chunk: &[u8; BLOCK]) -> [u64; 4] {
    if is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU has AVX-512BW (asked just above).
        return unsafe { masks_avx512(chunk) };
    }
    // SAFETY: SSE2 is part of the x86_64 baseline, so every x86_64 CPU
    // runs `masks_sse2`.
    unsafe { masks_sse2(chunk) }
}

/// The masks of a block with SSE2, 16 bytes a compare.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn masks_sse2(chunk: &[u8; BLOCK]) -> [u64; 4] {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };

    #[target_feature(enable = "sse2")]
    fn eq(v: __m128i, byte: u8) -> __m128i {
        _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8))
    }
    #[target_feature(enable = "sse2")]
    fn bits(v: __m128i) -> u64 {
        u64::from(_mm_movemask_epi8(v) as u16)
    }

    let mut out = [0u64; 4];
    for (i, lane) in chunk.chunks_exact(16).enumerate() {
        // SAFETY: `lane` holds 16 bytes, and the load needs no alignment.
        let v = unsafe { _mm_loadu_si128(lane.as_ptr().cast::<__m128i>()) };
        let open = eq(v, b'{');
        let movetext = _mm_or_si128(
            _mm_or_si128(open, eq(v, b'[')),
            _mm_or_si128(eq(v, b';'), eq(v, b'%')),
        );
        let line_ends = _mm_or_si128(eq(v, b'\n'), eq(v, b'\r'));
        out[0] |= bits(movetext) << (16 * i);
        out[1] |= bits(open) << (16 * i);
        out[2] |= bits(eq(v, b'}')) << (16 * i);
        out[3] |= bits(line_ends) << (16 * i);
    }
    out
}

/// The masks of a block with AVX-512BW: one compare per byte looked for,
/// each straight into a mask of 64 bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
fn masks_avx512(chunk: &[u8; BLOCK]) -> [u64; 4] {
    use std::arch::x86_64::{
        __m512i, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_set1_epi8,
    };
    // SAFETY: `chunk` holds 64 bytes, and the load needs no alignment.
    let v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast::<__m512i>()) };
    let eq = |byte: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8));
    let open = eq(b'{');
    [
        open | eq(b'[') | eq(b';') | eq(b'%'),
        open,
        eq(b'}'),
        eq(b'\n') | eq(b'\r'),
    ]
}

/// `[movetext, open, close, line_ends]` masks of one block, a byte at a time.
#[cfg(any(not(target_arch = "x86_64"), test))]
fn masks_scalar(chunk: &[u8; BLOCK]) -> [u64; 4] {
    let mut out = [0u64; 4];
    for (i, &b) in chunk.iter().enumerate() {
        out[0] |= u64::from(matches!(b, b'{' | b'[' | b';' | b'%')) << i;
        out[1] |= u64::from(b == b'{') << i;
        out[2] |= u64::from(b == b'}') << i;
        out[3] |= u64::from(matches!(b, b'\n' | b'\r')) << i;
    }
    out
}

#[cfg(not(target_arch = "x86_64"))]
fn masks(chunk: &[u8; BLOCK]) -> [u64; 4] {
    masks_scalar(chunk)
}

/// Masks of the bytes that end the parts of a plain tag line
/// (`[Name "value"]`), over the up to 64 bytes of `line` from its start:
/// `[name_stops, value_stops]`, where a name stops at a blank, a quote,
/// `]` or a line end, and a value at a quote, a backslash or a line end.
/// Bytes past the end of `line` are none of them.
#[inline]
pub(super) fn tag_line_masks(line: &[u8]) -> [u64; 2] {
    let mut chunk = [0u8; BLOCK];
    let chunk: &[u8; BLOCK] = match line.first_chunk::<BLOCK>() {
        Some(full) => full,
        None => {
            // Zero is none of the bytes looked for.
            chunk[..line.len()].copy_from_slice(line);
            &chunk
        }
    };
    tag_masks(chunk)
}

/// Whether a tag's name ends at `byte` (see [`tag_line_masks`]).
pub(super) fn ends_name(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'"' | b']' | b'\n' | b'\r')
}

/// Whether a plain tag's value ends at `byte` (see [`tag_line_masks`]).
pub(super) fn ends_value(byte: u8) -> bool {
    matches!(byte, b'"' | b'\\' | b'\n' | b'\r')
}

/// [`tag_line_masks`] of a whole block, the widest way this CPU has, as
/// [`masks`] chooses.
#[cfg(target_arch = "x86_64")]
#[inline]
fn tag_masks(chunk: &[u8; BLOCK]) -> [u64; 2] {
    if is_x86_feature_detected!("avx512bw") {
        // SAFETY: the CPU has AVX-512BW (asked just above).
        return unsafe { tag_masks_avx512(chunk) };
    }
    // SAFETY: SSE2 is part of the x86_64 baseline.
    unsafe { tag_masks_sse2(chunk) }
}

#[cfg(not(target_arch = "x86_64"))]
fn tag_masks(chunk: &[u8; BLOCK]) -> [u64; 2] {
    tag_masks_scalar(chunk)
}

/// [`tag_masks`] with SSE2, 16 bytes a compare.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
#[inline]
fn tag_masks_sse2(chunk: &[u8; BLOCK]) -> [u64; 2] {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };

    #[target_feature(enable = "sse2")]
    fn eq(v: __m128i, byte: u8) -> __m128i {
        _mm_cmpeq_epi8(v, _mm_set1_epi8(byte as i8))
    }
    #[target_feature(enable = "sse2")]
    fn bits(v: __m128i) -> u64 {
        u64::from(_mm_movemask_epi8(v) as u16)
    }

    let mut out = [0u64; 2];
    for (i, lane) in chunk.chunks_exact(16).enumerate() {
        // SAFETY: `lane` holds 16 bytes, and the load needs no alignment.
        let v = unsafe { _mm_loadu_si128(lane.as_ptr().cast::<__m128i>()) };
        let both = _mm_or_si128(_mm_or_si128(eq(v, b'"'), eq(v, b'\n')), eq(v, b'\r'));
        let name = _mm_or_si128(
            _mm_or_si128(both, eq(v, b' ')),
            _mm_or_si128(eq(v, b'\t'), eq(v, b']')),
        );
        out[0] |= bits(name) << (16 * i);
        out[1] |= bits(_mm_or_si128(both, eq(v, b'\\'))) << (16 * i);
    }
    out
}

/// [`tag_masks`] with AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
fn tag_masks_avx512(chunk: &[u8; BLOCK]) -> [u64; 2] {
    use std::arch::x86_64::{
        __m512i, _mm512_cmpeq_epi8_mask, _mm512_loadu_si512, _mm512_set1_epi8,
    };
    // SAFETY: `chunk` holds 64 bytes, and the load needs no alignment.
    let v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast::<__m512i>()) };
    let eq = |byte: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8));
    let both = eq(b'"') | eq(b'\n') | eq(b'\r');
    [both | eq(b' ') | eq(b'\t') | eq(b']'), both | eq(b'\\')]
}

/// [`tag_masks`] a byte at a time.
#[cfg(any(not(target_arch = "x86_64"), test))]
fn tag_masks_scalar(chunk: &[u8; BLOCK]) -> [u64; 2] {
    let mut out = [0u64; 2];
    for (i, &b) in chunk.iter().enumerate() {
        out[0] |= u64::from(ends_name(b)) << i;
        out[1] |= u64::from(ends_value(b)) << i;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_agree_with_a_byte_at_a_time() {
        let mut chunk = [0u8; BLOCK];
        for seed in 0..2000u32 {
            for (i, b) in chunk.iter_mut().enumerate() {
                let x = seed
                    .wrapping_mul(2_654_435_761)
                    .wrapping_add(i as u32 * 40_503);
                let alphabet = b"{}[];\n\r a%\"\x00\xff";
                *b = alphabet[(x >> 13) as usize % alphabet.len()];
            }
            for (way, masks) in ways() {
                assert_eq!(masks(&chunk), masks_scalar(&chunk), "{way}, seed {seed}");
            }
        }
        // Every byte value, in every lane: the splitter is the same code
        // whichever masks it reads, so equal masks mean equal games.
        for byte in 0..=255u8 {
            for (way, masks) in ways() {
                assert_eq!(
                    masks(&[byte; BLOCK]),
                    masks_scalar(&[byte; BLOCK]),
                    "{way}, {byte}"
                );
            }
        }
    }

    #[test]
    fn tag_line_masks_agree_with_a_byte_at_a_time() {
        let mut chunk = [0u8; BLOCK];
        for seed in 0..2000u32 {
            for (i, b) in chunk.iter_mut().enumerate() {
                let x = seed
                    .wrapping_mul(2_654_435_761)
                    .wrapping_add(i as u32 * 40_503);
                let alphabet = b" \t\"]\n\r\\[a_9\x00\xff";
                *b = alphabet[(x >> 13) as usize % alphabet.len()];
            }
            for (way, masks) in tag_ways() {
                assert_eq!(
                    masks(&chunk),
                    tag_masks_scalar(&chunk),
                    "{way}, seed {seed}"
                );
            }
        }
        for byte in 0..=255u8 {
            for (way, masks) in tag_ways() {
                assert_eq!(
                    masks(&[byte; BLOCK]),
                    tag_masks_scalar(&[byte; BLOCK]),
                    "{way}, {byte}"
                );
            }
        }
        // A line shorter than a block: the bytes past it are none.
        assert_eq!(tag_line_masks(b"[E \"x\""), [0b10_1100, 0b10_1000]);
    }

    /// Every way of making a tag line's masks this CPU runs, as [`ways`].
    #[cfg_attr(
        not(target_arch = "x86_64"),
        expect(unused_mut, reason = "x86_64 adds ways")
    )]
    fn tag_ways() -> Vec<(&'static str, TagMasks)> {
        let mut ways: Vec<(&'static str, TagMasks)> = vec![("chosen", tag_masks)];
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is part of the x86_64 baseline.
            ways.push(("sse2", |chunk| unsafe { tag_masks_sse2(chunk) }));
            if is_x86_feature_detected!("avx512bw") {
                // SAFETY: asked just above.
                ways.push(("avx512bw", |chunk| unsafe { tag_masks_avx512(chunk) }));
            } else {
                eprintln!("tag line masks: this CPU has no AVX-512BW, its masks are not run here");
            }
        }
        ways
    }

    /// A way of making a tag line's masks.
    type TagMasks = fn(&[u8; BLOCK]) -> [u64; 2];

    /// A way of making a block's masks.
    type Masks = fn(&[u8; BLOCK]) -> [u64; 4];

    /// Every way of making masks this CPU runs, by name, the one the
    /// splitter takes first: each is held to the scalar masks, and a
    /// way this CPU lacks says so (on an AMD host of CI the AVX-512BW
    /// masks are not run; on the Intel hosts they are).
    #[cfg_attr(
        not(target_arch = "x86_64"),
        expect(unused_mut, reason = "x86_64 adds ways")
    )]
    fn ways() -> Vec<(&'static str, Masks)> {
        let mut ways: Vec<(&'static str, Masks)> = vec![("chosen", masks)];
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: SSE2 is part of the x86_64 baseline.
            ways.push(("sse2", |chunk| unsafe { masks_sse2(chunk) }));
            if is_x86_feature_detected!("avx512bw") {
                // SAFETY: asked just above.
                ways.push(("avx512bw", |chunk| unsafe { masks_avx512(chunk) }));
            } else {
                eprintln!("block masks: this CPU has no AVX-512BW, its masks are not run here");
            }
        }
        ways
    }

    #[test]
    fn a_short_block_at_the_end_of_the_buffer() {
        let buf = b"ab{cd}\n;";
        let block = Block::at(buf, 1);
        assert_eq!(block.len, 7);
        assert_eq!(block.movetext, 0b100_0010);
        assert_eq!(block.open, 0b10);
        assert!(block.is_open(2));
        assert!(!block.is_open(1));
        assert_eq!(block.close, 0b1_0000);
        assert_eq!(block.line_ends, 0b10_0000);
        assert!(block.is_current(buf.len()));
        assert!(!block.is_current(buf.len() + 1));
    }

    #[test]
    fn bits_between_bounds() {
        assert_eq!(bits_between(!0, 0, 64), !0);
        assert_eq!(bits_between(!0, 3, 5), 0b11000);
        assert_eq!(bits_between(!0, 5, 5), 0);
        assert_eq!(bits_between(!0, 64, 64), 0);
        assert_eq!(bits_between(0b1010, 2, 64), 0b1000);
    }
}
