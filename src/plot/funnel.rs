//! `stats --funnel`: the funnel plot, the standard picture for comparing
//! many units of different size (Spiegelhalter 2005, "Funnel plots for
//! comparing institutional performance", *Statistics in Medicine* 24).
//!
//! Each position's White score stands against its number of finished
//! games, on a log axis so that positions with 3 games and with 13,000
//! both have room. The score is adjusted for the ratings: the position's
//! score less the score the null model expects from its games' ratings,
//! plus the score of all games (without ratings, the raw score). Around
//! the score of all games, the limits that chance alone keeps 95% and
//! 99.8% of positions within narrow as the games grow, like a funnel on its
//! side: computed exactly for up to [`EXACT_GAMES`] games (the distribution
//! of n games' points when each is won, drawn or lost as often as the
//! archive's games are), interpolated between the discrete values as
//! Spiegelhalter does, and by the normal approximation beyond. Chance
//! alone puts about 1 position in 20 outside the inner limits and 1 in 500
//! outside the outer ones, so a point outside is a lead, not a finding:
//! the positions significant after the multiplicity (q < 0.05) are red,
//! and at most [`MAX_LABELS`] positions, the most extreme, carry their
//! numbers.

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    FONT, GRID, HIGHLIGHT, LEGEND_WIDTH, MEAN, Marker, POINT, PlotError, Root, SIZE, caption,
    draw_error, draw_label, draw_legend, draw_nothing_to_plot, merged, thousands, write_svg,
};
use crate::stats::{FALSE_DISCOVERY_RATE, TableAnalysis};

const INNER: RGBColor = RGBColor(120, 150, 200);
const OUTER: RGBColor = RGBColor(200, 120, 60);
const LABEL: RGBColor = RGBColor(90, 90, 90);

/// Up to this many games the limits are exact.
pub const EXACT_GAMES: u64 = 2000;

/// At most this many positions are labelled.
pub const MAX_LABELS: usize = 5;

/// When no position is significant, this many of the most extreme are
/// labelled, so that the reader can find them in the CSV.
const EXTREME_LABELS: usize = 3;

/// The probabilities of the limits: 95% and 99.8%, both sides.
const LEVELS: [f64; 4] = [0.025, 0.975, 0.001, 0.999];

/// One position on the plot.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Point {
    scharnagl: u16,
    games: u64,
    score: f64,
    p_value: Option<f64>,
    q_value: Option<f64>,
}

/// What the plot shows.
#[derive(Clone, Debug, PartialEq)]
struct Funnel {
    points: Vec<Point>,
    /// White's score over all finished games.
    mean: Option<f64>,
    /// The share of White wins, draws and Black wins over them.
    outcome: [f64; 3],
    /// Whether any score is adjusted for ratings.
    adjusted: bool,
    /// The labelled positions, most extreme first.
    labelled: Vec<u16>,
}

impl Funnel {
    fn of(analysis: &TableAnalysis<'_>) -> Funnel {
        let (merged_analysis, rows) = merged(analysis);
        let total = analysis.table.total();
        let mean = total.white_score();
        let finished = total.finished().max(1) as f64;
        let outcome = [
            total.white_wins as f64 / finished,
            total.draws as f64 / finished,
            total.black_wins as f64 / finished,
        ];
        let mut adjusted = false;
        let points: Vec<Point> = rows
            .iter()
            .filter_map(|(&scharnagl, stats)| {
                let score = stats.white_score()?;
                let findings = merged_analysis.positions.get(&scharnagl);
                let expected = findings.and_then(|f| f.expected_score);
                let rated = stats.elo_games > 0;
                adjusted |= rated && expected.is_some();
                let score = match (expected, mean) {
                    (Some(expected), Some(mean)) => score - expected + mean,
                    _ => score,
                };
                Some(Point {
                    scharnagl,
                    games: stats.finished(),
                    score: score.clamp(0.0, 1.0),
                    p_value: findings.and_then(|f| f.test).map(|t| t.p_value),
                    q_value: findings.and_then(|f| f.q_value),
                })
            })
            .collect();
        let labelled = labelled(&points);
        Funnel {
            points,
            mean,
            outcome,
            adjusted,
            labelled,
        }
    }

    fn significant(&self, point: &Point) -> bool {
        point.q_value.is_some_and(|q| q < FALSE_DISCOVERY_RATE)
    }
}

