//! `stats --plot`: the positions ranked by White's score, each raw score
//! with its Wilson interval and, beside it, its empirical-Bayes estimate,
//! which pulls a score built on few games towards the mean of all.

use std::cmp::Ordering;

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    BAR, Chart, FONT, GRID, HIGHLIGHT, MEAN, POINT, PlotError, Root, SHRUNK, caption, draw_error,
    draw_label, draw_legend, draw_nothing_to_plot, render, thousands, write_svg,
};
use crate::stats::{PositionStats, ShrunkScore, StatsTable, shrink};

/// The Scharnagl number of the standard start position.
const STANDARD: u16 = 518;

/// Up to this many positions, each point carries its Scharnagl number.
const MAX_NAMED_POINTS: usize = 30;

/// Up to this many positions, the empirical-Bayes intervals are drawn too;
/// beyond, they would hide the raw intervals they stand beside.
const MAX_SHRUNK_INTERVALS: usize = 60;

/// One position on the plot.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Point {
    scharnagl: u16,
    stats: PositionStats,
    score: f64,
    low: f64,
    high: f64,
    shrunk: Option<ShrunkScore>,
}

/// The positions with finished games, all groups merged, sorted by White's
/// score and then by Scharnagl number, with their empirical-Bayes
/// estimates over the merged table.
fn points(table: &StatsTable) -> Vec<Point> {
    let merged = table.merged_positions();
    let model = shrink(&merged);
    let mut points: Vec<Point> = merged
        .into_iter()
        .filter_map(|(scharnagl, stats)| {
            let score = stats.white_score()?;
            let (low, high) = stats.white_score_interval()?;
            let shrunk = model
                .as_ref()
                .and_then(|model| model.estimates.get(&scharnagl).copied());
            Some(Point {
                scharnagl,
                stats,
                score,
                low,
                high,
                shrunk,
            })
        })
        .collect();
    // Compared as exact fractions (2 wins + draws) / (2 finished), so that
    // equal scores tie exactly and the order never depends on rounding.
    points.sort_by(|a, b| compare_scores(&a.stats, &b.stats).then(a.scharnagl.cmp(&b.scharnagl)));
    points
}

fn compare_scores(a: &PositionStats, b: &PositionStats) -> Ordering {
    let half_points = |s: &PositionStats| u128::from(2 * s.white_wins + s.draws);
    let halves = |s: &PositionStats| u128::from(2 * s.finished());
    (half_points(a) * halves(b)).cmp(&(half_points(b) * halves(a)))
}

/// Draws White's score per start position as an SVG file.
///
/// One point per position with at least one finished game (rows of a
/// grouped table are merged per position first), ordered left to right by
/// White's score, with a vertical bar for its 95% Wilson interval and, at
/// the same rank, its empirical-Bayes estimate (see
/// [`crate::stats::shrink`]; with its interval up to 60 positions).
/// Position 518, the standard start, is drawn in red and labelled; a dashed
/// line marks White's score over all games. The same table always gives the
/// same bytes.
///
/// A table without finished games still gives a plot, with empty axes and a
/// note saying so, just as the CSV of such a table is a header alone.
///
/// # Errors
///
/// [`PlotError::Io`] when `out` fails;
/// [`PlotError::Draw`] if plotters fails, which it should not for an
/// in-memory SVG.
pub fn write_ranking_svg(table: &StatsTable, out: impl std::io::Write) -> Result<(), PlotError> {
    write_svg(&render_ranking(table)?, out)
}

/// The SVG document [`write_ranking_svg`] writes.
fn render_ranking(table: &StatsTable) -> Result<String, PlotError> {
    let points = points(table);
    let total = table.total();
    render(|root| draw(root, &points, &total))
}

/// Marker sizes: (radius of a point, width of a bar). They shrink as
/// positions crowd together: 960 points share about 1100 pixels, so their
/// bars are hairlines that blend into a band.
fn sizes(count: usize) -> (i32, u32) {
    match count {
        0..=60 => (4, 2),
        61..=250 => (3, 2),
        _ => (2, 1),
    }
}

/// The x of the point of rank `rank` (0-based): ranks run from 1.
fn x_of(rank: usize) -> f64 {
    (rank + 1) as f64
}

