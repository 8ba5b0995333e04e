//! Pictures of a stats table, as SVG: which start positions favour White,
//! and how sure we are of it.
//!
//! A CSV of 960 rows answers questions; it does not show whether the spread
//! between positions is more than noise. Two pictures do, one file each:
//!
//! - `ranking` (`stats --plot`): every position's shrunk estimate of
//!   White's score with its 95% interval, ordered by the estimate, beside
//!   its raw score, against the score of all games, with the standard
//!   start (518) marked;
//! - `funnel` (`stats --funnel`): every position's White score (adjusted
//!   for the ratings) against its number of games on a log axis, inside
//!   the limits that chance alone keeps 95% and 99.8% of positions within,
//!   exact for few games; the few most extreme positions labelled.
//!
//! Both analyse the groups of a grouped table merged per position. Each
//! has its legend in a panel beside the chart, where it covers no data.
//! Text goes into the SVG as `<text>` elements that the viewer sets in its
//! own sans-serif font, so plotters needs no font files or font libraries
//! here (its `ttf` feature would pull in fontconfig). The same table
//! always gives the same bytes.

mod funnel;
mod ranking;

use std::borrow::Cow;
use std::fmt;
use std::io;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub use funnel::write_funnel_svg;
pub use ranking::write_ranking_svg;

use crate::stats::{Analysis, Rows, TableAnalysis};

/// Width and height of a drawing, in SVG user units (pixels).
const SIZE: (u32, u32) = (1200, 640);

/// Width of the legend panel at the right of the drawing.
const LEGEND_WIDTH: u32 = 330;

const FONT: &str = "sans-serif";
const POINT: RGBColor = RGBColor(31, 78, 140);
const BAR: RGBColor = RGBColor(180, 198, 226);
const HIGHLIGHT: RGBColor = RGBColor(210, 30, 40);
const MEAN: RGBColor = RGBColor(40, 40, 40);
const GRID: RGBColor = RGBColor(225, 225, 225);

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

/// The whole drawing.
type Root<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A chart of plain numbers on both axes.
type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// An SVG document drawn by `draw` on a white page of [`SIZE`].
fn render(draw: impl FnOnce(&Root<'_>) -> Result<(), PlotError>) -> Result<String, PlotError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        draw(&root)?;
        root.present().map_err(draw_error)?;
    }
    Ok(svg)
}

/// Writes an SVG document to `out`.
fn write_svg(svg: &str, mut out: impl io::Write) -> Result<(), PlotError> {
    out.write_all(svg.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// The caption of a plot of `positions` positions with `games` finished
/// games: `WHAT in N Chess960 start positions (M finished games)`.
fn caption(what: &str, positions: usize, games: u64) -> String {
    format!(
        "{what} in {} Chess960 start position{} ({} finished game{})",
        thousands(positions as u64),
        if positions == 1 { "" } else { "s" },
        thousands(games),
        if games == 1 { "" } else { "s" },
    )
}

/// The note a plot without finished games carries in its middle.
fn draw_nothing_to_plot<X: plotters::coord::ranged1d::Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, RangedCoordf64>>,
    at: (f64, f64),
) -> Result<(), PlotError> {
    let centre = Pos::new(HPos::Center, VPos::Center);
    let style = TextStyle::from((FONT, 24)).color(&MEAN).pos(centre);
    chart
        .draw_series([Text::new("no finished games to plot", at, style)])
        .map_err(draw_error)?;
    Ok(())
}

/// What a legend entry shows beside its text.
#[derive(Clone, Copy, Debug)]
enum Marker {
    /// A filled dot of a colour and opacity.
    Dot(RGBColor, f64),
    /// A line, dashed or not.
    Line(RGBColor, bool),
    /// A vertical bar.
    Bar(RGBColor),
}

/// The legend, in its own panel: one entry per line (a `\n` in a text
/// starts a second line).
fn draw_legend(panel: &Root<'_>, entries: &[(Marker, String)]) -> Result<(), PlotError> {
    let text = TextStyle::from((FONT, 16))
        .color(&MEAN)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let mut y = 70;
    for (marker, label) in entries {
        let element: DynElement<'_, SVGBackend<'_>, (i32, i32)> = match *marker {
            Marker::Dot(colour, alpha) => {
                Circle::new((22, y), 5, colour.mix(alpha).filled()).into_dyn()
            }
            Marker::Line(colour, false) => {
                PathElement::new(vec![(8, y), (36, y)], colour.stroke_width(2)).into_dyn()
            }
            Marker::Line(colour, true) => {
                DashedPathElement::new(vec![(8, y), (36, y)], 6, 3, colour.stroke_width(2))
                    .into_dyn()
            }
            Marker::Bar(colour) => {
                PathElement::new(vec![(22, y - 9), (22, y + 9)], colour.stroke_width(3)).into_dyn()
            }
        };
        panel.draw(&element).map_err(draw_error)?;
        for (i, line) in label.split('\n').enumerate() {
            let at = (46, y + 19 * i as i32);
            panel
                .draw(&Text::new(line.to_string(), at, text.clone()))
                .map_err(draw_error)?;
        }
        y += 19 * label.split('\n').count() as i32 + 14;
    }
    Ok(())
}

/// The analysis the plots show, and its rows: the table's own when it has
/// one group, else that of its groups merged per position.
fn merged<'a>(analysis: &'a TableAnalysis<'_>) -> (Cow<'a, Analysis>, Cow<'a, Rows>) {
    match analysis.groups.as_slice() {
        [(group, only)] => {
            let rows = analysis
                .table
                .groups()
                .find(|(name, _)| name == group)
                .map(|(_, rows)| rows)
                .expect("the analysis is of this table");
            (Cow::Borrowed(only), Cow::Borrowed(rows))
        }
        _ => {
            let rows = analysis.table.merged_positions();
            (Cow::Owned(Analysis::of(&rows, "")), Cow::Owned(rows))
        }
    }
}

/// A text with a pale box behind it, so that it stays readable over the
/// bars, `offset` pixels from the data point `at`.
///
/// The SVG viewer picks the font, so the box is sized for a typical sans
/// serif: 0.6 em per character.
fn draw_label<X: plotters::coord::ranged1d::Ranged<ValueType = f64>>(
    chart: &ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, RangedCoordf64>>,
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

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn captions_count_in_words() {
        assert_eq!(
            caption("White's score", 1, 1),
            "White's score in 1 Chess960 start position (1 finished game)"
        );
        assert_eq!(
            caption("x", 960, 5232),
            "x in 960 Chess960 start positions (5,232 finished games)"
        );
    }
}
