//! Counting a game's mainline moves at the speed of its bytes: `games`
//! counts the plies of every game, and reading movetext a token at a time
//! cost it more than cutting the archive into games.
//!
//! The count reads 64 bytes at a time as bit masks (the splitter's way,
//! see `split::block`): where words start is worked out for the whole
//! block with shifts and one addition, brace comments are cut out of it
//! (all at once by a running XOR of the braces where they take turns, `{`
//! then `}`, as they nearly always do; else one by one), and the words
//! that begin with a letter, nearly every move, are counted with one
//! `popcnt`. Words that begin with a digit are most often move
//! numbers alone (`12.`, `12...`), which count nothing: when every such
//! word of a block is one, which two additions tell, none is read. Else
//! the words that begin with a digit, `!` or `?` (move numbers, results,
//! glyphs, `0-0`) are read one by one, by the same rules as
//! [`Mainline`](super::Mainline); a `*`, a result wherever it stands, ends
//! the count. A comment that runs past its block is skipped with one
//! search for its `}`.
//!
//! The masks come from SSE2, which every x86_64 CPU has, 16 bytes a
//! compare; on a CPU with AVX-512BW, asked once a game, from one compare
//! of all 64 bytes a class, in a copy of the count compiled for it
//! (`count_plies_wide`). Elsewhere a byte at a time.
//!
//! Movetext this fast path does not read, a `;` comment, an escape line
//! (`%`) or a variation, outside comments, is counted by the lexer
//! instead ([`super::mainline_plies`] falls back), so both ways give the
//! same count for every text; the tests hold them to it.

use super::{MainlineWord, ends_word, mainline_word};

/// Bytes per block: one bit of a `u64` each.
const BLOCK: usize = 64;

/// Bit masks of one block: bit `i` stands for its byte `i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Masks {
    /// Bytes that end a word: white space and `{ } ( ) ; *`.
    term: u64,
    /// `*`: a result wherever it stands.
    star: u64,
    /// `.`, skipped where a word may start (`1. e4`, `1... e5`).
    dot: u64,
    /// `{`.
    open: u64,
    /// `}`.
    close: u64,
    /// `;`, `%`, `(` and `)`: what only the lexer reads.
    lexer_only: u64,
    /// Digits, `!` and `?`: a word beginning with one is read alone.
    read_alone: u64,
    /// `$`: a word beginning with it is a NAG.
    nag: u64,
    /// Digits: a word of digits and then dots is a move number.
    digit: u64,
}

/// Classifies one byte into `masks` at bit `i`.
#[inline(always)]
fn classify_byte(masks: &mut Masks, i: usize, b: u8) {
    let bit = |hit: bool| u64::from(hit) << i;
    masks.term |= bit(ends_word(b));
    masks.star |= bit(b == b'*');
    masks.dot |= bit(b == b'.');
    masks.open |= bit(b == b'{');
    masks.close |= bit(b == b'}');
    masks.lexer_only |= bit(matches!(b, b';' | b'%' | b'(' | b')'));
    masks.read_alone |= bit(b.is_ascii_digit() || matches!(b, b'!' | b'?'));
    masks.nag |= bit(b == b'$');
    masks.digit |= bit(b.is_ascii_digit());
}

/// The masks of a block, a byte at a time: the count's masks where the CPU
/// is not x86_64, and on every CPU the tests' reference.
fn masks_scalar(chunk: &[u8; BLOCK]) -> Masks {
    let mut masks = Masks::default();
    for (i, &b) in chunk.iter().enumerate() {
        classify_byte(&mut masks, i, b);
    }
    masks
}

/// Which masks a count reads: a const parameter of [`count_plies_with`],
/// so that every way is compiled, and the tests run each on any CPU that
/// has its instructions.
type MaskWay = u8;
/// A byte at a time ([`masks_scalar`]); only the tests count this way by
/// name (elsewhere than x86_64 [`SSE2`] counts a byte at a time).
#[cfg_attr(not(test), expect(dead_code, reason = "the tests' way"))]
const SCALAR: MaskWay = 0;
/// SSE2, 16 bytes a compare (x86_64 only; elsewhere the scalar masks).
const SSE2: MaskWay = 1;
/// AVX-512BW, 64 bytes a compare (x86_64 only, and only ever inlined into
/// [`count_plies_wide`], compiled for it).
const AVX512: MaskWay = 2;
/// AVX2, 32 bytes a compare (x86_64 only, and only ever inlined into the
/// copies compiled for it, [`count_plies_avx2`] and [`write_moves_avx2`]).
const AVX2: MaskWay = 3;

