//! The model of a game's result when the position does not matter: the
//! null hypothesis of the per-position tests, fitted to a group's games
//! of all positions together.
//!
//! Davidson's (1970) extension of the Bradley–Terry model to ties gives,
//! for a game whose strength difference on the logistic scale is η,
//!
//! ```text
//! P(draw)                    = ν / (ν + 2·cosh(η/2))
//! P(White wins | not a draw) = 1 / (1 + e^(−η))
//! ```
//!
//! so that among decisive games White's wins follow a logistic regression
//! whatever the draw rate ν, and the draws carry no information about η.
//! Here η = α + β·x, with x the rating difference in logistic units
//! (`WhiteElo − BlackElo` at the middle of its bin, times ln 10 / 400):
//! α is White's advantage at equal ratings, and β is 1 when the ratings
//! predict results as the Elo formula says, less when they predict less
//! (another rating pool, a forfeit-ridden archive), 0 when they predict
//! nothing. Both are fitted, so no test trusts the ratings more than the
//! group's own results do. Games without both ratings have their own η,
//! α₀, and ν₀.
//!
//! Some decisive results owe nothing to the players' strength: a crash, a
//! disconnection, a forfeit, a blunder no rating foresees. A logistic
//! curve fitted to strong favourites that nearly always win gives such a
//! game a chance of 10⁻⁵, and one of them alone would then make its
//! position "significant". So a share 2ε of decisive games is taken to
//! go either way at random (a contaminated logistic regression, Copas
//! 1988):
//!
//! ```text
//! P(White wins | not a draw) = ε + (1 − 2ε) / (1 + e^(−η))
//! ```
//!
//! α, β and ε are fitted to the decisive games by maximising the
//! likelihood plus Firth's (1993) penalty ½ ln det I(α, β) (the Jeffreys
//! prior of the logistic part; Heinze & Schemper 2002, R's `logistf`),
//! which keeps α and β finite when one result never happens or the
//! ratings separate the results, as they may in a small group; with many
//! games it is the maximum-likelihood fit. The fit is an EM algorithm
//! (Dempster, Laird & Rubin 1977): which games went at random is the
//! missing information. ε is kept only when the likelihood-ratio test of
//! ε = 0 rejects at 1% ([`CONTAMINATION_EVIDENCE`]). ν is then fitted by maximum likelihood to all
//! games of the category given η. Without a slope (unrated games, or
//! ratings that never differ) ε cannot be told from α and is 0.

use super::super::rating_bins::BIN_WIDTH;
use super::super::table::Rows;

/// ln 10 / 400: one rating point on the logistic scale.
pub const LOGISTIC_PER_POINT: f64 = std::f64::consts::LN_10 / 400.0;

/// The rating difference at the middle of a bin, on the logistic scale.
pub fn bin_logit(bin: i16) -> f64 {
    f64::from(bin) * f64::from(BIN_WIDTH) * LOGISTIC_PER_POINT
}

/// The games of a group, all positions together: by rating-difference
/// bin, and without both ratings, as [White wins, draws, Black wins].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pooled {
    /// Per bin, ascending.
    pub rated: Vec<(i16, [u64; 3])>,
    /// Finished games without both ratings.
    pub unrated: [u64; 3],
}

impl Pooled {
    /// Adds up the finished games of `rows`.
    pub fn of(rows: &Rows) -> Pooled {
        let mut bins = std::collections::BTreeMap::<i16, [u64; 3]>::new();
        let mut unrated = [0u64; 3];
        for stats in rows.values() {
            for (bin, counts) in stats.rating_bins.iter() {
                let sum = bins.entry(bin).or_default();
                for (s, c) in sum.iter_mut().zip(counts) {
                    *s += c;
                }
            }
            for (u, c) in unrated.iter_mut().zip(unrated_counts(stats)) {
                *u += c;
            }
        }
        Pooled {
            rated: bins.into_iter().collect(),
            unrated,
        }
    }
}

/// A position's finished games without both ratings: its results less
/// those of its rating bins.
pub fn unrated_counts(stats: &super::super::table::PositionStats) -> [u64; 3] {
    let rated = stats.rating_bins.totals();
    [
        stats.white_wins.saturating_sub(rated[0]),
        stats.draws.saturating_sub(rated[1]),
        stats.black_wins.saturating_sub(rated[2]),
    ]
}

/// Davidson's model for one category of games (rated or unrated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Davidson {
    /// α: η at equal ratings.
    pub alpha: f64,
    /// β: η per unit of rating difference on the logistic scale (0 for
    /// unrated games, or when the ratings never differ).
    pub beta: f64,
    /// ν: the draw parameter; infinite when every game was drawn.
    pub nu: f64,
    /// ε: half the share of decisive games that go either way at random.
    pub epsilon: f64,
}

