//! A 95% interval for a position's raw score that knows about draws.
//!
//! Wilson's interval is a score interval for a proportion: the θ with
//! (s − θ)² ≤ z²·θ(1 − θ)/n. A game's points (1, ½ or 0) vary less than
//! a win-or-loss: with draws at rate ν, Var = θ(1 − θ) − ν/4. The interval
//! here is the score interval with that variance: the θ with
//! (s − θ)² ≤ z²·(θ(1 − θ) − ν(θ)/4)/n, where ν(θ) is the draw rate
//! taken for the position, never more than a score of θ allows (2θ and
//! 2(1 − θ)). The draw rate taken is the smaller of the position's own,
//! (D + ½)/(n + 1), and its group's: a position with few games gets no
//! narrower interval for drawing all of them, and a smaller draw rate only
//! widens the interval. Without draws it is Wilson's.

use super::super::table::Z_95;

/// The interval for a position of `w` wins, `d` draws and `l` losses, in
/// a group whose draw rate is `group_draw_rate`. None without games.
///
/// ```
/// use pgn960::stats::score_interval;
///
/// // Without draws: Wilson's interval.
/// let (low, high) = score_interval(3, 0, 1, 0.0).unwrap();
/// let (wl, wh) = pgn960::stats::wilson(0.75, 4.0, 1.959964);
/// assert!((low - wl).abs() < 1e-9 && (high - wh).abs() < 1e-9);
/// // With draws the interval is narrower than Wilson's.
/// let (low, high) = score_interval(10, 60, 30, 0.6).unwrap();
/// let (wl, wh) = pgn960::stats::wilson(0.4, 100.0, 1.959964);
/// assert!(low > wl && high < wh);
/// ```
pub fn score_interval(w: u64, d: u64, l: u64, group_draw_rate: f64) -> Option<(f64, f64)> {
    let n = (w + d + l) as f64;
    if n == 0.0 {
        return None;
    }
    let score = (w as f64 + d as f64 / 2.0) / n;
    let own = (d as f64 + 0.5) / (n + 1.0);
    let draw_rate = if d == 0 {
        0.0
    } else {
        own.min(group_draw_rate)
    };
    let z2 = Z_95 * Z_95;
    // Whether θ is inside: the score statistic at θ is at most z².
    let inside = |theta: f64| {
        let nu = draw_rate.min(2.0 * theta.min(1.0 - theta));
        let variance = theta * (1.0 - theta) - nu / 4.0;
        (score - theta).powi(2) * n <= z2 * variance
    };
    // The set is an interval around the score: bisect each side.
    let bisect = |mut outside: f64, mut within: f64| {
        if inside(outside) {
            return outside;
        }
        for _ in 0..100 {
            let middle = (outside + within) / 2.0;
            // The two ends are neighbouring numbers: no step moves them.
            if middle == outside || middle == within {
                break;
            }
            if inside(middle) {
                within = middle;
            } else {
                outside = middle;
            }
        }
        within
    };
    Some((bisect(0.0, score), bisect(1.0, score)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::wilson;

    #[test]
    fn without_draws_it_is_wilsons() {
        for (w, l) in [(0, 1), (1, 0), (3, 7), (50, 50), (999, 1)] {
            let n = (w + l) as f64;
            let (low, high) = score_interval(w, 0, l, 0.4).expect("games");
            let (wl, wh) = wilson(w as f64 / n, n, Z_95);
            assert!(
                (low - wl).abs() < 1e-12 && (high - wh).abs() < 1e-12,
                "{w} {l}"
            );
        }
    }

    #[test]
    fn matches_scipys_roots() {
        // reference.py units: "score_interval" (brentq on the score
        // statistic).
        for ((w, d, l, rate), (low, high)) in [
            ((3, 0, 1, 0.0), (0.3006418400969082, 0.9544127397046311)),
            ((10, 60, 30, 0.6), (0.345800672125613, 0.4615980276281866)),
            ((0, 5, 0, 0.9), (0.2827587656703035, 0.7172412343296964)),
            ((0, 5, 0, 0.3), (0.22425658300624157, 0.7757434169937585)),
            ((7, 2, 1, 0.1), (0.5060291496111573, 0.9274511685732084)),
        ] {
            let (l2, h2) = score_interval(w, d, l, rate).expect("games");
            assert!(
                (l2 - low).abs() < 1e-12 && (h2 - high).abs() < 1e-12,
                "{w} {d} {l}: {l2} {h2}"
            );
        }
    }

    #[test]
    fn draws_narrow_it_but_never_to_a_point() {
        let (low, high) = score_interval(0, 5, 0, 0.9).expect("games");
        assert!(low < 0.5 && high > 0.5 && high - low > 0.2, "{low} {high}");
        // The position's own draw rate, (5 + ½)/6, is above the group's:
        // the group's is taken.
        let (l2, h2) = score_interval(0, 5, 0, 0.3).expect("games");
        assert!(h2 - l2 > high - low);
        assert_eq!(score_interval(0, 0, 0, 0.5), None);
    }
}