/// The masks of a block, the way `WAY` names.
#[inline(always)]
fn masks<const WAY: MaskWay>(chunk: &[u8; BLOCK]) -> Masks {
    #[cfg(target_arch = "x86_64")]
    match WAY {
        // SAFETY: a count with these masks runs only in
        // `count_plies_wide`, on a CPU that has AVX-512BW (asked before
        // it is called).
        AVX512 => unsafe { masks_avx512(chunk) },
        // SAFETY: a count with these masks runs only in the copies
        // compiled for AVX2, on a CPU that has it (asked before).
        AVX2 => unsafe { masks_avx2(chunk) },
        // SAFETY: SSE2 is part of the x86_64 baseline, so every x86_64
        // CPU runs `masks_sse2`.
        SSE2 => unsafe { masks_sse2(chunk) },
        _ => masks_scalar(chunk),
    }
    #[cfg(not(target_arch = "x86_64"))]
    masks_scalar(chunk)
}

/// Defines `$name`, the masks of a block with vectors of `$width` bytes
/// (SSE2's 16, AVX2's 32): the same compares whatever the width, lane
/// after lane.
#[cfg(target_arch = "x86_64")]
macro_rules! vector_masks {
    (
        $(#[$doc:meta])*
        $name:ident, $feature:literal, $width:literal, $lane_bits:ty,
        $vector:ident, $load:ident, $cmpeq:ident, $set1:ident, $or:ident, $sub:ident,
        $min:ident, $movemask:ident
    ) => {
        $(#[$doc])*
        #[target_feature(enable = $feature)]
        #[inline]
        fn $name(chunk: &[u8; BLOCK]) -> Masks {
            use std::arch::x86_64::{$cmpeq, $load, $min, $movemask, $or, $set1, $sub, $vector};

            #[target_feature(enable = $feature)]
            fn eq(v: $vector, byte: u8) -> $vector {
                $cmpeq(v, $set1(byte as i8))
            }
            #[target_feature(enable = $feature)]
            fn or(a: $vector, b: $vector) -> $vector {
                $or(a, b)
            }
            #[target_feature(enable = $feature)]
            fn bits(v: $vector, lane: usize) -> u64 {
                u64::from($movemask(v) as $lane_bits) << ($width * lane)
            }

            let mut masks = Masks::default();
            for (lane, bytes) in chunk.chunks_exact($width).enumerate() {
                // SAFETY: `bytes` holds a vector's bytes, and the load needs
                // no alignment.
                let v = unsafe { $load(bytes.as_ptr().cast::<$vector>()) };
                let open = eq(v, b'{');
                let close = eq(v, b'}');
                let semicolon = eq(v, b';');
                let parens = or(eq(v, b'('), eq(v, b')'));
                let space = or(
                    or(eq(v, b' '), eq(v, b'\t')),
                    or(eq(v, b'\n'), eq(v, b'\r')),
                );
                let star = eq(v, b'*');
                let term = or(or(space, or(open, close)), or(or(parens, semicolon), star));
                // A digit is a byte whose distance above `0` is at most 9.
                let above_zero = $sub(v, $set1(b'0' as i8));
                let digit = $cmpeq($min(above_zero, $set1(9)), above_zero);
                let read_alone = or(digit, or(eq(v, b'!'), eq(v, b'?')));
                masks.term |= bits(term, lane);
                masks.star |= bits(star, lane);
                masks.dot |= bits(eq(v, b'.'), lane);
                masks.open |= bits(open, lane);
                masks.close |= bits(close, lane);
                masks.lexer_only |= bits(or(or(semicolon, parens), eq(v, b'%')), lane);
                masks.read_alone |= bits(read_alone, lane);
                masks.nag |= bits(eq(v, b'$'), lane);
                masks.digit |= bits(digit, lane);
            }
            masks
        }
    };
}

#[cfg(target_arch = "x86_64")]
vector_masks!(
    /// The masks of a block, with SSE2, 16 bytes a compare.
    masks_sse2, "sse2", 16, u16,
    __m128i, _mm_loadu_si128, _mm_cmpeq_epi8, _mm_set1_epi8, _mm_or_si128, _mm_sub_epi8,
    _mm_min_epu8, _mm_movemask_epi8
);

#[cfg(target_arch = "x86_64")]
vector_masks!(
    /// The masks of a block, with AVX2, 32 bytes a compare.
    masks_avx2, "avx2", 32, u32,
    __m256i, _mm256_loadu_si256, _mm256_cmpeq_epi8, _mm256_set1_epi8, _mm256_or_si256,
    _mm256_sub_epi8, _mm256_min_epu8, _mm256_movemask_epi8
);

/// The masks of a block, with AVX-512BW: one compare per class of byte,
/// each straight into a mask of 64 bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
#[inline]
fn masks_avx512(chunk: &[u8; BLOCK]) -> Masks {
    use std::arch::x86_64::{
        __m512i, _mm512_cmpeq_epi8_mask, _mm512_cmplt_epu8_mask, _mm512_loadu_si512,
        _mm512_set1_epi8, _mm512_sub_epi8,
    };
    // SAFETY: `chunk` holds 64 bytes, and the load needs no alignment.
    let v = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast::<__m512i>()) };
    let eq = |byte: u8| _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(byte as i8));
    let open = eq(b'{');
    let close = eq(b'}');
    let star = eq(b'*');
    let semicolon = eq(b';');
    let parens = eq(b'(') | eq(b')');
    let space = eq(b' ') | eq(b'\t') | eq(b'\n') | eq(b'\r');
    let digit = _mm512_cmplt_epu8_mask(
        _mm512_sub_epi8(v, _mm512_set1_epi8(b'0' as i8)),
        _mm512_set1_epi8(10),
    );
    Masks {
        term: space | open | close | parens | semicolon | star,
        star,
        dot: eq(b'.'),
        open,
        close,
        lexer_only: semicolon | parens | eq(b'%'),
        read_alone: digit | eq(b'!') | eq(b'?'),
        nag: eq(b'$'),
        digit,
    }
}