impl Davidson {
    /// η of a game at `x`.
    pub fn eta(&self, x: f64) -> f64 {
        self.alpha + self.beta * x
    }

    /// P(White wins | decisive) at `x`; none when every game was drawn.
    pub fn win_given_decisive(&self, x: f64) -> Option<f64> {
        self.nu
            .is_finite()
            .then(|| contaminated(self.epsilon, self.eta(x)))
    }

    /// (P(White wins), P(draw), P(Black wins)) at `x`.
    pub fn outcome(&self, x: f64) -> [f64; 3] {
        if !self.nu.is_finite() {
            return [0.0, 1.0, 0.0];
        }
        let eta = self.eta(x);
        let draw = draw_probability(self.nu, eta);
        let win = (1.0 - draw) * contaminated(self.epsilon, eta);
        [win, draw, (1.0 - draw - win).max(0.0)]
    }

    /// White's expected points and their variance for one game at `x`.
    pub fn score_moments(&self, x: f64) -> (f64, f64) {
        let [win, draw, _] = self.outcome(x);
        let mean = win + draw / 2.0;
        (mean, (win + draw / 4.0 - mean * mean).max(0.0))
    }
}

/// ν / (ν + 2 cosh(η/2)), computed without overflow for large |η|.
fn draw_probability(nu: f64, eta: f64) -> f64 {
    if nu == 0.0 {
        return 0.0;
    }
    // 2 cosh(η/2) = e^(|η|/2) (1 + e^(−|η|)).
    let half = eta.abs() / 2.0;
    let scaled = nu * (-half).exp();
    scaled / (scaled + 1.0 + (-eta.abs()).exp())
}

/// ε + (1 − 2ε)/(1 + e^(−η)).
pub fn contaminated(epsilon: f64, eta: f64) -> f64 {
    epsilon + (1.0 - 2.0 * epsilon) * logistic(eta)
}

/// 1 / (1 + e^(−η)).
pub fn logistic(eta: f64) -> f64 {
    if eta >= 0.0 {
        1.0 / (1.0 + (-eta).exp())
    } else {
        let e = eta.exp();
        e / (1.0 + e)
    }
}

/// The fitted null model of a group.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NullModel {
    /// For games with both ratings; none without such games.
    pub rated: Option<Davidson>,
    /// For games without; none without such games.
    pub unrated: Option<Davidson>,
}

impl NullModel {
    /// Fits the model to a group's games.
    pub fn fit(pooled: &Pooled) -> NullModel {
        let rated = (!pooled.rated.is_empty())
            .then(|| {
                let points: Vec<(f64, [u64; 3])> = pooled
                    .rated
                    .iter()
                    .map(|&(bin, counts)| (bin_logit(bin), counts))
                    .collect();
                fit_category(&points)
            })
            .flatten();
        let unrated = (pooled.unrated.iter().sum::<u64>() > 0)
            .then(|| fit_category(&[(0.0, pooled.unrated)]))
            .flatten();
        NullModel { rated, unrated }
    }

    /// The category of a bin (`None`: the unrated games).
    pub fn category(&self, bin: Option<i16>) -> Option<(&Davidson, f64)> {
        match bin {
            Some(bin) => self.rated.as_ref().map(|model| (model, bin_logit(bin))),
            None => self.unrated.as_ref().map(|model| (model, 0.0)),
        }
    }
}

/// Fits α, β (when x varies among the decisive games), ε and ν to
/// `(x, [W, D, L])` points.
fn fit_category(points: &[(f64, [u64; 3])]) -> Option<Davidson> {
    let decisive: Vec<(f64, f64, f64)> = points
        .iter()
        .filter(|(_, [w, _, l])| w + l > 0)
        .map(|&(x, [w, _, l])| (x, w as f64, l as f64))
        .collect();
    if decisive.is_empty() {
        let drawn = points.iter().any(|(_, [_, d, _])| *d > 0);
        return drawn.then_some(Davidson {
            alpha: 0.0,
            beta: 0.0,
            nu: f64::INFINITY,
            epsilon: 0.0,
        });
    }
    let fit = fit_decisive(&decisive, None)?;
    let model = Davidson {
        alpha: fit.alpha,
        beta: fit.beta,
        nu: 0.0,
        epsilon: fit.epsilon,
    };
    let nu = fit_nu(points, &model)?;
    Some(Davidson { nu, ..model })
}

/// The fit of the decisive games: η = α + βx, and ε.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DecisiveFit {
    /// α.
    pub alpha: f64,
    /// β (0 without a slope).
    pub beta: f64,
    /// ε (0 without a slope).
    pub epsilon: f64,
}

/// EM iterations at most.
const EM_ITERATIONS: usize = 2000;

/// The largest ε: half the decisive games at random.
const EPSILON_MAX: f64 = 0.25;