fn draw(root: &Root<'_>, points: &[Point], total: &PositionStats) -> Result<(), PlotError> {
    let games: u64 = points.iter().map(|p| p.stats.finished()).sum();
    let title = caption("White's score", points.len(), games);
    let mut chart = ranking_chart(root, title, points.len())?;
    if points.is_empty() {
        return draw_nothing_to_plot(&mut chart, (1.0, 0.5));
    }
    draw_scores(&mut chart, points)?;
    draw_shrunk(&mut chart, points)?;
    if let Some(mean) = total.white_score() {
        draw_mean(&mut chart, mean, x_of(points.len()) - 0.5)?;
    }
    draw_standard(&mut chart, points)?;
    if points.len() <= MAX_NAMED_POINTS {
        draw_point_names(&mut chart, points)?;
    }
    // Upper left: there the points are the lowest scores, furthest away.
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft)
}

/// The axes: ranks 1 to `count` (half a rank of air on either side), and
/// scores from 0 to 1.
fn ranking_chart<'a, 'b>(
    root: &'a Root<'b>,
    title: String,
    count: usize,
) -> Result<Chart<'a, 'b>, PlotError> {
    let x_end = count as f64 + 0.5;
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 26))
        .margin(16)
        .x_label_area_size(56)
        .y_label_area_size(72)
        .build_cartesian_2d(0.5..x_end.max(1.5), 0.0..1.0)
        .map_err(draw_error)?;
    let rank_label = |x: &f64| {
        let rounded = x.round();
        // Only whole ranks inside the data are positions.
        if (x - rounded).abs() < 1e-9 && rounded >= 1.0 && rounded <= count as f64 {
            format!("{rounded:.0}")
        } else {
            String::new()
        }
    };
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(count.min(11))
        .x_label_formatter(&rank_label)
        .y_labels(11)
        .y_label_formatter(&|y| format!("{y:.1}"))
        .light_line_style(WHITE)
        .bold_line_style(GRID)
        .x_desc("positions, ordered by White's score")
        .y_desc("White's score")
        .axis_desc_style((FONT, 20))
        .label_style((FONT, 16))
        .draw()
        .map_err(draw_error)?;
    Ok(chart)
}

/// Each position's raw score and its Wilson interval.
fn draw_scores(chart: &mut Chart<'_, '_>, points: &[Point]) -> Result<(), PlotError> {
    let (radius, bar_width) = sizes(points.len());
    chart
        .draw_series(points.iter().enumerate().map(|(rank, p)| {
            PathElement::new(
                vec![(x_of(rank), p.low), (x_of(rank), p.high)],
                BAR.stroke_width(bar_width),
            )
        }))
        .map_err(draw_error)?
        .label("95% interval (Wilson)")
        .legend(|(x, y)| {
            PathElement::new(vec![(x + 10, y - 8), (x + 10, y + 8)], BAR.stroke_width(3))
        });
    chart
        .draw_series(
            points
                .iter()
                .enumerate()
                .map(|(rank, p)| Circle::new((x_of(rank), p.score), radius, POINT.filled())),
        )
        .map_err(draw_error)?
        .label("a start position: White's score")
        .legend(move |(x, y)| Circle::new((x + 10, y), 4, POINT.filled()));
    Ok(())
}

/// Each position's empirical-Bayes estimate beside its raw score: a cross
/// at the same rank, and with few positions its interval, a quarter rank
/// to the right.
fn draw_shrunk(chart: &mut Chart<'_, '_>, points: &[Point]) -> Result<(), PlotError> {
    let shrunk: Vec<(f64, ShrunkScore)> = points
        .iter()
        .enumerate()
        .filter_map(|(rank, p)| Some((x_of(rank), p.shrunk?)))
        .collect();
    if shrunk.is_empty() {
        return Ok(());
    }
    let (radius, bar_width) = sizes(points.len());
    chart
        .draw_series(
            shrunk
                .iter()
                .map(|(x, s)| Cross::new((*x, s.estimate), radius, SHRUNK.stroke_width(2))),
        )
        .map_err(draw_error)?
        .label("its empirical-Bayes estimate (shrunk towards the mean)")
        .legend(|(x, y)| Cross::new((x + 10, y), 4, SHRUNK.stroke_width(2)));
    if points.len() <= MAX_SHRUNK_INTERVALS {
        let bar = SHRUNK.mix(0.5);
        chart
            .draw_series(shrunk.iter().map(|(x, s)| {
                let x = x + 0.25;
                PathElement::new(vec![(x, s.low), (x, s.high)], bar.stroke_width(bar_width))
            }))
            .map_err(draw_error)?
            .label("the estimate's 95% interval")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x + 10, y - 8), (x + 10, y + 8)], bar.stroke_width(3))
            });
    }
    Ok(())
}

