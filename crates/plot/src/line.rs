//! Line charts: one curve per series over shared axes, with a legend on the right (metric
//! curves over dropped address bits, seed 004 Figures 2 and 3; gains per dataset size).

use crate::drawing::{Anchor, Colour, Drawing, Shape};
use crate::raster::{to_png, RasterError};
use crate::svg::to_svg;

/// One curve of a chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub label: String,
    /// `(x, y)` points in drawing order.
    pub points: Vec<(f64, f64)>,
}

/// Text of a chart: title and axis labels.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartText<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
}

const WIDTH: f64 = 840.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 280.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
/// Colour-blind-safe palette; series beyond it reuse colours with another dash pattern.
const COLOURS: [Colour; 8] = [
    Colour::hex("#0072B2"),
    Colour::hex("#D55E00"),
    Colour::hex("#009E73"),
    Colour::hex("#CC79A7"),
    Colour::hex("#E69F00"),
    Colour::hex("#56B4E9"),
    Colour::hex("#000000"),
    Colour::hex("#F0E442"),
];
const GRID: Colour = Colour::hex("#dddddd");
const AXIS: Colour = Colour::hex("#444444");

/// Width and height of every line chart, in pixels.
pub const CHART_SIZE: (u32, u32) = (WIDTH as u32, HEIGHT as u32);

/// A round step for about five ticks over `0..=max`.
fn tick_step(max: f64) -> f64 {
    if !max.is_finite() || max <= 0.0 {
        return 1.0;
    }
    let raw = max / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let scaled = raw / magnitude;
    let nice = if scaled <= 1.0 {
        1.0
    } else if scaled <= 2.0 {
        2.0
    } else if scaled <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * magnitude
}

fn format_tick(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 { 0 } else { (-step.log10()).ceil() as usize };
    format!("{value:.decimals$}")
}

/// The axis ranges of a chart: x over the points, y from 0 to a round value above the data.
fn ranges(series: &[Series]) -> ((f64, f64), f64, f64) {
    let finite =
        series.iter().flat_map(|s| &s.points).filter(|(x, y)| x.is_finite() && y.is_finite());
    let (mut x_min, mut x_max, mut y_max) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64);
    for &(x, y) in finite {
        x_min = x_min.min(x);
        x_max = x_max.max(x);
        y_max = y_max.max(y);
    }
    if x_min > x_max {
        (x_min, x_max) = (0.0, 1.0);
    }
    if x_min == x_max {
        x_max = x_min + 1.0;
    }
    let step = tick_step(y_max);
    let y_top = ((y_max / step).ceil() * step).max(step);
    ((x_min, x_max), y_top, step)
}

/// The line chart of `series`: axes with ticks (x at integers), one polyline with markers per
/// series, and a legend on the right. Non-finite points are left out.
pub fn layout(text: &ChartText<'_>, series: &[Series]) -> Drawing {
    let ((x_min, x_max), y_top, y_step) = ranges(series);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let sx = |x: f64| LEFT + (x - x_min) / (x_max - x_min) * plot_w;
    let sy = |y: f64| TOP + plot_h - y / y_top * plot_h;
    let mut drawing = Drawing::new(WIDTH, HEIGHT);
    drawing.text((LEFT + plot_w / 2.0, 22.0), text.title, Anchor::Middle, 15.0);
    // Grid and y ticks.
    let mut guard = 0;
    let mut y = 0.0;
    while y <= y_top + y_step * 1e-9 && guard < 100 {
        let py = sy(y);
        drawing.shapes.push(Shape::Line {
            from: (LEFT, py),
            to: (LEFT + plot_w, py),
            colour: GRID,
            width: 1.0,
            dashed: false,
        });
        drawing.text((LEFT - 6.0, py + 4.0), &format_tick(y, y_step), Anchor::End, 12.0);
        y += y_step;
        guard += 1;
    }
    let first = x_min.ceil() as i64;
    let last = x_max.floor() as i64;
    for x in first..=last.min(first + 100) {
        let px = sx(x as f64);
        drawing.shapes.push(Shape::Line {
            from: (px, TOP + plot_h),
            to: (px, TOP + plot_h + 5.0),
            colour: AXIS,
            width: 1.0,
            dashed: false,
        });
        drawing.text((px, TOP + plot_h + 19.0), &x.to_string(), Anchor::Middle, 12.0);
    }
    drawing.shapes.push(Shape::Polyline {
        points: vec![(LEFT, TOP), (LEFT, TOP + plot_h), (LEFT + plot_w, TOP + plot_h)],
        colour: AXIS,
        width: 1.0,
        dashed: false,
    });
    drawing.text((LEFT + plot_w / 2.0, HEIGHT - 18.0), text.x_label, Anchor::Middle, 12.0);
    drawing.shapes.push(Shape::Text {
        at: (18.0, TOP + plot_h / 2.0),
        text: text.y_label.to_string(),
        anchor: Anchor::Middle,
        size: 12.0,
        vertical: true,
    });
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let dashed = i >= COLOURS.len();
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|&(x, y)| (sx(x), sy(y)))
            .collect();
        drawing.shapes.push(Shape::Polyline { points: points.clone(), colour, width: 2.0, dashed });
        for at in points {
            drawing.shapes.push(Shape::Dot { at, radius: 3.0, colour });
        }
        let ly = TOP + 10.0 + 20.0 * i as f64;
        let lx = WIDTH - RIGHT + 15.0;
        drawing.shapes.push(Shape::Line {
            from: (lx, ly),
            to: (lx + 22.0, ly),
            colour,
            width: 2.0,
            dashed,
        });
        drawing.text((lx + 28.0, ly + 4.0), &s.label, Anchor::Start, 12.0);
    }
    drawing
}