/// The bits below bit `n` (`n <= 64`).
#[inline]
fn below(n: u32) -> u64 {
    1u64.checked_shl(n).map_or(!0, |bit| bit - 1)
}

/// The bits above bit `n` (`n < 64`).
#[inline]
fn above(n: u32) -> u64 {
    !1u64 << n
}

/// The bits `from..=to` (`from <= to < 64`).
#[inline]
fn from_to(from: u32, to: u32) -> u64 {
    // At `to` = 63, `2 << 63` wraps to 0, and 0 - 2^from is every bit from
    // `from` up.
    (2u64 << to).wrapping_sub(1 << from)
}

/// Whether the word starting at bit `start` of a block ends within it and
/// is digits and then dots (`12.`, `12...`, `12`): a move number alone,
/// told from the masks without reading the bytes again.
#[inline]
fn is_move_number(m: &Masks, start: u32) -> bool {
    let ends = m.term & above(start);
    if ends == 0 {
        return false;
    }
    let word = from_to(start, ends.trailing_zeros() - 1);
    let leading_digits = (!(m.digit >> start)).trailing_zeros();
    // The word's bytes after its leading digits are all dots.
    let rest = word & !below(start + leading_digits);
    leading_digits > 0 && rest & m.dot == rest
}

/// Whether every word starting at a bit of `starts` ends within the block
/// and is digits and then dots: move numbers alone, as between the moves
/// of most games, told for all of them at once. Adding a word's first bit
/// to the digits carries it past them, adding that to the dots carries it
/// past those, and there each word must end (a word that begins with no
/// digit, `!?` say, goes nowhere, and fails).
#[inline]
fn all_move_numbers(m: &Masks, starts: u64) -> bool {
    let (past_digits, carry_out) = starts.overflowing_add(m.digit);
    let (past_dots, dots_carry_out) = (past_digits & !m.digit).overflowing_add(m.dot);
    // Dots no word reached (in comments, say) stay in the sum, unchanged.
    !carry_out && !dots_carry_out && past_dots & !m.dot & !m.term == 0
}

/// The brace comments of a block.
#[derive(Debug)]
struct BlockComments {
    /// The bytes of the comments that close within the block, `{` and `}`
    /// included (and maybe some of the one left open).
    bytes: u64,
    /// Where a comment still open at the block's end begins.
    open_at_end: Option<u32>,
}

/// The comments of a block from its `{` and `}` bits.
#[inline]
fn block_comments(open: u64, close: u64) -> BlockComments {
    // Most often the braces take turns, `{` first: then the bytes after
    // an odd number of braces are inside a comment, all of them told at
    // once by a running XOR of the braces' bits.
    let inside = prefix_xor(open | close);
    if open & !inside == 0 && close & inside == 0 {
        return BlockComments {
            bytes: inside | close,
            // After a last `{`, every bit to the top stays set.
            open_at_end: (inside >> 63 == 1).then(|| 63 - open.leading_zeros()),
        };
    }
    // Else (a `{` within a comment, a `}` outside one) comment by comment.
    let mut bytes = 0;
    let mut opens = open;
    while opens != 0 {
        let first = opens.trailing_zeros();
        let closes = close & above(first);
        if closes == 0 {
            return BlockComments {
                bytes,
                open_at_end: Some(first),
            };
        }
        let end = closes.trailing_zeros();
        bytes |= from_to(first, end);
        opens &= above(end);
    }
    BlockComments {
        bytes,
        open_at_end: None,
    }
}