/// The significant positions with the smallest p-values, at most
/// [`MAX_LABELS`]; without any, the [`EXTREME_LABELS`] smallest p-values.
fn labelled(points: &[Point]) -> Vec<u16> {
    let mut tested: Vec<&Point> = points.iter().filter(|p| p.p_value.is_some()).collect();
    tested.sort_by(|a, b| {
        a.p_value
            .partial_cmp(&b.p_value)
            .expect("p-values are numbers")
            .then(a.scharnagl.cmp(&b.scharnagl))
    });
    let significant: Vec<u16> = tested
        .iter()
        .filter(|p| p.q_value.is_some_and(|q| q < FALSE_DISCOVERY_RATE))
        .take(MAX_LABELS)
        .map(|p| p.scharnagl)
        .collect();
    if significant.is_empty() {
        tested
            .iter()
            .take(EXTREME_LABELS)
            .map(|p| p.scharnagl)
            .collect()
    } else {
        significant
    }
}

/// Draws the funnel plot of a table's analysis as an SVG file.
///
/// One point per position with at least one finished game (rows of a
/// grouped table are merged per position first): its number of finished
/// games n across on a log axis, White's score (adjusted for the ratings
/// where games are rated) up. A dashed line marks the score of all games;
/// curves mark the 2.5%/97.5% and 0.1%/99.9% points of the score of n
/// games that win, draw and lose as often as all games do, exact up to
/// [`EXACT_GAMES`] games. Significant positions (q < 0.05) are red; at
/// most [`MAX_LABELS`] positions are labelled. The same analysis always
/// gives the same bytes; a table without finished games gives empty axes
/// and a note saying so.
///
/// # Errors
///
/// [`PlotError::Io`] when `out` fails;
/// [`PlotError::Draw`] if plotters fails, which it should not for an
/// in-memory SVG.
pub fn write_funnel_svg(
    analysis: &TableAnalysis<'_>,
    out: impl std::io::Write,
) -> Result<(), PlotError> {
    write_svg(&render_funnel(analysis)?, out)
}

/// The SVG document [`write_funnel_svg`] writes.
fn render_funnel(analysis: &TableAnalysis<'_>) -> Result<String, PlotError> {
    let funnel = Funnel::of(analysis);
    super::render(|root| draw(root, &funnel))
}

type LogChart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<
        plotters::coord::combinators::LogCoord<f64>,
        plotters::coord::types::RangedCoordf64,
    >,
>;

fn draw(root: &Root<'_>, funnel: &Funnel) -> Result<(), PlotError> {
    let (chart_area, panel) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let games: u64 = funnel.points.iter().map(|p| p.games).sum();
    let most = funnel.points.iter().map(|p| p.games).max().unwrap_or(1);
    let x_end = (most as f64 * 1.6).max(10.0);
    let title = caption("Funnel plot of White's score", funnel.points.len(), games);
    let y_desc = if funnel.adjusted {
        "White's score, adjusted for the ratings"
    } else {
        "White's score"
    };
    let mut chart = ChartBuilder::on(&chart_area)
        .caption(title, (FONT, 22))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(72)
        .build_cartesian_2d((0.8..x_end).log_scale(), 0.0..1.0)
        .map_err(draw_error)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|x: &f64| thousands(x.round() as u64))
        .y_labels(11)
        .y_label_formatter(&|y| format!("{y:.1}"))
        .light_line_style(WHITE)
        .bold_line_style(GRID)
        .x_desc("finished games at the position (log scale)")
        .y_desc(y_desc)
        .axis_desc_style((FONT, 18))
        .label_style((FONT, 15))
        .draw()
        .map_err(draw_error)?;
    let Some(mean) = funnel.mean else {
        return draw_nothing_to_plot(&mut chart, (3.0, 0.5));
    };
    draw_limits(&mut chart, funnel, mean, x_end)?;
    draw_positions(&mut chart, funnel)?;
    draw_names(&chart, funnel)?;
    let significant = funnel
        .points
        .iter()
        .filter(|p| funnel.significant(p))
        .count();
    let labelled = if significant > 0 {
        format!(
            "numbered: the {} with the smallest\np-values",
            funnel.labelled.len().min(significant)
        )
    } else {
        format!(
            "numbered: the {} smallest p-values\n(none significant)",
            funnel.labelled.len()
        )
    };
    draw_legend(
        &panel,
        &[
            (Marker::Dot(POINT, 0.45), "a start position".to_string()),
            (
                Marker::Dot(HIGHLIGHT, 1.0),
                format!("significant, q < 0.05 ({significant})"),
            ),
            (Marker::Dot(LABEL, 0.0), labelled),
            (
                Marker::Line(MEAN, true),
                format!("score of all games: {mean:.3}"),
            ),
            (
                Marker::Line(INNER, false),
                "95% limits of chance\n(1 position in 20 outside)".to_string(),
            ),
            (
                Marker::Line(OUTER, true),
                "99.8% limits of chance\n(1 position in 500 outside)".to_string(),
            ),
            (
                Marker::Dot(WHITE, 0.0),
                format!("exact up to {} games", thousands(EXACT_GAMES)),
            ),
        ],
    )
}