/// White's score over all games: a dashed line, labelled at its left end.
fn draw_mean(chart: &mut Chart<'_, '_>, mean: f64, x_end: f64) -> Result<(), PlotError> {
    chart
        .draw_series([DashedPathElement::new(
            [(0.5, mean), (x_end, mean)],
            8,
            5,
            MEAN.stroke_width(2),
        )])
        .map_err(draw_error)?
        .label("White's score over all games")
        .legend(|(x, y)| DashedPathElement::new([(x, y), (x + 20, y)], 6, 3, MEAN.stroke_width(2)));
    // Placed at the left end, above the line: there the points are the
    // lowest scores, so the label covers the fewest of them.
    let style = TextStyle::from((FONT, 17))
        .color(&MEAN)
        .pos(Pos::new(HPos::Left, VPos::Bottom));
    let label = format!("all games: {mean:.3}");
    draw_label(chart, label, (0.5, mean), (8, -5), style)
}

/// Position 518 in red and labelled, or a legend entry saying it has no
/// finished games.
fn draw_standard(chart: &mut Chart<'_, '_>, points: &[Point]) -> Result<(), PlotError> {
    let count = points.len();
    let (radius, _) = sizes(count);
    let Some((rank, p)) = points
        .iter()
        .enumerate()
        .find(|(_, p)| p.scharnagl == STANDARD)
    else {
        // Most Chess960 archives lack the standard start; say so rather than
        // leave the reader searching for it.
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
            .map_err(draw_error)?
            .label("518, the standard start: no finished games")
            .legend(|(x, y)| Circle::new((x + 10, y), 5, HIGHLIGHT.stroke_width(2)));
        return Ok(());
    };
    let x = x_of(rank);
    chart
        .draw_series([PathElement::new(
            vec![(x, p.low), (x, p.high)],
            HIGHLIGHT.stroke_width(2),
        )])
        .map_err(draw_error)?;
    chart
        .draw_series([Circle::new((x, p.score), radius + 2, HIGHLIGHT.filled())])
        .map_err(draw_error)?
        .label("518, the standard start")
        .legend(|(x, y)| Circle::new((x + 10, y), 5, HIGHLIGHT.filled()));
    // The label goes on the emptier side: right of a low score, left of a
    // high one.
    let right = rank < count / 2;
    let anchor = if right { HPos::Left } else { HPos::Right };
    // Near 0 or 1 the label would leave the plot; it hangs inwards.
    let (v_pos, dy) = if p.score > 0.93 {
        (VPos::Top, 4)
    } else if p.score < 0.07 {
        (VPos::Bottom, -4)
    } else {
        (VPos::Center, 0)
    };
    let style = TextStyle::from((FONT, 17))
        .color(&HIGHLIGHT)
        .pos(Pos::new(anchor, v_pos));
    let games = p.stats.finished();
    let label = format!(
        "518: {:.3} ({} game{})",
        p.score,
        thousands(games),
        if games == 1 { "" } else { "s" }
    );
    let offset = if right { 10 } else { -10 };
    draw_label(chart, label, (x, p.score), (offset, dy), style)
}