/// Fits α, β and ε to `(x, wins, losses)` by the penalised EM algorithm,
/// from `start` when given (a bootstrap replicate starts from the fit of
/// the archive). Without a slope, the Firth fit of an intercept, ε = 0.
/// None if a fit fails.
pub fn fit_decisive(points: &[(f64, f64, f64)], start: Option<DecisiveFit>) -> Option<DecisiveFit> {
    let first = points.first()?.0;
    let slope = points.iter().any(|(x, _, _)| (x - first).abs() > 1e-12);
    let full: Vec<(f64, f64, f64, f64)> =
        points.iter().map(|&(x, w, l)| (x, w, l, w + l)).collect();
    if !slope {
        let (alpha, beta) = firth_fit(&full, None)?;
        return Some(DecisiveFit {
            alpha,
            beta,
            epsilon: 0.0,
        });
    }
    let games: f64 = points.iter().map(|(_, w, l)| w + l).sum();
    // Without contamination: the plain Firth fit; the EM then starts from
    // it with some contamination, and the better of the two is kept.
    let ((alpha, beta), _) = firth_best(&full, start.map(|s| (s.alpha, s.beta)))?;
    let plain = DecisiveFit {
        alpha,
        beta,
        epsilon: 0.0,
    };
    let mut fit = start.unwrap_or(DecisiveFit {
        epsilon: 0.01,
        ..plain
    });
    fit.epsilon = fit.epsilon.clamp(1e-6, EPSILON_MAX);
    let mut value = objective(points, fit)?;
    for _ in 0..EM_ITERATIONS {
        // E-step: the expected share of each cell's wins and losses that
        // went at random.
        let mut random = 0.0;
        let weighted: Vec<(f64, f64, f64, f64)> = points
            .iter()
            .map(|&(x, w, l)| {
                let p = contaminated(fit.epsilon, fit.alpha + fit.beta * x);
                let random_win = fit.epsilon / p;
                let random_loss = fit.epsilon / (1.0 - p);
                random += w * random_win + l * random_loss;
                (x, w * (1.0 - random_win), l * (1.0 - random_loss), w + l)
            })
            .collect();
        // M-step.
        let epsilon = (random / games / 2.0).min(EPSILON_MAX);
        let (alpha, beta) = firth_fit(&weighted, Some((fit.alpha, fit.beta)))?;
        let next = DecisiveFit {
            alpha,
            beta,
            epsilon,
        };
        let next_value = objective(points, next)?;
        let done = (next_value - value).abs() < 1e-11 * value.abs().max(1.0);
        fit = next;
        value = next_value;
        if done || fit.epsilon < 1e-9 {
            break;
        }
    }
    let plain_value = objective(points, plain)?;
    Some(if 2.0 * (value - plain_value) < CONTAMINATION_EVIDENCE {
        plain
    } else {
        fit
    })
}

/// Random results are taken into the model only when the data ask for
/// them: when twice the gain in penalised log-likelihood exceeds this, the
/// 99% point of chi-square(1). Otherwise ε = 0: an ε fitted to noise would
/// make every upset look cheaper than it is, and the bootstrap, which holds
/// ε, too harsh.
pub const CONTAMINATION_EVIDENCE: f64 = 6.634897;

/// The penalised log-likelihood of a fit: Σ (w ln P + l ln(1 − P)) +
/// ½ ln det I(α, β), P the contaminated chance of a win and I the
/// logistic information of all the decisive games.
pub fn objective(points: &[(f64, f64, f64)], fit: DecisiveFit) -> Option<f64> {
    let mut value = 0.0;
    for &(x, w, l) in points {
        let eta = fit.alpha + fit.beta * x;
        if fit.epsilon == 0.0 {
            value -= w * softplus(-eta) + l * softplus(eta);
        } else {
            let p = contaminated(fit.epsilon, eta);
            value += w * p.ln() + l * (1.0 - p).ln();
        }
    }
    let full: Vec<(f64, f64, f64, f64)> =
        points.iter().map(|&(x, w, l)| (x, w, l, w + l)).collect();
    let m = information(&full, [fit.alpha, fit.beta], true, true);
    let det = m[0] * m[2] - m[1] * m[1];
    (det > 0.0)
        .then(|| value + 0.5 * det.ln())
        .filter(|v| v.is_finite())
}

