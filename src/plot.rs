//! A picture of a stats table: which start positions favour White, and how
//! sure we are of it.
//!
//! A CSV of 960 rows answers questions; it does not show whether the spread
//! between positions is more than noise. This module draws every position's
//! white score with its Wilson interval, sorted by score, against the mean of
//! all games, so that a reader sees at a glance how far the positions stray
//! and where the standard start (518) falls among them.
//!
//! Text goes into the SVG as `<text>` elements that the viewer sets in its
//! own sans-serif font, so plotters needs no font files or font libraries
//! here (its `ttf` feature would pull in fontconfig).

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::fmt;
use std::io;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::stats::{PositionStats, StatsTable};

/// The Scharnagl number of the standard start position.
const STANDARD: u16 = 518;

/// Width and height of the drawing, in SVG user units (pixels).
const SIZE: (u32, u32) = (1200, 640);

/// Up to this many positions, each point carries its Scharnagl number.
const MAX_NAMED_POINTS: usize = 30;

const FONT: &str = "sans-serif";
const POINT: RGBColor = RGBColor(31, 78, 140);
const BAR: RGBColor = RGBColor(180, 198, 226);
const HIGHLIGHT: RGBColor = RGBColor(210, 30, 40);
const MEAN: RGBColor = RGBColor(40, 40, 40);

/// Why a plot could not be written.
#[derive(Debug)]
pub enum PlotError {
    /// plotters could not draw the chart.
    Draw(String),
    /// The SVG file could not be written.
    Io(io::Error),
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlotError::Draw(message) => write!(f, "drawing the plot: {message}"),
            PlotError::Io(err) => write!(f, "{err}"),
        }
    }
}

// No `source()`: the message already holds the cause, and a chain printer
// (`{:#}`) would repeat it.
impl std::error::Error for PlotError {}

impl From<io::Error> for PlotError {
    fn from(err: io::Error) -> Self {
        PlotError::Io(err)
    }
}

fn draw_error(err: impl fmt::Display) -> PlotError {
    PlotError::Draw(err.to_string())
}

/// One position on the plot.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Point {
    scharnagl: u16,
    stats: PositionStats,
    score: f64,
    low: f64,
    high: f64,
}