/// An SVG line chart of `series` (see [`layout`]).
pub fn line_chart_svg(text: &ChartText<'_>, series: &[Series]) -> String {
    to_svg(&layout(text, series))
}

/// A PNG line chart of `series`, with text set in the TrueType font `font` (file bytes).
pub fn line_chart_png(
    text: &ChartText<'_>,
    series: &[Series],
    font: &[u8],
) -> Result<Vec<u8>, RasterError> {
    to_png(&layout(text, series), font)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::font::FONT_PATH;

    #[test]
    fn round_tick_steps() {
        assert_eq!(tick_step(10.0), 2.0);
        assert_eq!(tick_step(0.56), 0.2);
        assert_eq!(tick_step(17.0), 5.0);
        assert_eq!(tick_step(0.0), 1.0);
        assert_eq!(format_tick(0.4, 0.2), "0.4");
        assert_eq!(format_tick(15.0, 5.0), "15");
    }

    #[test]
    fn chart_has_a_line_and_legend_per_series() {
        let series = vec![
            Series { label: "a<b".into(), points: vec![(0.0, 1.0), (1.0, 0.5), (2.0, f64::NAN)] },
            Series { label: "c".into(), points: vec![(0.0, 0.2), (2.0, 0.1)] },
        ];
        let text = ChartText { title: "PSL", x_label: "bits", y_label: "psl" };
        let svg = line_chart_svg(&text, &series);
        assert!(svg.starts_with("<svg"));
        assert_eq!(svg.matches("<polyline").count(), 3, "axes and two series");
        assert!(svg.contains(r##"stroke="#0072B2""##));
        assert!(svg.contains("a&lt;b"));
        assert_eq!(svg.matches("<circle").count(), 4, "the NaN point is left out");
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn empty_chart_is_still_a_chart() {
        let text = ChartText { title: "", x_label: "", y_label: "" };
        let svg = line_chart_svg(&text, &[]);
        assert!(svg.ends_with("</svg>\n"));
    }

    #[test]
    fn chart_is_a_png() {
        let Ok(font) = std::fs::read(FONT_PATH) else {
            eprintln!("{FONT_PATH} missing (fonts-dejavu-core); skipping");
            return;
        };
        let series = vec![Series { label: "k".into(), points: vec![(0.0, 1.0), (10.0, 0.0)] }];
        let chart = ChartText { title: "t", x_label: "x", y_label: "y" };
        let png = line_chart_png(&chart, &series, &font).expect("renders");
        assert_eq!(png.get(1..4), Some(&b"PNG"[..]));
        assert!(matches!(
            line_chart_png(&chart, &series, b"not a font"),
            Err(RasterError::Font(_))
        ));
    }
}