/// Bit `i` is the XOR of `bits`' bits `0..=i`.
#[inline]
fn prefix_xor(mut bits: u64) -> u64 {
    for shift in [1, 2, 4, 8, 16, 32] {
        bits ^= bits << shift;
    }
    bits
}

/// Where reading goes on after a comment whose text starts at
/// `text[from]`: past its `}`, or at the end of the text.
#[inline]
fn past_comment(text: &[u8], from: usize) -> usize {
    memchr::memchr(b'}', &text[from..]).map_or(text.len(), |i| from + i + 1)
}

/// Where the word starting at `text[start]` ends.
#[inline]
fn word_end(text: &[u8], start: usize) -> usize {
    text[start..]
        .iter()
        .position(|&b| ends_word(b))
        .map_or(text.len(), |i| start + i)
}

/// Reads the word starting at `text[start]` as [`Mainline`] does; with
/// where it ends.
///
/// [`Mainline`]: super::Mainline
#[inline]
fn read_alone(text: &[u8], start: usize) -> (MainlineWord, usize) {
    let end = word_end(text, start);
    (mainline_word(&text[start..end]), end)
}

/// What a walk over the mainline's moves ([`walk_with`]) hands its moves
/// to, in order.
pub(super) trait Moves {
    /// The moves whose words start at the bits of `starts` in the block
    /// that begins at `text[at]`; `ends` has a bit at each byte of the
    /// block that ends a word.
    fn words(&mut self, text: &[u8], at: usize, starts: u64, ends: u64);
    /// A move read alone: `text[range]`, its move number left out.
    fn one(&mut self, text: &[u8], range: std::ops::Range<usize>);
}

/// Counts the moves.
impl Moves for u32 {
    #[inline(always)]
    fn words(&mut self, _: &[u8], _: usize, starts: u64, _: u64) {
        *self += starts.count_ones();
    }

    #[inline(always)]
    fn one(&mut self, _: &[u8], _: std::ops::Range<usize>) {
        *self += 1;
    }
}

/// Writes each move, as [`super::push_move`] normalises it, then a space.
impl Moves for Vec<u8> {
    #[inline(always)]
    fn words(&mut self, text: &[u8], at: usize, mut starts: u64, ends: u64) {
        while starts != 0 {
            let bit = starts.trailing_zeros();
            starts &= starts - 1;
            let start = at + bit as usize;
            let after = ends & above(bit);
            let end = if after == 0 {
                word_end(text, start)
            } else {
                at + after.trailing_zeros() as usize
            };
            super::push_move(self, &text[start..end]);
        }
    }

    #[inline(always)]
    fn one(&mut self, text: &[u8], range: std::ops::Range<usize>) {
        super::push_move(self, &text[range]);
    }
}

/// The mainline's plies of `text`, up to its result, when it holds nothing
/// but words, move numbers, NAGs and brace comments outside comments;
/// `None` when it holds more (a `;`, a `%`, a variation): the lexer counts
/// those.
pub(super) fn count_plies(text: &[u8]) -> Option<u32> {
    #[cfg(target_arch = "x86_64")]
    if has_wide_masks() {
        // SAFETY: the CPU has every feature `count_plies_wide` is built for.
        return unsafe { count_plies_wide(text) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has every feature `count_plies_avx2` is built for.
        return unsafe { count_plies_avx2(text) };
    }
    count_plies_with::<SSE2>(text)
}

/// Whether this CPU has AVX2, and with it `popcnt` and BMI (each asked).
#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    is_x86_feature_detected!("avx2")
        && is_x86_feature_detected!("popcnt")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
}

/// [`count_plies`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
fn count_plies_avx2(text: &[u8]) -> Option<u32> {
    count_plies_with::<AVX2>(text)
}

/// [`write_moves`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1,bmi2")]
fn write_moves_avx2(text: &[u8], out: &mut Vec<u8>) -> bool {
    walk_with::<AVX2, _>(text, out)
}

/// The mainline's moves of `text`, up to its result, each as
/// [`super::push_move`] writes it, appended to `out`, when `text` holds
/// nothing but words, move numbers, NAGs and brace comments outside
/// comments; `false` when it holds more (a `;`, a `%`, a variation):
/// then `out` may hold some of the moves, and the lexer must write them.
pub(super) fn write_moves(text: &[u8], out: &mut Vec<u8>) -> bool {
    #[cfg(target_arch = "x86_64")]
    if has_wide_masks() {
        // SAFETY: the CPU has every feature `write_moves_wide` is built for.
        return unsafe { write_moves_wide(text, out) };
    }
    #[cfg(target_arch = "x86_64")]
    if has_avx2() {
        // SAFETY: the CPU has every feature `write_moves_avx2` is built for.
        return unsafe { write_moves_avx2(text, out) };
    }
    walk_with::<SSE2, _>(text, out)
}