/// The positions with finished games, all groups merged, sorted by White's
/// score and then by Scharnagl number.
fn points(table: &StatsTable) -> Vec<Point> {
    let mut merged: BTreeMap<u16, PositionStats> = BTreeMap::new();
    for (_group, scharnagl, stats) in table.rows() {
        merged.entry(scharnagl).or_default().merge(stats);
    }
    let mut points: Vec<Point> = merged
        .into_iter()
        .filter_map(|(scharnagl, stats)| {
            let score = stats.white_score()?;
            let (low, high) = stats.white_score_interval()?;
            Some(Point {
                scharnagl,
                stats,
                score,
                low,
                high,
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
/// White's score, with a vertical bar for its 95% Wilson interval. Position
/// 518, the standard start, is drawn in red and labelled; a dashed line marks
/// White's score over all games. The same table always gives the same bytes.
///
/// A table without finished games still gives a plot, with empty axes and a
/// note saying so, just as the CSV of such a table is a header alone.
///
/// # Errors
///
/// [`PlotError::Io`] when `out` fails;
/// [`PlotError::Draw`] if plotters fails, which it should not for an
/// in-memory SVG.
pub fn write_svg(table: &StatsTable, mut out: impl io::Write) -> Result<(), PlotError> {
    let svg = render(table)?;
    out.write_all(svg.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The SVG document [`write_svg`] writes.
fn render(table: &StatsTable) -> Result<String, PlotError> {
    let points = points(table);
    let total = table.total();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        draw(&root, &points, &total)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

/// The chart: ranks and scores as plain numbers.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

fn draw(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    points: &[Point],
    total: &PositionStats,
) -> Result<(), PlotError> {
    let count = points.len();
    let games: u64 = points.iter().map(|p| p.stats.finished()).sum();
    let title = format!(
        "White's score in {} Chess960 start position{} ({} finished game{})",
        thousands(count as u64),
        if count == 1 { "" } else { "s" },
        thousands(games),
        if games == 1 { "" } else { "s" },
    );
    // Ranks run from 1 to count; half a rank of air on either side.
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
        .bold_line_style(RGBColor(225, 225, 225))
        .x_desc("positions, ordered by White's score")
        .y_desc("White's score")
        .axis_desc_style((FONT, 20))
        .label_style((FONT, 16))
        .draw()
        .map_err(draw_error)?;

    if points.is_empty() {
        let centre = Pos::new(HPos::Center, VPos::Center);
        let style = TextStyle::from((FONT, 24)).color(&MEAN).pos(centre);
        chart
            .draw_series([Text::new("no finished games to plot", (1.0, 0.5), style)])
            .map_err(draw_error)?;
        return Ok(());
    }

    // Sizes shrink as positions crowd together: 960 points share about
    // 1100 pixels, so their bars are hairlines that blend into a band.
    let (radius, bar_width) = match count {
        0..=60 => (4, 2),
        61..=250 => (3, 2),
        _ => (2, 1),
    };
    let x_of = |rank: usize| (rank + 1) as f64;

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
        .label("a start position")
        .legend(move |(x, y)| Circle::new((x + 10, y), 4, POINT.filled()));

    if let Some(mean) = total.white_score() {
        chart
            .draw_series([DashedPathElement::new(
                [(0.5, mean), (x_end, mean)],
                8,
                5,
                MEAN.stroke_width(2),
            )])
            .map_err(draw_error)?
            .label("White's score over all games")
            .legend(|(x, y)| {
                DashedPathElement::new([(x, y), (x + 20, y)], 6, 3, MEAN.stroke_width(2))
            });
        // Placed at the left end, above the line: there the points are the
        // lowest scores, so the label covers the fewest of them.
        let style = TextStyle::from((FONT, 17))
            .color(&MEAN)
            .pos(Pos::new(HPos::Left, VPos::Bottom));
        let label = format!("all games: {mean:.3}");
        draw_label(&chart, label, (0.5, mean), (8, -5), style)?;
    }

    let standard = points
        .iter()
        .enumerate()
        .find(|(_, p)| p.scharnagl == STANDARD);
    if let Some((rank, p)) = standard {
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
        // The label goes on the emptier side: right of a low score, left of
        // a high one.
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
        let label = format!(
            "518: {:.3} ({} game{})",
            p.score,
            thousands(p.stats.finished()),
            if p.stats.finished() == 1 { "" } else { "s" }
        );
        let offset = if right { 10 } else { -10 };
        draw_label(&chart, label, (x, p.score), (offset, dy), style)?;
    } else {
        // Most Chess960 archives lack the standard start; say so rather than
        // leave the reader searching for it.
        chart
            .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
            .map_err(draw_error)?
            .label("518, the standard start: no finished games")
            .legend(|(x, y)| Circle::new((x + 10, y), 5, HIGHLIGHT.stroke_width(2)));
    }

    if count <= MAX_NAMED_POINTS {
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
    }

    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .margin(12)
        .label_font((FONT, 16))
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(180, 180, 180))
        .draw()
        .map_err(draw_error)?;
    Ok(())
}

/// A text with a pale box behind it, so that it stays readable over the
/// bars, `offset` pixels from the data point `at`.
///
/// The SVG viewer picks the font, so the box is sized for a typical sans
/// serif: 0.6 em per character.
fn draw_label(
    chart: &Chart<'_, '_>,
    text: String,
    at: (f64, f64),
    offset: (i32, i32),
    style: TextStyle<'_>,
) -> Result<(), PlotError> {
    // plotters writes font-size as its size / 1.24.
    let em = style.font.get_size() / 1.24;
    let width = (0.6 * em * text.chars().count() as f64).ceil() as i32 + 6;
    let height = (1.3 * em).ceil() as i32;
    let (dx, dy) = offset;
    let (left, right) = match style.pos.h_pos {
        HPos::Left => (dx - 3, dx + width - 3),
        HPos::Center => (dx - width / 2, dx + width / 2),
        HPos::Right => (dx - width + 3, dx + 3),
    };
    let (top, bottom) = match style.pos.v_pos {
        VPos::Top => (dy, dy + height),
        VPos::Center => (dy - height / 2, dy + height / 2),
        VPos::Bottom => (dy - height, dy),
    };
    let element = EmptyElement::at(at)
        + Rectangle::new([(left, top), (right, bottom)], WHITE.mix(0.85).filled())
        + Text::new(text, offset, style);
    chart.plotting_area().draw(&element).map_err(draw_error)
}

/// `1234567` as `1,234,567`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
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
    fn writes_the_same_svg_with_518_and_the_mean() {
        let (mut first, mut second) = (Vec::new(), Vec::new());
        let table = small_table();
        write_svg(&table, &mut first).expect("writing the first plot");
        write_svg(&table, &mut second).expect("writing the second plot");

        let svg = String::from_utf8(first).expect("an SVG is UTF-8");
        assert!(svg.starts_with("<svg "), "{}", &svg[..svg.len().min(80)]);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("518: 0.750 (2 games)"), "518 is labelled");
        // 2.5 points in 4 finished games.
        assert!(svg.contains("all games: 0.625"), "the mean is labelled");
        assert!(svg.contains("3 Chess960 start positions (4 finished games)"));
        assert!(svg.contains("positions, ordered by White&apos;s score"));
        assert_eq!(svg.as_bytes(), &second[..], "same table, same bytes");
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
            render(&grouped).expect("grouped plot"),
            render(&flat).expect("flat plot"),
            "a grouped table plots like the same games ungrouped"
        );
    }

    #[test]
    fn a_table_without_finished_games_says_so() {
        let mut table = StatsTable::default();
        add(&mut table, "", 7, None);
        let svg = render(&table).expect("an empty plot");
        assert!(svg.contains("no finished games to plot"));
        assert!(svg.contains("0 Chess960 start positions (0 finished games)"));
    }

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
