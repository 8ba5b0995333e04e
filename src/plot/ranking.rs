//! `stats --plot`: the positions ranked by their shrunk estimate of
//! White's score, each with its 95% interval (see
//! [`crate::stats::shrink`]), beside its raw score; the score of all games
//! as a line over them, and the standard start (518) marked.
//!
//! Ranked by the raw score, the first and last places go to positions of
//! two games and a lucky or unlucky result. Ranked by the shrunk estimate,
//! a position stands high only if its games say so, and its interval says
//! how sure that is.

use std::cmp::Ordering;

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{
    BAR, Chart, FONT, GRID, HIGHLIGHT, LEGEND_WIDTH, MEAN, Marker, POINT, PlotError, Root, SIZE,
    caption, draw_error, draw_label, draw_legend, draw_nothing_to_plot, merged, thousands,
    write_svg,
};
use crate::stats::{ShrunkScore, TableAnalysis};

/// The Scharnagl number of the standard start position.
const STANDARD: u16 = 518;

/// Up to this many positions, each point carries its Scharnagl number.
const MAX_NAMED_POINTS: usize = 30;

const RAW: RGBColor = RGBColor(150, 150, 150);

/// One position on the plot.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Point {
    scharnagl: u16,
    games: u64,
    score: f64,
    shrunk: ShrunkScore,
}

/// The positions with a shrunk estimate (all groups merged), sorted by
/// it and then by Scharnagl number.
fn points(analysis: &TableAnalysis<'_>) -> Vec<Point> {
    let (merged_analysis, rows) = merged(analysis);
    let mut points: Vec<Point> = rows
        .iter()
        .filter_map(|(&scharnagl, stats)| {
            let shrunk = merged_analysis.positions.get(&scharnagl)?.shrunk?;
            Some(Point {
                scharnagl,
                games: stats.finished(),
                score: stats.white_score()?,
                shrunk,
            })
        })
        .collect();
    points.sort_by(|a, b| {
        a.shrunk
            .estimate
            .partial_cmp(&b.shrunk.estimate)
            .unwrap_or(Ordering::Equal)
            .then(a.scharnagl.cmp(&b.scharnagl))
    });
    points
}

/// Draws White's score per start position as an SVG file.
///
/// One point per position with a shrunk estimate (rows of a grouped table
/// are merged per position first), ordered left to right by the estimate,
/// with a vertical bar for its 95% interval and a grey dot for its raw
/// score. Position 518, the standard start, is drawn in red and labelled;
/// a dashed line over everything marks White's score over all games. The
/// legend stands in a panel beside the chart. The same table always gives
/// the same bytes.
///
/// A table without finished games still gives a plot, with empty axes and a
/// note saying so, just as the CSV of such a table is a header alone.
///
/// # Errors
///
/// [`PlotError::Io`] when `out` fails;
/// [`PlotError::Draw`] if plotters fails, which it should not for an
/// in-memory SVG.
pub fn write_ranking_svg(
    analysis: &TableAnalysis<'_>,
    out: impl std::io::Write,
) -> Result<(), PlotError> {
    write_svg(&render_ranking(analysis)?, out)
}

/// The SVG document [`write_ranking_svg`] writes.
fn render_ranking(analysis: &TableAnalysis<'_>) -> Result<String, PlotError> {
    let points = points(analysis);
    let mean = analysis.table.total().white_score();
    super::render(|root| draw(root, &points, mean))
}

/// Marker sizes: (radius of a point, width of a bar). They shrink as
/// positions crowd together: 960 points share about 800 pixels, so their
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