/// Fits α and β with ε held at `epsilon`, maximising the same penalised
/// likelihood as [`fit_decisive`] by Fisher scoring from `start`, steps
/// halved until it rises: what a bootstrap replicate refits, ε being a
/// nuisance whose uncertainty moves Q little. None if it fails.
pub fn fit_given_epsilon(
    points: &[(f64, f64, f64)],
    epsilon: f64,
    start: (f64, f64),
) -> Option<DecisiveFit> {
    let full: Vec<(f64, f64, f64, f64)> =
        points.iter().map(|&(x, w, l)| (x, w, l, w + l)).collect();
    let mut fit = DecisiveFit {
        alpha: start.0,
        beta: start.1,
        epsilon,
    };
    let mut value = objective(points, fit)?;
    for _ in 0..100 {
        let theta = [fit.alpha, fit.beta];
        let penalty = invert(information(&full, theta, true, true), true)?;
        let (mut score, mut info) = ([0.0; 2], [0.0; 3]);
        for &(x, w, l) in points {
            let sigma = logistic(fit.alpha + fit.beta * x);
            let p = contaminated(epsilon, fit.alpha + fit.beta * x);
            let slope = (1.0 - 2.0 * epsilon) * sigma * (1.0 - sigma);
            let n = w + l;
            let h = n * sigma * (1.0 - sigma);
            let leverage = h * (penalty[0] + 2.0 * penalty[1] * x + penalty[2] * x * x);
            let residual = (w - n * p) / (p * (1.0 - p)) * slope + leverage * (0.5 - sigma);
            let weight = n * slope * slope / (p * (1.0 - p));
            score[0] += residual;
            score[1] += residual * x;
            info[0] += weight;
            info[1] += weight * x;
            info[2] += weight * x * x;
        }
        let step = solve(info, score, true)?;
        let mut scale = 1.0;
        let mut accepted = None;
        for _ in 0..40 {
            let candidate = DecisiveFit {
                alpha: fit.alpha + scale * step[0],
                beta: fit.beta + scale * step[1],
                epsilon,
            };
            if let Some(next) = objective(points, candidate)
                && next >= value - 1e-12
            {
                accepted = Some((candidate, next));
                break;
            }
            scale /= 2.0;
        }
        let (next, next_value) = accepted?;
        let moved = (next.alpha - fit.alpha)
            .abs()
            .max((next.beta - fit.beta).abs());
        fit = next;
        value = next_value;
        if moved < 1e-9 {
            return Some(fit);
        }
    }
    Some(fit)
}

/// Firth's bias-reduced logistic regression of wins among `(x, wins,
/// losses)`: with a slope when x takes two values or more, else an
/// intercept only. The highest maximum of the penalised likelihood
/// ([`firth_logistic_maxima`]).
pub fn firth_logistic(points: &[(f64, f64, f64)]) -> Option<(f64, f64)> {
    firth_logistic_maxima(points).map(|(fit, _)| fit)
}

/// [`firth_logistic`], and whether the starts reached more than one
/// maximum (or other stationary point) of the penalised likelihood: then
/// a fit from a single start may stop at the lower one.
pub fn firth_logistic_maxima(points: &[(f64, f64, f64)]) -> Option<((f64, f64), bool)> {
    let full: Vec<(f64, f64, f64, f64)> =
        points.iter().map(|&(x, w, l)| (x, w, l, w + l)).collect();
    firth_best(&full, None)
}

/// Firth's logistic regression as [`firth_logistic`], but by steps from
/// α = β = 0 alone: the maximum nearest the flat curve. Where the
/// penalised likelihood has one maximum (what [`firth_logistic_maxima`]
/// tells) the same fit at a seventh of the cost.
pub fn firth_logistic_from_zero(points: &[(f64, f64, f64)]) -> Option<(f64, f64)> {
    let full: Vec<(f64, f64, f64, f64)> =
        points.iter().map(|&(x, w, l)| (x, w, l, w + l)).collect();
    firth_fit(&full, None)
}

/// Slopes a fit with a slope starts from, besides its own start: the flat
/// curve, the Elo curve (β = 1 on the logistic scale of rating
/// differences), steeper ones and falling ones.
const FIRTH_START_SLOPES: [f64; 6] = [0.0, 1.0, 3.0, 8.0, -1.0, -3.0];

/// The highest maximum [`firth_fit`] reaches from `start` and from
/// [`FIRTH_START_SLOPES`], and whether two starts reached different
/// points. With few games and (nearly) separated data, the penalised
/// likelihood can have two maxima, one near the Elo curve and one at a
/// steep slope, and the steps from a start find the nearer:
/// testdata/stats/firth_maxima.py finds such archives, where the fit from
/// zero alone stops at the lower maximum.
fn firth_best(
    points: &[(f64, f64, f64, f64)],
    start: Option<(f64, f64)>,
) -> Option<((f64, f64), bool)> {
    let first = points.first()?.0;
    let slope = points.iter().any(|(x, ..)| (x - first).abs() > 1e-12);
    if !slope {
        return firth_fit(points, start).map(|fit| (fit, false));
    }
    let starts = start
        .into_iter()
        .chain(FIRTH_START_SLOPES.iter().map(|&beta| (0.0, beta)));
    let mut reached: Vec<((f64, f64), f64)> = Vec::new();
    for from in starts {
        let Some(fit) = firth_fit(points, Some(from)) else {
            continue;
        };
        let Some(value) = penalised_log_likelihood(points, [fit.0, fit.1], true) else {
            continue;
        };
        reached.push((fit, value));
    }
    // The first of the highest: the same fit whatever the order of ties.
    let (mut best, mut highest) = *reached.first()?;
    for &(fit, value) in &reached[1..] {
        if value > highest {
            (best, highest) = (fit, value);
        }
    }
    let apart = |(a, b): (f64, f64)| {
        (a - best.0).abs().max((b - best.1).abs()) > 1e-6 * (1.0 + best.0.abs() + best.1.abs())
    };
    let several = reached.iter().any(|(fit, _)| apart(*fit));
    Some((best, several))
}