/// The mean, and the limits around it.
fn draw_limits(
    chart: &mut LogChart<'_, '_>,
    funnel: &Funnel,
    mean: f64,
    x_end: f64,
) -> Result<(), PlotError> {
    chart
        .draw_series([DashedPathElement::new(
            [(0.8, mean), (x_end, mean)],
            8,
            5,
            MEAN.stroke_width(2),
        )])
        .map_err(draw_error)?;
    let curves = limit_curves(funnel.outcome, x_end);
    for (index, colour, dashed) in [
        (0, INNER, false),
        (1, INNER, false),
        (2, OUTER, true),
        (3, OUTER, true),
    ] {
        let points: Vec<(f64, f64)> = curves
            .iter()
            .map(|(n, l)| (*n, l[index].clamp(0.0, 1.0)))
            .collect();
        let style = colour.stroke_width(2);
        if dashed {
            chart
                .draw_series([DashedPathElement::new(points, 7, 4, style)])
                .map_err(draw_error)?;
        } else {
            chart
                .draw_series([PathElement::new(points, style)])
                .map_err(draw_error)?;
        }
    }
    Ok(())
}

/// The limits (2.5%, 97.5%, 0.1%, 99.9% points of the mean score of n
/// games) at n = 1, 2, ... up to [`EXACT_GAMES`], exact and interpolated;
/// then by the normal approximation at geometrically spaced n up to
/// `x_end`.
fn limit_curves(outcome: [f64; 3], x_end: f64) -> Vec<(f64, [f64; 4])> {
    let [win, draw, loss] = outcome;
    let last_exact = (x_end.floor() as u64).min(EXACT_GAMES);
    let mut curves = Vec::new();
    // The distribution of half-points of n games: 0 (loss), 1, 2 (win).
    let mut pmf = vec![1.0];
    for n in 1..=last_exact {
        let mut next = vec![0.0; pmf.len() + 2];
        for (h, p) in pmf.iter().enumerate() {
            next[h] += p * loss;
            next[h + 1] += p * draw;
            next[h + 2] += p * win;
        }
        pmf = next;
        let limits = LEVELS.map(|level| interpolated_quantile(&pmf, level) / (2 * n) as f64);
        curves.push((n as f64, limits));
    }
    let mean = win + draw / 2.0;
    let variance = win + draw / 4.0 - mean * mean;
    let mut n = (last_exact + 1) as f64;
    while n < x_end {
        let limits = LEVELS.map(|level| {
            let z = normal_quantile(level);
            (mean + z * (variance / n).sqrt()).clamp(0.0, 1.0)
        });
        curves.push((n, limits));
        n *= 1.05;
    }
    curves
}

/// Spiegelhalter's (2005, appendix) interpolated `level` quantile of a
/// discrete distribution on 0, 1, 2, ...: r the least value with
/// F(r) ≥ level, less (F(r) − level)/(F(r) − F(r − 1)).
fn interpolated_quantile(pmf: &[f64], level: f64) -> f64 {
    let mut cdf = 0.0;
    for (r, p) in pmf.iter().enumerate() {
        let before = cdf;
        cdf += p;
        if cdf >= level && *p > 0.0 {
            return r as f64 - (cdf - level) / (cdf - before);
        }
    }
    (pmf.len() - 1) as f64
}

fn normal_quantile(level: f64) -> f64 {
    use statrs::distribution::{ContinuousCDF, Normal};
    Normal::standard().inverse_cdf(level)
}

/// Every position as a translucent point (positions with few games share
/// a few places: the more at a place, the darker); significant ones red.
fn draw_positions(chart: &mut LogChart<'_, '_>, funnel: &Funnel) -> Result<(), PlotError> {
    let radius = if funnel.points.len() > 250 { 3 } else { 4 };
    let (significant, other): (Vec<&Point>, Vec<&Point>) =
        funnel.points.iter().partition(|p| funnel.significant(p));
    chart
        .draw_series(
            other
                .iter()
                .map(|p| Circle::new((p.games as f64, p.score), radius, POINT.mix(0.35).filled())),
        )
        .map_err(draw_error)?;
    chart
        .draw_series(
            significant
                .iter()
                .map(|p| Circle::new((p.games as f64, p.score), radius + 1, HIGHLIGHT.filled())),
        )
        .map_err(draw_error)?;
    Ok(())
}