fn draw(root: &Root<'_>, points: &[Point], mean: Option<f64>) -> Result<(), PlotError> {
    let (chart_area, panel) = root.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let games: u64 = points.iter().map(|p| p.games).sum();
    let title = caption("White's score", points.len(), games);
    let mut chart = ranking_chart(&chart_area, title, points.len())?;
    if points.is_empty() {
        return draw_nothing_to_plot(&mut chart, (1.0, 0.5));
    }
    draw_estimates(&mut chart, points)?;
    let standard = draw_standard(&mut chart, points)?;
    if let Some(mean) = mean {
        // Over the points, thin: it must not vanish behind estimates
        // that all sit on it.
        chart
            .draw_series([DashedPathElement::new(
                [(0.5, mean), (x_of(points.len()) - 0.5, mean)],
                8,
                5,
                MEAN.stroke_width(1),
            )])
            .map_err(draw_error)?;
    }
    if points.len() <= MAX_NAMED_POINTS {
        draw_point_names(&mut chart, points)?;
    }
    let mut entries = vec![
        (
            Marker::Dot(POINT, 1.0),
            "a start position: its shrunk\nestimate of White's score".to_string(),
        ),
        (Marker::Bar(BAR), "its 95% interval".to_string()),
        (Marker::Dot(RAW, 0.8), "its raw score".to_string()),
    ];
    if let Some(mean) = mean {
        entries.push((
            Marker::Line(MEAN, true),
            format!("score of all games: {mean:.3}"),
        ));
    }
    entries.push((Marker::Dot(HIGHLIGHT, 1.0), standard));
    draw_legend(&panel, &entries)
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
        .caption(title, (FONT, 22))
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
        .x_desc("positions, ordered by their shrunk estimate")
        .y_desc("White's score")
        .axis_desc_style((FONT, 18))
        .label_style((FONT, 15))
        .draw()
        .map_err(draw_error)?;
    Ok(chart)
}

/// Each position's interval, raw score and estimate.
fn draw_estimates(chart: &mut Chart<'_, '_>, points: &[Point]) -> Result<(), PlotError> {
    let (radius, bar_width) = sizes(points.len());
    chart
        .draw_series(points.iter().enumerate().map(|(rank, p)| {
            PathElement::new(
                vec![(x_of(rank), p.shrunk.low), (x_of(rank), p.shrunk.high)],
                BAR.stroke_width(bar_width),
            )
        }))
        .map_err(draw_error)?;
    chart
        .draw_series(points.iter().enumerate().map(|(rank, p)| {
            Circle::new(
                (x_of(rank), p.score),
                (radius - 1).max(1),
                RAW.mix(0.6).filled(),
            )
        }))
        .map_err(draw_error)?;
    chart
        .draw_series(
            points.iter().enumerate().map(|(rank, p)| {
                Circle::new((x_of(rank), p.shrunk.estimate), radius, POINT.filled())
            }),
        )
        .map_err(draw_error)?;
    Ok(())
}