/// Maximises Σ (w ln p + l ln(1 − p)) + ½ ln det I over α (and β when x
/// varies), p = 1/(1 + e^(−α − βx)), I the logistic information with the
/// counts n of `(x, w, l, n)` (w + l, or more in the EM's M-step, where w
/// and l are the games that did not go at random). Newton steps on the
/// modified score (Firth 1993), halved until the objective rises. None if
/// it does not converge.
fn firth_fit(points: &[(f64, f64, f64, f64)], start: Option<(f64, f64)>) -> Option<(f64, f64)> {
    let first = points.first()?.0;
    let slope = points.iter().any(|(x, ..)| (x - first).abs() > 1e-12);
    let mut theta = start.map_or([0.0, 0.0], |(a, b)| [a, if slope { b } else { 0.0 }]);
    let mut current = penalised_log_likelihood(points, theta, slope)?;
    let mut previous = [0.0; 2];
    for _ in 0..200 {
        let (information, score) = modified_score(points, theta, slope);
        let step = solve(information, score, slope)?;
        if step[0].abs().max(step[1].abs()) < 1e-10 {
            return Some((theta[0], theta[1]));
        }
        // The likelihood's information is not the modified score's
        // derivative (the leverages move too): where that makes the
        // steps overshoot back and forth, take half of one.
        let reversed = step[0] * previous[0] + step[1] * previous[1] < 0.0;
        previous = step;
        let mut scale = if reversed { 0.5 } else { 1.0 };
        let mut accepted = None;
        for _ in 0..40 {
            let candidate = [theta[0] + scale * step[0], theta[1] + scale * step[1]];
            if let Some(value) = penalised_log_likelihood(points, candidate, slope)
                && value >= current - 1e-12
            {
                accepted = Some((candidate, value));
                break;
            }
            scale /= 2.0;
        }
        let (next, value) = accepted?;
        let moved = (next[0] - theta[0]).abs().max((next[1] - theta[1]).abs());
        theta = next;
        current = value;
        if moved < 1e-10 {
            return Some((theta[0], theta[1]));
        }
    }
    None
}

/// The information of the likelihood ([[Σh, Σhx], [Σhx, Σhx²]], h =
/// (w + l)p(1 − p)) and the modified score Σ (w − (w + l)p + h̃(½ − p))(1,
/// x), h̃ the leverage of a point in the penalty's information (with the
/// counts n).
fn modified_score(
    points: &[(f64, f64, f64, f64)],
    theta: [f64; 2],
    slope: bool,
) -> ([f64; 3], [f64; 2]) {
    let penalty = invert(information(points, theta, slope, true), slope);
    let mut score = [0.0; 2];
    for &(x, w, l, n) in points {
        let p = logistic(theta[0] + theta[1] * x);
        let h = n * p * (1.0 - p);
        let leverage = match penalty {
            Some(inv) => h * (inv[0] + 2.0 * inv[1] * x + inv[2] * x * x),
            None => 0.0,
        };
        let residual = w - (w + l) * p + leverage * (0.5 - p);
        score[0] += residual;
        if slope {
            score[1] += residual * x;
        }
    }
    (information(points, theta, slope, false), score)
}

/// Σ c·p(1 − p)·(1, x)(1, x)ᵀ, c the penalty's counts n or the
/// likelihood's w + l.
fn information(
    points: &[(f64, f64, f64, f64)],
    theta: [f64; 2],
    slope: bool,
    penalty: bool,
) -> [f64; 3] {
    let mut information = [0.0; 3];
    for &(x, w, l, n) in points {
        let p = logistic(theta[0] + theta[1] * x);
        let h = if penalty { n } else { w + l } * p * (1.0 - p);
        information[0] += h;
        if slope {
            information[1] += h * x;
            information[2] += h * x * x;
        }
    }
    information
}

