//! Numbers as text, exactly as `format!` writes them, without its
//! machinery: a table of 960 positions holds some 45,000 numbers, and
//! the formatter's exact algorithm for six decimals took most of the time
//! of writing it.
//!
//! [`push_fixed6`] writes `format!("{v:.6}")`: the value's exact binary
//! expansion rounded to six decimals, ties to even, a minus sign for a
//! negative value (also when it rounds to zero, and for −0). It is exact
//! integer arithmetic on the value's bits for values below 10⁹, and the
//! formatter beyond.

use std::fmt::Write as _;

/// Writes `n` in decimal.
pub(super) fn push_u64(text: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    text.push_str(std::str::from_utf8(&digits[at..]).expect("digits are ASCII"));
}

/// Writes `n` in decimal, with a minus sign when negative.
pub(super) fn push_i64(text: &mut String, n: i64) {
    if n < 0 {
        text.push('-');
    }
    push_u64(text, n.unsigned_abs());
}

/// Below this, [`push_fixed6`] rounds exactly with 128-bit integers:
/// the value's 53-bit significand times 10⁶ times a power of two stays
/// under 2¹²⁸.
const EXACT_BELOW: f64 = 1e9;

/// Writes `value` as `format!("{value:.6}")` does.
pub(super) fn push_fixed6(text: &mut String, value: f64) {
    let magnitude = value.abs();
    if magnitude.is_nan() || magnitude >= EXACT_BELOW {
        // Large, infinite or not a number: the formatter's own way.
        let _ = write!(text, "{value:.6}");
        return;
    }
    let millionths = round_millionths(magnitude);
    if value.is_sign_negative() {
        text.push('-');
    }
    push_u64(text, (millionths / 1_000_000) as u64);
    text.push('.');
    // The six decimals: the last six digits of the millionths.
    let mut digits = [b'0'; 6];
    let mut rest = millionths;
    for digit in digits.iter_mut().rev() {
        *digit = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    text.push_str(std::str::from_utf8(&digits).expect("digits are ASCII"));
}

/// `magnitude` × 10⁶ rounded to an integer, ties to even, for a finite
/// `magnitude` of at least 0 and below [`EXACT_BELOW`].
fn round_millionths(magnitude: f64) -> u128 {
    let bits = magnitude.to_bits();
    let exponent_bits = (bits >> 52) & 0x7ff;
    let fraction = bits & ((1 << 52) - 1);
    // magnitude = significand × 2^exponent exactly.
    let (significand, exponent) = if exponent_bits == 0 {
        (fraction, -1074)
    } else {
        (fraction + (1 << 52), exponent_bits as i32 - 1075)
    };
    // Below 10⁹ < 2⁵², the exponent is negative: at most −23.
    debug_assert!(exponent < 0, "{magnitude} is below 1e9");
    let shift = exponent.unsigned_abs();
    // `scaled` is below 2⁷³, so a shift of 128 bits or more (which a u128
    // cannot take) leaves less than half of one.
    if shift >= 128 {
        return 0;
    }
    let scaled = u128::from(significand) * 1_000_000;
    let quotient = scaled >> shift;
    let remainder = scaled & ((1 << shift) - 1);
    let half = 1 << (shift - 1);
    if remainder > half || (remainder == half && quotient & 1 == 1) {
        quotient + 1
    } else {
        quotient
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixed6(value: f64) -> String {
        let mut text = String::new();
        push_fixed6(&mut text, value);
        text
    }

    /// The formatter is the oracle: every value below, and a million
    /// random ones over the magnitudes a table holds, come out as
    /// `format!("{:.6}")` writes them.
    #[test]
    fn six_decimals_as_the_formatter_writes_them() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            0.25,
            0.0000005,
            -0.0000005,
            0.0000015,
            0.0000025,
            1e-7,
            -1e-9,
            0.999_999_5,
            0.999_999_499_999,
            123_456.789_012_5,
            999_999_999.999_999,
            1e9,
            -1e9,
            1e300,
            f64::MIN_POSITIVE,
            5e-324,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        // Every power of two a double holds below 10⁹ (subnormal ones too).
        values.extend((-1074..30).map(|k: i32| {
            let bits = if k >= -1022 {
                ((k + 1023) as u64) << 52
            } else {
                1 << (k + 1074)
            };
            f64::from_bits(bits)
        }));
        // Ties at the seventh decimal: odd multiples of 1/128 and 1/2^20.
        values.extend((1..2000).step_by(2).map(|j| f64::from(j) / 128.0));
        values.extend(
            (1..2000)
                .step_by(2)
                .map(|j| f64::from(j) / f64::from(1 << 20)),
        );
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..1_000_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            // Exponents from 2^-40 to 2^40, any significand, either sign.
            let exponent = (state >> 52) % 81;
            let bits = (exponent + 1023 - 40) << 52 | (state & ((1 << 52) - 1));
            let value = f64::from_bits(bits | (state >> 63) << 63);
            values.push(value);
        }
        for value in values {
            assert_eq!(fixed6(value), format!("{value:.6}"), "{value:e}");
        }
    }

    #[test]
    fn integers_as_the_formatter_writes_them() {
        for n in [0, 1, 9, 10, 99, 100, 12_345, u64::MAX, u64::MAX / 7] {
            let mut text = String::new();
            push_u64(&mut text, n);
            assert_eq!(text, n.to_string());
        }
        for n in [0, -1, 1, -10, i64::MIN, i64::MAX, -123_456] {
            let mut text = String::new();
            push_i64(&mut text, n);
            assert_eq!(text, n.to_string());
        }
    }
}