/// Position 518 in red and labelled; the legend's text for it.
fn draw_standard(chart: &mut Chart<'_, '_>, points: &[Point]) -> Result<String, PlotError> {
    let count = points.len();
    let (radius, _) = sizes(count);
    let Some((rank, p)) = points
        .iter()
        .enumerate()
        .find(|(_, p)| p.scharnagl == STANDARD)
    else {
        // Most Chess960 archives lack the standard start; say so rather than
        // leave the reader searching for it.
        return Ok("518, the standard start:\nno finished games".to_string());
    };
    let x = x_of(rank);
    chart
        .draw_series([PathElement::new(
            vec![(x, p.shrunk.low), (x, p.shrunk.high)],
            HIGHLIGHT.stroke_width(2),
        )])
        .map_err(draw_error)?;
    chart
        .draw_series([Circle::new(
            (x, p.shrunk.estimate),
            radius + 2,
            HIGHLIGHT.filled(),
        )])
        .map_err(draw_error)?;
    // The label goes on the emptier side: right of a low estimate, left
    // of a high one; near 0 or 1 it hangs inwards.
    let right = rank < count / 2;
    let anchor = if right { HPos::Left } else { HPos::Right };
    let (v_pos, dy) = if p.shrunk.estimate > 0.93 {
        (VPos::Top, 4)
    } else if p.shrunk.estimate < 0.07 {
        (VPos::Bottom, -4)
    } else {
        (VPos::Center, 0)
    };
    let style = TextStyle::from((FONT, 16))
        .color(&HIGHLIGHT)
        .pos(Pos::new(anchor, v_pos));
    let label = format!(
        "518: {:.3} [{:.3}, {:.3}]",
        p.shrunk.estimate, p.shrunk.low, p.shrunk.high
    );
    let offset = if right { 10 } else { -10 };
    draw_label(chart, label, (x, p.shrunk.estimate), (offset, dy), style)?;
    Ok(format!(
        "518, the standard start\n({} game{}, raw score {:.3})",
        thousands(p.games),
        if p.games == 1 { "" } else { "s" },
        p.score
    ))
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
                    EmptyElement::at((x_of(rank), p.shrunk.estimate))
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
    use crate::stats::{GameFacts, GameResult, StatsTable};

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
    fn writes_the_same_svg_with_518_the_mean_and_the_legend_beside() {
        let table = small_table();
        let analysis = TableAnalysis::of(&table);
        let svg = render_ranking(&analysis).expect("a plot");
        assert!(svg.starts_with("<svg "), "{}", &svg[..svg.len().min(80)]);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("518, the standard start"), "518 is named");
        // 2.5 points in 4 finished games.
        assert!(svg.contains("score of all games: 0.625"), "the mean");
        assert!(svg.contains("3 Chess960 start positions (4 finished games)"));
        assert!(svg.contains("positions, ordered by their shrunk estimate"));
        // Every legend text starts right of the chart's area.
        for line in ["its 95% interval", "its raw score", "score of all games"] {
            let at = svg.find(line).expect("a legend line");
            let element = &svg[svg[..at].rfind("<text").expect("a text element")..at];
            let x: f64 = element
                .split("x=\"")
                .nth(1)
                .and_then(|rest| rest.split('"').next())
                .and_then(|x| x.parse().ok())
                .expect("an x");
            assert!(x > f64::from(SIZE.0 - LEGEND_WIDTH), "{line} at x = {x}");
        }
        assert_eq!(svg, render_ranking(&analysis).expect("again"), "same bytes");
    }

    #[test]
    fn points_are_ordered_by_the_estimate_and_carry_it() {
        let table = small_table();
        let analysis = TableAnalysis::of(&table);
        let points = points(&analysis);
        assert_eq!(points.len(), 3);
        for pair in points.windows(2) {
            assert!(pair[0].shrunk.estimate <= pair[1].shrunk.estimate);
        }
        for point in &points {
            let findings = analysis.groups[0].1.positions[&point.scharnagl];
            assert_eq!(Some(point.shrunk), findings.shrunk);
            assert!(point.shrunk.high > point.shrunk.low, "never of no width");
        }
    }

    #[test]
    fn groups_merge_and_a_table_without_finished_games_says_so() {
        let mut grouped = StatsTable::default();
        add(&mut grouped, "2020", 518, Some(GameResult::WhiteWins));
        add(&mut grouped, "2021", 518, Some(GameResult::Draw));
        add(&mut grouped, "2021", 900, Some(GameResult::Draw));
        add(&mut grouped, "2020", 3, Some(GameResult::Draw));
        add(&mut grouped, "2021", 3, Some(GameResult::WhiteWins));
        add(&mut grouped, "2021", 3, Some(GameResult::BlackWins));
        let mut flat = StatsTable::default();
        for (_, id, stats) in grouped.rows() {
            for (result, times) in [
                (GameResult::WhiteWins, stats.white_wins),
                (GameResult::Draw, stats.draws),
                (GameResult::BlackWins, stats.black_wins),
            ] {
                for _ in 0..times {
                    add(&mut flat, "", u32::from(id), Some(result));
                }
            }
        }
        assert_eq!(
            render_ranking(&TableAnalysis::of(&grouped)).expect("grouped plot"),
            render_ranking(&TableAnalysis::of(&flat)).expect("flat plot"),
            "a grouped table plots like the same games ungrouped"
        );
        let mut table = StatsTable::default();
        add(&mut table, "", 7, None);
        let svg = render_ranking(&TableAnalysis::of(&table)).expect("an empty plot");
        assert!(svg.contains("no finished games to plot"));
    }
}