/// The inverse of a symmetric [a, b; b, c] (or of [a] without a slope),
/// as [a', b', c'].
fn invert(m: [f64; 3], slope: bool) -> Option<[f64; 3]> {
    if !slope {
        return (m[0] > 0.0).then(|| [1.0 / m[0], 0.0, 0.0]);
    }
    let det = m[0] * m[2] - m[1] * m[1];
    (det > 0.0 && det.is_finite()).then(|| [m[2] / det, -m[1] / det, m[0] / det])
}

fn solve(m: [f64; 3], score: [f64; 2], slope: bool) -> Option<[f64; 2]> {
    let inv = invert(m, slope)?;
    Some([
        inv[0] * score[0] + inv[1] * score[1],
        inv[1] * score[0] + inv[2] * score[1],
    ])
}

/// Σ (w ln p + l ln(1 − p)) + ½ ln det I, I with the penalty's counts.
fn penalised_log_likelihood(
    points: &[(f64, f64, f64, f64)],
    theta: [f64; 2],
    slope: bool,
) -> Option<f64> {
    let mut value = 0.0;
    for &(x, w, l, _) in points {
        let eta = theta[0] + theta[1] * x;
        // ln p = −ln(1 + e^(−η)), ln(1 − p) = −ln(1 + e^η).
        value -= w * softplus(-eta) + l * softplus(eta);
    }
    let m = information(points, theta, slope, true);
    let det = if slope {
        m[0] * m[2] - m[1] * m[1]
    } else {
        m[0]
    };
    (det > 0.0)
        .then(|| value + 0.5 * det.ln())
        .filter(|v| v.is_finite())
}

/// ln(1 + e^t), without overflow.
fn softplus(t: f64) -> f64 {
    if t > 0.0 {
        t + (-t).exp().ln_1p()
    } else {
        t.exp().ln_1p()
    }
}

