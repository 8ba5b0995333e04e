//! `stats --funnel`: the funnel plot, the standard picture for comparing
//! many units of different size (hospitals, schools, here start
//! positions). Each position's White score stands against its number of
//! games; around the mean of all games, the limits mean ± z·σ/√n narrow as
//! n grows, like a funnel on its side. If no position differs from
//! another, 95% of the positions lie inside the inner limits and 99.8%
//! inside the outer ones wherever they fall along n; a position outside the
//! outer limits is labelled with its number. Unlike a ranking, the picture
//! does not put a position with two games next to one with two thousand.

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    Chart, FONT, GRID, HIGHLIGHT, MEAN, POINT, PlotError, Root, caption, draw_error, draw_label,
    draw_legend, draw_nothing_to_plot, render, thousands, write_svg,
};
use crate::stats::{StatsTable, Z_95, Z_998};

const INNER: RGBColor = RGBColor(120, 150, 200);
const OUTER: RGBColor = RGBColor(200, 120, 60);

/// Points along each limit curve: enough for a smooth line, spaced
/// geometrically since the curves bend most at small n.
const CURVE_POINTS: usize = 240;

/// One position on the plot.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Point {
    scharnagl: u16,
    games: u64,
    score: f64,
}

/// What the plot shows: the positions with finished games (all groups
/// merged), the mean score of all their games and σ, one game's standard
/// deviation about it.
#[derive(Clone, Debug, PartialEq)]
struct Funnel {
    points: Vec<Point>,
    mean: Option<f64>,
    sigma: Option<f64>,
}

impl Funnel {
    fn of(table: &StatsTable) -> Funnel {
        let merged = table.merged_positions();
        let points = merged
            .iter()
            .filter_map(|(&scharnagl, stats)| {
                Some(Point {
                    scharnagl,
                    games: stats.finished(),
                    score: stats.white_score()?,
                })
            })
            .collect();
        let total = table.total();
        Funnel {
            points,
            mean: total.white_score(),
            sigma: total.white_score_variance().map(f64::sqrt),
        }
    }

    /// Whether `point` lies outside the limits at `z`.
    fn outside(&self, point: &Point, z: f64) -> bool {
        match (self.mean, self.sigma) {
            (Some(mean), Some(sigma)) => {
                (point.score - mean).abs() > z * sigma / (point.games as f64).sqrt()
            }
            _ => false,
        }
    }
}

/// Draws the funnel plot of a table as an SVG file.
///
/// One point per position with at least one finished game (rows of a
/// grouped table are merged per position first): its number of finished
/// games n across, White's score up. A dashed line marks the score s̄ of
/// all games; curves mark s̄ ± z·σ/√n for z = 1.959964 (95%) and 3.090232
/// (99.8%), σ being one game's standard deviation about s̄ (see
/// [`crate::stats::PositionStats::white_score_variance`]). Points outside
/// the 99.8% limits are red and labelled with their Scharnagl number. The
/// same table always gives the same bytes; a table without finished games
/// gives empty axes and a note saying so.
///
/// # Errors
///
/// [`PlotError::Io`] when `out` fails;
/// [`PlotError::Draw`] if plotters fails, which it should not for an
/// in-memory SVG.
pub fn write_funnel_svg(table: &StatsTable, out: impl std::io::Write) -> Result<(), PlotError> {
    write_svg(&render_funnel(table)?, out)
}

/// The SVG document [`write_funnel_svg`] writes.
fn render_funnel(table: &StatsTable) -> Result<String, PlotError> {
    let funnel = Funnel::of(table);
    render(|root| draw(root, &funnel))
}