/// [`write_moves`] compiled for AVX-512BW.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,popcnt,bmi1,bmi2")]
fn write_moves_wide(text: &[u8], out: &mut Vec<u8>) -> bool {
    walk_with::<AVX512, _>(text, out)
}

/// Whether this CPU has AVX-512BW, and with it what the count compiled
/// for it uses (`popcnt`, BMI): every CPU with the one has the others, but
/// each is asked. The standard library keeps the answers, so asking is a
/// few loads.
#[cfg(target_arch = "x86_64")]
fn has_wide_masks() -> bool {
    is_x86_feature_detected!("avx512bw")
        && is_x86_feature_detected!("popcnt")
        && is_x86_feature_detected!("bmi1")
        && is_x86_feature_detected!("bmi2")
}

/// [`count_plies`] compiled for AVX-512BW: the masks of a block in one
/// compare a class, and the counts in one instruction each.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw,popcnt,bmi1,bmi2")]
fn count_plies_wide(text: &[u8]) -> Option<u32> {
    count_plies_with::<AVX512>(text)
}

/// The count, with the masks `WAY` names ([`masks`]).
#[inline(always)]
fn count_plies_with<const WAY: MaskWay>(text: &[u8]) -> Option<u32> {
    let mut plies = 0u32;
    walk_with::<WAY, _>(text, &mut plies).then_some(plies)
}