/// The Scharnagl numbers of the labelled positions, beside their points.
fn draw_names(chart: &LogChart<'_, '_>, funnel: &Funnel) -> Result<(), PlotError> {
    for id in &funnel.labelled {
        let point = funnel
            .points
            .iter()
            .find(|p| p.scharnagl == *id)
            .expect("labelled points are points");
        let colour = if funnel.significant(point) {
            HIGHLIGHT
        } else {
            LABEL
        };
        let style = TextStyle::from((FONT, 15))
            .color(&colour)
            .pos(Pos::new(HPos::Left, VPos::Center));
        draw_label(
            chart,
            point.scharnagl.to_string(),
            (point.games as f64, point.score),
            (7, 0),
            style,
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BackRank;
    use crate::stats::{GameFacts, GameResult, StatsTable};

    fn add(table: &mut StatsTable, group: &str, scharnagl: u32, result: GameResult, times: u32) {
        let position = BackRank::from_scharnagl(scharnagl).expect("test ids are below 960");
        let game = GameFacts {
            result: Some(result),
            white_elo: None,
            black_elo: None,
        };
        for _ in 0..times {
            table.add(group, position, &game);
        }
    }

    /// Ten positions of 100 games at 40 wins, 20 draws, 40 losses (score
    /// 0.5), and position 77 with 100 wins of 100.
    fn table_with_one_outlier() -> StatsTable {
        let mut table = StatsTable::default();
        for id in 0..10 {
            add(&mut table, "", id, GameResult::WhiteWins, 40);
            add(&mut table, "", id, GameResult::Draw, 20);
            add(&mut table, "", id, GameResult::BlackWins, 40);
        }
        add(&mut table, "", 77, GameResult::WhiteWins, 100);
        table
    }

    #[test]
    fn the_outlier_is_significant_red_and_labelled_alone() {
        let table = table_with_one_outlier();
        let analysis = TableAnalysis::of(&table);
        let funnel = Funnel::of(&analysis);
        let mean = funnel.mean.expect("games");
        assert!((mean - 600.0 / 1100.0).abs() < 1e-12);
        assert_eq!(funnel.labelled, [77]);
        assert!(!funnel.adjusted, "no ratings, raw scores");
        let svg = render_funnel(&analysis).expect("a plot");
        assert!(svg.contains(">\n77\n</text>"), "77 is labelled");
        assert!(svg.contains("significant, q &lt; 0.05 (1)"), "{svg}");
        assert!(svg.contains("11 Chess960 start positions (1,100 finished games)"));
        assert!(svg.contains("finished games at the position (log scale)"));
        assert_eq!(svg, render_funnel(&analysis).expect("again"), "same bytes");
    }

    #[test]
    fn exact_limits_match_the_trinomial_and_then_the_normal() {
        // One game winning, drawing and losing a third of the time each:
        // half-points 0, 1, 2 with F = 1/3, 2/3, 1. The 2.5% point: r = 0,
        // 0 − (1/3 − 0.025)/(1/3) = −0.925 half-points, a score of −0.4625
        // (below 0: no game scores less, the curve leaves the plot).
        let curves = limit_curves([1.0 / 3.0; 3], 3000.0);
        let (n, limits) = curves[0];
        assert_eq!(n, 1.0);
        assert!((limits[0] - (-0.925 / 2.0)).abs() < 1e-12, "{limits:?}");
        // The 97.5% point: r = 2, 2 − (1 − 0.975)/(1/3) = 1.925.
        assert!((limits[1] - 1.925 / 2.0).abs() < 1e-12, "{limits:?}");
        // At 2,000 games the exact limits are within 1e-3 of the normal's.
        let (n, limits) = curves[EXACT_GAMES as usize - 1];
        assert_eq!(n, EXACT_GAMES as f64);
        let sd = (1.0f64 / 6.0 / 2000.0).sqrt();
        assert!(
            (limits[1] - (0.5 + 1.959964 * sd)).abs() < 1e-3,
            "{limits:?}"
        );
        // Beyond, the normal limits.
        let (n, limits) = curves[EXACT_GAMES as usize];
        let sd = (1.0f64 / 6.0 / n).sqrt();
        assert!((limits[3] - (0.5 + 3.090232 * sd)).abs() < 1e-6);
    }

    #[test]
    fn groups_merge_and_an_empty_table_says_so() {
        let mut grouped = StatsTable::default();
        add(&mut grouped, "a", 3, GameResult::WhiteWins, 2);
        add(&mut grouped, "b", 3, GameResult::Draw, 2);
        add(&mut grouped, "b", 9, GameResult::BlackWins, 1);
        let mut flat = StatsTable::default();
        add(&mut flat, "", 3, GameResult::WhiteWins, 2);
        add(&mut flat, "", 3, GameResult::Draw, 2);
        add(&mut flat, "", 9, GameResult::BlackWins, 1);
        assert_eq!(
            render_funnel(&TableAnalysis::of(&grouped)).expect("grouped"),
            render_funnel(&TableAnalysis::of(&flat)).expect("flat")
        );
        let empty = StatsTable::default();
        let svg = render_funnel(&TableAnalysis::of(&empty)).expect("an empty plot");
        assert!(svg.contains("no finished games to plot"));
    }
}