/// Each point's Scharnagl number beside it (518 has its own label).
fn draw_point_names(chart: &mut Chart<'_, '_>, points: &[Point]) -> Result<(), PlotError> {
    let (radius, _) = sizes(points.len());
    let style = TextStyle::from((FONT, 14))
        .color(&POINT)
        .pos(Pos::new(HPos::Left, VPos::Center));
    chart
        .draw_series(
            points
                .iter()
                .enumerate()
                .filter(|(_, p)| p.scharnagl != STANDARD)
                .map(|(rank, p)| {
                    EmptyElement::at((x_of(rank), p.score))
                        + Text::new(p.scharnagl.to_string(), (radius + 4, -12), style.clone())
                }),
        )
        .map_err(draw_error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BackRank;
    use crate::stats::{GameFacts, GameResult};

    fn game(result: Option<GameResult>) -> GameFacts {
        GameFacts {
            result,
            white_elo: None,
            black_elo: None,
        }
    }

    fn add(table: &mut StatsTable, group: &str, scharnagl: u32, result: Option<GameResult>) {
        let position = BackRank::from_scharnagl(scharnagl).expect("test ids are below 960");
        table.add(group, position, &game(result));
    }

    /// 518: 1 win, 1 draw (0.75); 0: 1 loss (0); 42: 1 win (1); 7: unfinished only.
    fn small_table() -> StatsTable {
        let mut table = StatsTable::default();
        add(&mut table, "", 518, Some(GameResult::WhiteWins));
        add(&mut table, "", 518, Some(GameResult::Draw));
        add(&mut table, "", 0, Some(GameResult::BlackWins));
        add(&mut table, "", 42, Some(GameResult::WhiteWins));
        add(&mut table, "", 7, None);
        table
    }

    #[test]
    fn writes_the_same_svg_with_518_the_mean_and_the_estimates() {
        let (mut first, mut second) = (Vec::new(), Vec::new());
        let table = small_table();
        write_ranking_svg(&table, &mut first).expect("writing the first plot");
        write_ranking_svg(&table, &mut second).expect("writing the second plot");

        let svg = String::from_utf8(first).expect("an SVG is UTF-8");
        assert!(svg.starts_with("<svg "), "{}", &svg[..svg.len().min(80)]);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("518: 0.750 (2 games)"), "518 is labelled");
        // 2.5 points in 4 finished games.
        assert!(svg.contains("all games: 0.625"), "the mean is labelled");
        assert!(svg.contains("3 Chess960 start positions (4 finished games)"));
        assert!(svg.contains("positions, ordered by White&apos;s score"));
        assert!(
            svg.contains("empirical-Bayes estimate"),
            "the estimates are drawn"
        );
        assert_eq!(svg.as_bytes(), &second[..], "same table, same bytes");
    }

    #[test]
    fn points_carry_the_estimates_of_the_merged_table() {
        let points = points(&small_table());
        let model = shrink(&small_table().merged_positions()).expect("three positions");
        for point in &points {
            assert_eq!(point.shrunk, model.estimates.get(&point.scharnagl).copied());
            assert!(point.shrunk.is_some(), "{}", point.scharnagl);
        }
    }

    #[test]
    fn groups_merge_and_ties_order_by_scharnagl() {
        let mut grouped = StatsTable::default();
        add(&mut grouped, "2020", 518, Some(GameResult::WhiteWins));
        add(&mut grouped, "2021", 518, Some(GameResult::Draw));
        add(&mut grouped, "2021", 900, Some(GameResult::Draw));
        add(&mut grouped, "2020", 3, Some(GameResult::Draw));
        add(&mut grouped, "2021", 3, Some(GameResult::WhiteWins));
        add(&mut grouped, "2021", 3, Some(GameResult::BlackWins));
        let order: Vec<(u16, u64)> = points(&grouped)
            .iter()
            .map(|p| (p.scharnagl, p.stats.finished()))
            .collect();
        assert_eq!(order, [(3, 3), (900, 1), (518, 2)]);

        let mut flat = StatsTable::default();
        for (_, id, stats) in grouped.rows() {
            for _ in 0..stats.white_wins {
                add(&mut flat, "", u32::from(id), Some(GameResult::WhiteWins));
            }
            for _ in 0..stats.draws {
                add(&mut flat, "", u32::from(id), Some(GameResult::Draw));
            }
            for _ in 0..stats.black_wins {
                add(&mut flat, "", u32::from(id), Some(GameResult::BlackWins));
            }
        }
        assert_eq!(
            render_ranking(&grouped).expect("grouped plot"),
            render_ranking(&flat).expect("flat plot"),
            "a grouped table plots like the same games ungrouped"
        );
    }

    #[test]
    fn a_table_without_finished_games_says_so() {
        let mut table = StatsTable::default();
        add(&mut table, "", 7, None);
        let svg = render_ranking(&table).expect("an empty plot");
        assert!(svg.contains("no finished games to plot"));
        assert!(svg.contains("0 Chess960 start positions (0 finished games)"));
    }
}