/// Hands the mainline's moves of `text`, up to its result, to `moves`, in
/// order, with the masks `WAY` names ([`masks`]); `false` when the text
/// holds what only the lexer reads (`moves` then has some of them).
#[inline(always)]
fn walk_with<const WAY: MaskWay, M: Moves>(text: &[u8], moves: &mut M) -> bool {
    let mut at = 0;
    // Whether a word may start at `text[at]`: the last byte before it that
    // is not a `.` ends a word (or there is none).
    let mut may_start = true;
    let mut chunk = [0u8; BLOCK];
    while at < text.len() {
        let len = (text.len() - at).min(BLOCK);
        let block: &[u8; BLOCK] = match text[at..].first_chunk::<BLOCK>() {
            Some(full) => full,
            None => {
                // Zero ends no word and starts none that is counted: the
                // bits past `len` are cut off below anyway.
                chunk[..len].copy_from_slice(&text[at..]);
                chunk[len..].fill(0);
                &chunk
            }
        };
        let m = masks::<WAY>(block);

        // The brace comments of the block; one still open at its end is
        // skipped with a search for its `}`.
        let valid = below(len as u32);
        let comments = block_comments(m.open & valid, m.close & valid);
        let (limit, next) = match comments.open_at_end {
            Some(open) => (below(open), past_comment(text, at + open as usize + 1)),
            None => (valid, at + len),
        };
        let outside = limit & !comments.bytes;
        if m.lexer_only & outside != 0 {
            return false;
        }
        // A `*` outside comments is the result: nothing after it counts.
        let star = m.star & outside;
        let before_result = if star == 0 {
            !0
        } else {
            below(star.trailing_zeros())
        };

        // Where words may start: after a byte that ends one, and after the
        // dots that follow such a byte (the run of dots is filled by
        // adding it to its first bit).
        let after_term = (m.term << 1) | u64::from(may_start);
        let (filled, carry) = (after_term & m.dot).overflowing_add(m.dot);
        let may = after_term | (filled & !m.dot);
        let starts = may & !m.term & !m.dot & outside & before_result;
        may_start = if next > at + len {
            true // after a comment's `}`
        } else {
            m.term >> 63 == 1 || carry
        };

        // Counted in bulk, except past a result: the words before each word
        // read alone are counted when it is read.
        let mut counted = starts & !m.read_alone & !m.nag;
        let mut alone = starts & m.read_alone;
        if all_move_numbers(&m, alone) {
            // They count nothing.
            alone = 0;
        }
        while alone != 0 {
            let bit = alone.trailing_zeros();
            alone &= alone - 1;
            moves.words(text, at, counted & below(bit), m.term);
            counted &= above(bit);
            if is_move_number(&m, bit) {
                continue;
            }
            let start = at + bit as usize;
            match read_alone(text, start) {
                (MainlineWord::Move { from }, end) => moves.one(text, start + from..end),
                (MainlineWord::Nothing, _) => {}
                (MainlineWord::Result, _) => return true,
            }
        }
        moves.words(text, at, counted, m.term);
        if star != 0 {
            return true;
        }
        at = next;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movetext::{Lexer, TokenKind};

    /// The lexer's count: every mainline move up to the result.
    fn lexed(text: &[u8]) -> u32 {
        Lexer::new(text, true)
            .filter(|t| t.depth == 0)
            .take_while(|t| t.kind != TokenKind::Result)
            .filter(|t| t.kind == TokenKind::Move)
            .count() as u32
    }

    /// The count every way this CPU can take it: with the scalar masks,
    /// the SSE2 masks (x86_64) and the AVX-512BW masks where the CPU has
    /// them, and the way [`count_plies`] picks. All must agree.
    fn counted(text: &[u8]) -> Option<u32> {
        let scalar = count_plies_with::<SCALAR>(text);
        let shown = || String::from_utf8_lossy(text).into_owned();
        assert_eq!(
            count_plies_with::<SSE2>(text),
            scalar,
            "SSE2: {:?}",
            shown()
        );
        #[cfg(target_arch = "x86_64")]
        if has_wide_masks() {
            // SAFETY: the CPU has every feature `count_plies_wide` is built for.
            let wide = unsafe { count_plies_wide(text) };
            assert_eq!(wide, scalar, "AVX-512BW: {:?}", shown());
        }
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU has every feature `count_plies_avx2` is built for.
            let avx2 = unsafe { count_plies_avx2(text) };
            assert_eq!(avx2, scalar, "AVX2: {:?}", shown());
        }
        assert_eq!(count_plies(text), scalar, "{:?}", shown());
        written_as_lexed(text, scalar.is_some());
        scalar
    }

    /// The moves written every way this CPU can (as [`counted`]) are the
    /// lexer's, normalised the same, wherever the fast way answers (as
    /// `answers`, the count's say, tells).
    fn written_as_lexed(text: &[u8], answers: bool) {
        let mut lexed = Vec::new();
        crate::movetext::write_lexed(text, true, &mut lexed);
        let shown = || String::from_utf8_lossy(text).into_owned();
        type Write = fn(&[u8], &mut Vec<u8>) -> bool;
        let mut ways: Vec<(&str, Write)> = vec![
            ("scalar", |t, o| walk_with::<SCALAR, _>(t, o)),
            ("SSE2", |t, o| walk_with::<SSE2, _>(t, o)),
            ("picked", write_moves),
        ];
        #[cfg(target_arch = "x86_64")]
        if has_wide_masks() {
            // SAFETY: the CPU has every feature `write_moves_wide` is built for.
            ways.push(("AVX-512BW", |t, o| unsafe { write_moves_wide(t, o) }));
        }
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU has every feature `write_moves_avx2` is built for.
            ways.push(("AVX2", |t, o| unsafe { write_moves_avx2(t, o) }));
        }
        for (way, write) in ways {
            let mut out = Vec::new();
            assert_eq!(write(text, &mut out), answers, "{way}: {:?}", shown());
            if answers {
                assert_eq!(
                    String::from_utf8_lossy(&out),
                    String::from_utf8_lossy(&lexed),
                    "{way}: {:?}",
                    shown()
                );
            }
        }
        let mut out = b"before ".to_vec();
        crate::movetext::write_mainline(text, true, &mut out);
        assert_eq!(out[7..], lexed[..], "{:?}", shown());
    }

    /// Whether this CPU runs the AVX-512BW masks, said once per test that
    /// could not check them, so that a run on a CPU without them shows it.
    fn wide_masks_checked() -> bool {
        #[cfg(target_arch = "x86_64")]
        if has_wide_masks() {
            return true;
        }
        eprintln!("no AVX-512BW on this CPU: its masks were not run here");
        false
    }

    /// Blocks of the bytes movetext is made of (and some it is not), then
    /// blocks of one byte each, through the SSE2 masks (x86_64) and, where
    /// this CPU has AVX-512BW, its masks.
    #[test]
    fn vector_masks_agree_with_a_byte_at_a_time() {
        let mut blocks = Vec::new();
        let alphabet = b" \t\n\r{}();.%$*!?0159/-aNxO=+#\x00\xff\x80/:[]";
        for seed in 0..4000u32 {
            let mut chunk = [0u8; BLOCK];
            for (i, b) in chunk.iter_mut().enumerate() {
                let x = seed
                    .wrapping_mul(2_654_435_761)
                    .wrapping_add(i as u32 * 40_503);
                *b = alphabet[(x >> 13) as usize % alphabet.len()];
            }
            blocks.push(chunk);
        }
        blocks.extend((0..=255u8).map(|b| [b; BLOCK]));
        for chunk in &blocks {
            assert_eq!(masks::<SSE2>(chunk), masks_scalar(chunk), "{chunk:?}");
        }
        #[cfg(target_arch = "x86_64")]
        if wide_masks_checked() {
            for chunk in &blocks {
                // SAFETY: the CPU has AVX-512BW.
                let wide = unsafe { masks_avx512(chunk) };
                assert_eq!(wide, masks_scalar(chunk), "{chunk:?}");
            }
        }
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            for chunk in &blocks {
                // SAFETY: the CPU has AVX2.
                let avx2 = unsafe { masks_avx2(chunk) };
                assert_eq!(avx2, masks_scalar(chunk), "{chunk:?}");
            }
        }
    }

    /// The movetext of real archives: every file of `testdata/` (and, with
    /// `PGN960_CORPUS`, of the corpus), cut at blank lines, each stretch
    /// that is not a tag section counted every way this CPU can, and where
    /// the fast count answers, it is the lexer's.
    #[test]
    fn every_way_counts_real_movetext_as_the_lexer() {
        let mut roots = vec![std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata")];
        roots.extend(std::env::var_os("PGN960_CORPUS").map(std::path::PathBuf::from));
        let mut files = Vec::new();
        while let Some(dir) = roots.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
                let path = entry.path();
                if path.is_dir() {
                    roots.push(path);
                } else if path.extension().is_some_and(|e| e == "pgn") {
                    files.push(path);
                }
            }
        }
        let (mut texts, mut answered) = (0, 0);
        for path in &files {
            let bytes = std::fs::read(path).unwrap();
            let paragraphs =
                bytes
                    .split(|&b| b == b'\n')
                    .fold(vec![Vec::new()], |mut acc, line| {
                        let line = line.strip_suffix(b"\r").unwrap_or(line);
                        if line.iter().all(u8::is_ascii_whitespace) {
                            acc.push(Vec::new());
                        } else {
                            let last = acc.last_mut().unwrap();
                            last.extend_from_slice(line);
                            last.push(b'\n');
                        }
                        acc
                    });
            for text in paragraphs.iter().filter(|t| !t.is_empty() && t[0] != b'[') {
                texts += 1;
                if let Some(plies) = counted(text) {
                    answered += 1;
                    assert_eq!(
                        plies,
                        lexed(text),
                        "{}: {:?}",
                        path.display(),
                        String::from_utf8_lossy(text)
                    );
                }
            }
        }
        wide_masks_checked();
        assert!(
            texts > 500 && answered > texts / 2,
            "{answered} of {texts} texts counted"
        );
    }

    /// Comments told at once where braces take turns, one by one where
    /// they do not, the same either way.
    #[test]
    fn comments_of_a_block() {
        let comments = |text: &str| {
            let mut chunk = [b' '; BLOCK];
            chunk[..text.len()].copy_from_slice(text.as_bytes());
            let m = masks_scalar(&chunk);
            let found = block_comments(m.open, m.close);
            let bits = |marks: &str| {
                let marked = marks.bytes().enumerate().filter(|&(_, b)| b == b'#');
                marked.fold(0u64, |mask, (i, _)| mask | 1 << i)
            };
            (found, bits)
        };
        // In turns: two closed, one left open.
        let (found, bits) = comments("a {b} c {d e} f {g");
        assert_eq!(found.open_at_end, Some(16));
        assert_eq!(found.bytes & below(16), bits("  ###   #####     "));
        // A `{` within a comment, a `}` outside one: one by one.
        let (found, bits) = comments("{a { b} } {c}");
        assert_eq!(found.open_at_end, None);
        assert_eq!(found.bytes, bits("#######   ###"));
        let (found, bits) = comments("} {x} {y");
        assert_eq!(found.open_at_end, Some(6));
        assert_eq!(found.bytes, bits("  ###   "));
        assert_eq!(prefix_xor(0b0010_0100), 0b0001_1100);
        assert_eq!(prefix_xor(1 << 60), 0b1111 << 60);
    }

    #[test]
    fn counts_moves_not_numbers_nags_glyphs_comments_or_what_follows_the_result() {
        let text =
            b"1. e4 { [%clk 0:01:00] } 1... e5 $1 2.Nf3 !? 2...Nc6!? 3. O-O 0-0 {a { b} 1-0 Nf3";
        assert_eq!(counted(text), Some(6));
        assert_eq!(lexed(text), 6);
        assert_eq!(counted(b"e4 {never closed 1-0"), Some(1));
        assert_eq!(counted(b"12 12. 1.2 !x * e4"), Some(2));
        // `*` is a result wherever it stands: after `h6`, it ends the count.
        assert_eq!(counted(b"1. e4 e5 2. Nf3 h6* Nc3"), Some(4));
        assert_eq!(counted(b"12.* e4"), Some(0));
    }

    /// The masks tell a move number alone (digits, then dots) without
    /// reading its bytes; any other word is read alone.
    #[test]
    fn move_numbers_are_told_from_the_masks() {
        let numbers = |text: &[u8]| {
            let mut chunk = [b' '; BLOCK];
            chunk[3..3 + text.len()].copy_from_slice(text);
            is_move_number(&masks_scalar(&chunk), 3)
        };
        for number in [&b"12."[..], b"12...", b"7"] {
            assert!(numbers(number), "{:?}", String::from_utf8_lossy(number));
        }
        for word in [&b"1.e4"[..], b"1-0", b"0-0", b"1.2", b"!?", b"1/2-1/2"] {
            assert!(!numbers(word), "{:?}", String::from_utf8_lossy(word));
        }
        // A word running past its block is never told from the masks.
        let mut chunk = [b'1'; BLOCK];
        chunk[0] = b' ';
        assert!(!is_move_number(&masks_scalar(&chunk), 1));
    }

    /// Every word read alone in a block is told a move number at once, or
    /// the block goes the slow way.
    #[test]
    fn move_numbers_of_a_block_are_told_at_once() {
        let told = |text: &str, starts: &[u32]| {
            let mut chunk = [b' '; BLOCK];
            chunk[..text.len()].copy_from_slice(text.as_bytes());
            let starts = starts.iter().fold(0u64, |mask, &bit| mask | 1 << bit);
            all_move_numbers(&masks_scalar(&chunk), starts)
        };
        // Digits and dots in a comment, which no word reaches, do not matter.
        assert!(told("1. e4 {wv=0.31} 12... Nf6", &[0, 16]));
        assert!(told("7", &[0]));
        assert!(!told("1. e4 1-0", &[0, 6]));
        assert!(!told("1.e4", &[0]));
        assert!(!told("1.2", &[0]));
        assert!(!told("1. e4 !? 2. d4", &[0, 6, 9]));
        // A number at the end of the block may run on into the next.
        assert!(!told(&format!("{}12", " ".repeat(62)), &[62]));
        assert!(!told(&format!("{}1..", " ".repeat(61)), &[61]));
    }

    #[test]
    fn what_only_the_lexer_reads_is_left_to_it() {
        for text in [&b"e4 (e5) *"[..], b"e4 ; x\ne5", b"e4\n% esc\ne5", b"e4%"] {
            assert_eq!(counted(text), None, "{:?}", String::from_utf8_lossy(text));
        }
        // Inside a comment, they are text.
        assert_eq!(counted(b"e4 {(;%)} e5"), Some(2));
    }

    #[test]
    fn words_and_comments_across_blocks() {
        // A move number's dots, a glued move, and a comment, each placed
        // across a block boundary at every offset.
        for pad in 0..130 {
            for tail in [
                "12...Nf6 e4 *",
                "12. ... Nf6 *",
                "e4 {a long comment that runs well past the end of its block, and then some more} e5 1-0",
                "Nf3..e4 . ..d5 *",
                "{}e4{}{}e5 0-1",
            ] {
                let text = format!("{}{tail}", " ".repeat(pad));
                let bytes = text.as_bytes();
                assert_eq!(counted(bytes), Some(lexed(bytes)), "{text:?}");
                let text = format!("{}. {tail}", "x".repeat(pad));
                let bytes = text.as_bytes();
                assert_eq!(counted(bytes), Some(lexed(bytes)), "{text:?}");
            }
        }
    }

    /// Random texts of the pieces movetext is made of: wherever the fast
    /// count answers, it is the lexer's count.
    #[test]
    fn the_fast_count_is_the_lexers_count() {
        const PIECES: &[&str] = &[
            "1.",
            " ",
            "e4",
            "\n",
            "12...Nf6",
            "{c}",
            "{",
            "}",
            "1-0",
            "*",
            "0-0",
            "$4",
            "!?",
            "e5!",
            ".",
            "\r\n",
            "1/2-1/2",
            "Nxd5+",
            "\t",
            "{ [%clk 0:00:01] }",
            "0-1",
            "12",
            "...",
            "*x",
            "h6*",
            "!x",
            "\u{e9}",
            "O-O-O",
            "(",
            ";x\n",
            "%",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut answered = 0;
        for case in 0..40_000 {
            let mut text = String::new();
            for _ in 0..(case % 61) {
                let state = crate::movetext::xorshift(&mut state);
                // The lexer-only pieces, last in the list, come rarely.
                let n = if state.is_multiple_of(16) {
                    PIECES.len()
                } else {
                    PIECES.len() - 3
                };
                text.push_str(PIECES[(state >> 8) as usize % n]);
            }
            let bytes = text.as_bytes();
            if let Some(plies) = counted(bytes) {
                answered += 1;
                assert_eq!(plies, lexed(bytes), "{text:?}");
            }
        }
        assert!(
            answered > 20_000,
            "the fast count answered {answered} times"
        );
    }
}