fn draw(root: &Root<'_>, funnel: &Funnel) -> Result<(), PlotError> {
    let games: u64 = funnel.points.iter().map(|p| p.games).sum();
    let most = funnel.points.iter().map(|p| p.games).max().unwrap_or(0);
    // 5% of air to the right of the position with the most games.
    let x_end = (most as f64 * 1.05).max(1.0);
    let title = caption("Funnel plot of White's score", funnel.points.len(), games);
    let mut chart = funnel_chart(root, title, x_end)?;
    let (Some(mean), Some(sigma)) = (funnel.mean, funnel.sigma) else {
        return draw_nothing_to_plot(&mut chart, (x_end / 2.0, 0.5));
    };
    draw_limits(&mut chart, mean, sigma, x_end)?;
    draw_positions(&mut chart, funnel)?;
    draw_outlier_names(&chart, funnel)?;
    // Lower right: below the funnel's narrow end, where no position lies
    // unless it is far below the mean.
    draw_legend(&mut chart, SeriesLabelPosition::LowerRight)
}

/// The axes: finished games from 0 to `x_end`, scores from 0 to 1.
fn funnel_chart<'a, 'b>(
    root: &'a Root<'b>,
    title: String,
    x_end: f64,
) -> Result<Chart<'a, 'b>, PlotError> {
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 26))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(72)
        .build_cartesian_2d(0.0..x_end, 0.0..1.0)
        .map_err(draw_error)?;
    let games_label = |x: &f64| {
        // plotters picks round steps; a fractional one is no game count.
        if (x - x.round()).abs() < 1e-9 && *x >= 0.0 {
            thousands(x.round() as u64)
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .x_labels(11)
        .x_label_formatter(&games_label)
        .y_labels(11)
        .y_label_formatter(&|y| format!("{y:.1}"))
        .light_line_style(WHITE)
        .bold_line_style(GRID)
        .x_desc("finished games at the position")
        .y_desc("White's score")
        .axis_desc_style((FONT, 20))
        .label_style((FONT, 16))
        .draw()
        .map_err(draw_error)?;
    Ok(chart)
}

/// The mean, and the 95% and 99.8% limits around it.
fn draw_limits(
    chart: &mut Chart<'_, '_>,
    mean: f64,
    sigma: f64,
    x_end: f64,
) -> Result<(), PlotError> {
    chart
        .draw_series([DashedPathElement::new(
            [(0.0, mean), (x_end, mean)],
            8,
            5,
            MEAN.stroke_width(2),
        )])
        .map_err(draw_error)?
        .label(format!("White's score over all games: {mean:.3}"))
        .legend(|(x, y)| DashedPathElement::new([(x, y), (x + 20, y)], 6, 3, MEAN.stroke_width(2)));
    for (z, colour, name) in [
        (Z_95, INNER, "95% limits: mean ± 1.96 σ/√n"),
        (Z_998, OUTER, "99.8% limits: mean ± 3.09 σ/√n"),
    ] {
        let style = colour.stroke_width(2);
        let curves = [1.0, -1.0].map(|side| limit_curve(mean, side * z * sigma, x_end));
        let [upper, lower] = curves;
        chart
            .draw_series(
                [upper, lower]
                    .into_iter()
                    .filter(|curve| curve.len() > 1)
                    .map(move |curve| PathElement::new(curve, style)),
            )
            .map_err(draw_error)?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    }
    Ok(())
}

/// The points of mean + spread/√n for n from where the curve enters [0, 1]
/// to `x_end`; none when it never does.
fn limit_curve(mean: f64, spread: f64, x_end: f64) -> Vec<(f64, f64)> {
    // The curve is inside [0, 1] from n = (spread / room)², room being the
    // distance from the mean to the border the curve heads for.
    let room = if spread > 0.0 { 1.0 - mean } else { mean };
    if room <= 0.0 {
        return Vec::new();
    }
    let start = (spread / room).powi(2).max(1e-3);
    if start >= x_end {
        return Vec::new();
    }
    let ratio = (x_end / start).powf(1.0 / (CURVE_POINTS - 1) as f64);
    (0..CURVE_POINTS)
        .map(|i| {
            let n = if i == CURVE_POINTS - 1 {
                x_end
            } else {
                start * ratio.powi(i as i32)
            };
            (n, (mean + spread / n.sqrt()).clamp(0.0, 1.0))
        })
        .collect()
}

/// Every position as a point, translucent, since positions with few games
/// share a few places (two games score 0, 0.25, 0.5, 0.75 or 1): the more
/// positions at a place, the darker its point. Red for those outside the
/// 99.8% limits.
fn draw_positions(chart: &mut Chart<'_, '_>, funnel: &Funnel) -> Result<(), PlotError> {
    let radius = if funnel.points.len() > 250 { 3 } else { 4 };
    let (outside, inside): (Vec<&Point>, Vec<&Point>) =
        funnel.points.iter().partition(|p| funnel.outside(p, Z_998));
    chart
        .draw_series(
            inside
                .iter()
                .map(|p| Circle::new((p.games as f64, p.score), radius, POINT.mix(0.3).filled())),
        )
        .map_err(draw_error)?
        .label("a start position (darker where several share a place)")
        .legend(|(x, y)| Circle::new((x + 10, y), 4, POINT.filled()));
    chart
        .draw_series(
            outside
                .iter()
                .map(|p| Circle::new((p.games as f64, p.score), radius + 1, HIGHLIGHT.filled())),
        )
        .map_err(draw_error)?
        .label(format!(
            "outside the 99.8% limits ({}), with its number",
            outside.len()
        ))
        .legend(|(x, y)| Circle::new((x + 10, y), 4, HIGHLIGHT.filled()));
    Ok(())
}

/// The Scharnagl number beside each point outside the 99.8% limits, to
/// its right (the plot keeps 5% of air right of the last position).
fn draw_outlier_names(chart: &Chart<'_, '_>, funnel: &Funnel) -> Result<(), PlotError> {
    let style = TextStyle::from((FONT, 15))
        .color(&HIGHLIGHT)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for point in funnel.points.iter().filter(|p| funnel.outside(p, Z_998)) {
        let at = (point.games as f64, point.score);
        draw_label(
            chart,
            point.scharnagl.to_string(),
            at,
            (6, 0),
            style.clone(),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BackRank;
    use crate::stats::{GameFacts, GameResult};

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
    fn the_outlier_is_labelled_and_no_other() {
        let table = table_with_one_outlier();
        let funnel = Funnel::of(&table);
        // 1100 games: 500 + 100 + 100 wins... s = (500 + 100) / 1100.
        let mean = funnel.mean.expect("games");
        assert!((mean - 600.0 / 1100.0).abs() < 1e-12);
        let outside: Vec<u16> = funnel
            .points
            .iter()
            .filter(|p| funnel.outside(p, Z_998))
            .map(|p| p.scharnagl)
            .collect();
        assert_eq!(outside, [77]);
        let svg = render_funnel(&table).expect("a plot");
        assert!(svg.contains(">\n77\n</text>"), "77 is labelled");
        assert!(svg.contains("outside the 99.8% limits (1), with its number"));
        assert!(svg.contains("11 Chess960 start positions (1,100 finished games)"));
        assert!(svg.contains("finished games at the position"));
        assert_eq!(svg, render_funnel(&table).expect("again"), "same bytes");
    }

    #[test]
    fn limits_enter_the_plot_where_they_cross_its_border() {
        // Mean 0.5, spread 0.5: the upper curve reaches 1 at n = 1.
        let curve = limit_curve(0.5, 0.5, 100.0);
        assert_eq!(curve.len(), CURVE_POINTS);
        assert!((curve[0].0 - 1.0).abs() < 1e-12 && (curve[0].1 - 1.0).abs() < 1e-12);
        assert_eq!(curve[CURVE_POINTS - 1].0, 100.0);
        assert!((curve[CURVE_POINTS - 1].1 - 0.55).abs() < 1e-12);
        // The lower curve of a mean of 0 never enters.
        assert!(limit_curve(0.0, -0.3, 100.0).is_empty());
        // Nor one that would enter beyond the last position.
        assert!(limit_curve(0.5, 5.0, 50.0).is_empty());
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
            render_funnel(&grouped).expect("grouped"),
            render_funnel(&flat).expect("flat")
        );
        let svg = render_funnel(&StatsTable::default()).expect("an empty plot");
        assert!(svg.contains("no finished games to plot"));
    }
}