/// ν by maximum likelihood given η: the root of D/ν = Σ n/(ν + 2cosh(η/2))
/// over the points; 0 without draws, infinite when every game was drawn.
fn fit_nu(points: &[(f64, [u64; 3])], model: &Davidson) -> Option<f64> {
    let draws: f64 = points.iter().map(|(_, [_, d, _])| *d as f64).sum();
    let games: f64 = points
        .iter()
        .map(|(_, c)| c.iter().sum::<u64>() as f64)
        .sum();
    if draws == 0.0 {
        return Some(0.0);
    }
    if draws == games {
        return Some(f64::INFINITY);
    }
    // In t = ln ν the score g(t) = D − Σ n ν/(ν + c) falls from D to
    // D − N < 0: one root, found by bisection on a bracket.
    let score = |t: f64| {
        let nu = t.exp();
        draws
            - points
                .iter()
                .map(|&(x, counts)| {
                    let n = counts.iter().sum::<u64>() as f64;
                    n * draw_probability(nu, model.eta(x))
                })
                .sum::<f64>()
    };
    let (mut low, mut high) = (-1.0, 1.0);
    while score(low) < 0.0 {
        low -= 2.0;
        if low < -700.0 {
            return None;
        }
    }
    while score(high) > 0.0 {
        high += 2.0;
        if high > 700.0 {
            return None;
        }
    }
    for _ in 0..200 {
        let middle = (low + high) / 2.0;
        if score(middle) > 0.0 {
            low = middle;
        } else {
            high = middle;
        }
        if high - low < 1e-13 {
            break;
        }
    }
    Some(((low + high) / 2.0).exp())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: f64, want: f64, tolerance: f64) {
        assert!(
            (got - want).abs() <= tolerance * want.abs().max(1.0),
            "{got} against {want}"
        );
    }

    #[test]
    fn logistic_and_draws_stay_finite_far_out() {
        close(logistic(0.0), 0.5, 1e-15);
        close(logistic(-800.0), 0.0, 1e-15);
        close(logistic(800.0), 1.0, 1e-15);
        close(draw_probability(2.0, 0.0), 0.5, 1e-15);
        assert_eq!(draw_probability(2.0, 3000.0), 0.0);
        let model = Davidson {
            alpha: 0.3,
            beta: 1.0,
            nu: 1.5,
            epsilon: 0.0,
        };
        let [w, d, l] = model.outcome(0.2);
        close(w + d + l, 1.0, 1e-15);
        close(w / (w + l), logistic(0.5), 1e-14);
        close(d, 1.5 / (1.5 + 2.0 * (0.25f64).cosh()), 1e-14);
    }

    /// `DECISIVE` and `UPSETS` of `testdata/stats/reference.py`.
    const DECISIVE: [(i16, f64, f64); 8] = [
        (-60, 1.0, 9.0),
        (-30, 3.0, 6.0),
        (-10, 5.0, 5.0),
        (0, 9.0, 6.0),
        (10, 7.0, 3.0),
        (25, 8.0, 2.0),
        (40, 9.0, 0.0),
        (70, 6.0, 1.0),
    ];

    fn points(extra: &[(i16, f64, f64)]) -> Vec<(f64, f64, f64)> {
        DECISIVE
            .iter()
            .chain(extra)
            .map(|&(bin, w, l)| (bin_logit(bin), w, l))
            .collect()
    }

    #[test]
    fn firth_matches_scipys_maximum_of_the_penalised_likelihood() {
        // reference.py units: "firth DECISIVE" (scipy.optimize.minimize).
        let (alpha, beta) = firth_logistic(&points(&[])).expect("a fit");
        close(alpha, 0.42175199432118, 1e-7);
        close(beta, 0.6540258741071336, 1e-7);
        // Without contamination in the data, the contaminated fit is the
        // plain one.
        let fit = fit_decisive(&points(&[]), None).expect("a fit");
        close(fit.alpha, alpha, 1e-9);
        assert_eq!(fit.epsilon, 0.0);
    }

    /// Points `(x, wins, losses)`, then the highest maximum's value, α
    /// and β.
    type MaximaCase = (&'static [(f64, f64, f64)], f64, f64, f64);

    #[test]
    // One x of the cases, drawn at random by firth_maxima.py, is 3.14.
    #[allow(clippy::approx_constant)]
    fn firth_finds_the_highest_of_several_maxima_of_the_penalised_likelihood() {
        // With few games and separated data, Firth's penalised likelihood
        // can have two maxima: one near the Elo curve, another at a steep
        // slope. Each case: the points, then the highest maximum's value,
        // α and β, found by testdata/stats/firth_maxima.py (scipy
        // Nelder-Mead from 35 starts, polished by BFGS), which also lists
        // the lower maxima.
        #[rustfmt::skip]
        let cases: [MaximaCase; 12] = [
            (&[(0.69, 0.0, 1.0), (1.18, 2.0, 0.0), (-1.76, 0.0, 2.0), (1.16, 3.0, 0.0), (-1.3, 0.0, 3.0)], -2.1627421740383603, -0.35830031349891567, 1.644696510985952), // other maxima: (-6.143, 7.312) -2.779935
            (&[(-2.07, 0.0, 2.0), (0.96, 3.0, 0.0), (0.55, 0.0, 1.0), (-2.38, 0.0, 1.0)], -1.9270228096454938, 0.05298784715335493, 1.029475291451445), // other maxima: (-5.183, 7.426) -2.974042
            (&[(-2.4, 0.0, 1.0), (-0.51, 0.0, 1.0), (-1.49, 0.0, 2.0), (-0.25, 2.0, 0.0)], -2.5071922398483135, 1.2322571466644399, 1.9858678211795957), // other maxima: (4.141, 10.215) -3.474542
            (&[(1.86, 1.0, 0.0), (1.82, 2.0, 0.0), (-0.22, 0.0, 2.0), (-0.84, 0.0, 1.0), (-0.17, 1.0, 1.0)], -2.5980303559144895, -0.6728812785839958, 1.4776771166105889), // other maxima: (5.472, 32.189) -5.733710
            (&[(3.14, 3.0, 0.0), (1.07, 3.0, 0.0), (-0.21, 1.0, 2.0), (-1.42, 0.0, 1.0), (-0.19, 2.0, 1.0), (2.99, 1.0, 0.0)], -4.4031727160795535, 0.30224902636655715, 1.3049444639815244), // other maxima: (10.217, 51.083) -8.105917
            (&[(0.99, 1.0, 0.0), (0.62, 1.0, 2.0), (3.09, 1.0, 0.0), (0.27, 0.0, 1.0), (1.29, 2.0, 0.0), (-1.85, 0.0, 2.0)], -3.628571105191066, -0.660511236728978, 1.1999830230060748), // other maxima: (-3.015, 4.142) -3.633309
            (&[(0.48, 2.0, 1.0), (2.65, 2.0, 0.0), (-1.71, 0.0, 3.0), (-2.49, 0.0, 1.0), (0.14, 0.0, 2.0)], -2.950911767478526, -0.7338415571493124, 1.1153473422163822), // other maxima: (-2.464, 6.187) -4.180097
            (&[(-0.15, 1.0, 1.0), (1.46, 1.0, 0.0), (-1.86, 0.0, 3.0), (-0.26, 0.0, 2.0), (1.58, 1.0, 0.0)], -2.542927394749462, -0.46701819318335447, 1.3892001967146155), // other maxima: (2.195, 14.631) -4.945253
            (&[(-0.55, 1.0, 0.0), (0.66, 3.0, 0.0), (1.39, 3.0, 0.0), (-0.63, 1.0, 2.0)], -3.2158950602625382, 0.9953155661857019, 1.5884880844683757), // other maxima: (12.163, 20.118) -5.747346
            (&[(1.1, 3.0, 0.0), (-2.36, 0.0, 2.0), (-0.7, 0.0, 1.0), (0.61, 0.0, 1.0)], -2.1109906016617934, -0.22493287071185727, 1.106056692392635), // other maxima: (-4.740, 6.050) -2.790829
            (&[(-2.75, 0.0, 2.0), (-1.39, 0.0, 2.0), (-1.38, 0.0, 3.0), (-0.57, 0.0, 3.0), (0.34, 1.0, 0.0), (3.6, 1.0, 0.0)], -1.8346648294168761, -1.1345424678177678, 0.9081239537569996), // other maxima: (-0.122, 2.498) -1.886219
            (&[(0.09, 3.0, 0.0), (-3.13, 0.0, 2.0), (-0.86, 0.0, 2.0)], -2.011774885146875, 1.5996418112231767, 3.7113908147141634), // other maxima: (0.911, 1.336) -2.225757
        ];
        let mut lower_found = 0;
        for (points, value, alpha, beta) in cases {
            let (a, b) = firth_logistic(points).expect("a fit");
            let full: Vec<_> = points.iter().map(|&(x, w, l)| (x, w, l, w + l)).collect();
            let reached = penalised_log_likelihood(&full, [a, b], true).expect("finite");
            close(reached, value, 1e-9);
            close(a, alpha, 1e-5);
            close(b, beta, 1e-5);
            // Where the fit from the flat curve alone stops elsewhere,
            // the starts say that they found several maxima (what makes
            // the bootstrap refit its replicates from every start).
            let (from_zero_alpha, _) = firth_logistic_from_zero(points).expect("a fit");
            let (_, several) = firth_logistic_maxima(points).expect("a fit");
            if (from_zero_alpha - alpha).abs() > 1e-4 {
                assert!(several, "{points:?}");
                lower_found += 1;
            }
        }
        assert!(
            lower_found > 0,
            "the fit from zero reaches the highest maximum in every case"
        );
        // Many games, steady results: one maximum.
        let plenty: Vec<(f64, f64, f64)> = (-5..=5)
            .map(|k| {
                let x = f64::from(k) / 2.0;
                let p = logistic(0.1 + x);
                (x, (40.0 * p).round(), (40.0 * (1.0 - p)).round())
            })
            .collect();
        let (fit, several) = firth_logistic_maxima(&plenty).expect("a fit");
        assert!(!several, "{fit:?}");
        let (alpha, beta) = firth_logistic_from_zero(&plenty).expect("a fit");
        close(fit.0, alpha, 1e-8);
        close(fit.1, beta, 1e-8);
    }

    #[test]
    fn upsets_at_both_ends_are_random_results_not_a_flatter_curve() {
        // Steep in the middle, two upsets in 32 games at each end.
        // reference.py units: "firth UPSETS" (the plain fit flattens to
        // 0.58 to explain them) and "fit_decisive UPSETS" (Nelder-Mead
        // over α, β and ε: the slope stays 2.43, and 5.4% of results go
        // either way). The EM stops at a relative change of 1e-11 in the
        // objective, so the parameters agree to about 1e-4.
        let points: Vec<(f64, f64, f64)> = [
            (-20, 1.0, 15.0),
            (-10, 4.0, 12.0),
            (0, 10.0, 10.0),
            (10, 12.0, 4.0),
            (20, 15.0, 1.0),
            (-100, 2.0, 30.0),
            (100, 30.0, 2.0),
        ]
        .iter()
        .map(|&(bin, w, l)| (bin_logit(bin), w, l))
        .collect();
        let (_, plain_beta) = firth_logistic(&points).expect("a fit");
        close(plain_beta, 0.5827707909413062, 1e-6);
        let fit = fit_decisive(&points, None).expect("a fit");
        assert!(fit.alpha.abs() < 1e-4, "{fit:?}");
        close(fit.beta, 2.4314330587475457, 1e-4);
        close(fit.epsilon, 0.053958097676576035, 1e-4);
        close(
            objective(&points, fit).expect("finite"),
            -52.810245252020664,
            1e-9,
        );
    }

    #[test]
    fn separated_results_still_give_a_finite_fit() {
        // Every game above the middle won, every game below lost: the
        // maximum likelihood slope is infinite, Firth's is not.
        let points = [(bin_logit(-20), 0.0, 4.0), (bin_logit(20), 4.0, 0.0)];
        let fit = fit_decisive(&points, None).expect("a fit");
        assert!(fit.beta.is_finite() && fit.beta > 0.0, "{fit:?}");
        let all_wins = [(0.0, 5.0, 0.0)];
        let (alpha, _) = firth_logistic(&all_wins).expect("a fit");
        close(alpha, (5.5f64 / 0.5).ln(), 1e-9);
    }
}
