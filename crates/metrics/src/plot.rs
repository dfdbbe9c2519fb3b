//! Line charts of metric curves over dropped address bits, as SVG (seed 004, Figures 2 and 3).

use std::fmt::Write;

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
const COLOURS: [&str; 8] =
    ["#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442"];

/// A round step for about five ticks over `0..=max`.
fn tick_step(max: f64) -> f64 {
    if !(max > 0.0) || !max.is_finite() {
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

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
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

/// A drawing primitive of a chart, in pixels from the top left corner.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Line { from: (f64, f64), to: (f64, f64), colour: &'static str, width: f64, dashed: bool },
    Polyline { points: Vec<(f64, f64)>, colour: &'static str, width: f64, dashed: bool },
    Dot { at: (f64, f64), radius: f64, colour: &'static str },
    Text { at: (f64, f64), text: String, anchor: Anchor, size: f64, vertical: bool },
}

/// Which point of a text `at` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// Width and height of every chart, in pixels.
pub const CHART_SIZE: (u32, u32) = (WIDTH as u32, HEIGHT as u32);

/// The shapes of a line chart of `series`: axes with ticks, one polyline with markers per
/// series, and a legend on the right. Non-finite points are left out.
pub fn layout(text: &ChartText<'_>, series: &[Series]) -> Vec<Shape> {
    let ((x_min, x_max), y_top, y_step) = ranges(series);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let sx = |x: f64| LEFT + (x - x_min) / (x_max - x_min) * plot_w;
    let sy = |y: f64| TOP + plot_h - y / y_top * plot_h;
    let mut shapes = Vec::new();
    let label = |at, text: &str, anchor, size, vertical| Shape::Text {
        at,
        text: text.to_string(),
        anchor,
        size,
        vertical,
    };
    shapes.push(label((LEFT + plot_w / 2.0, 22.0), text.title, Anchor::Middle, 15.0, false));
    // Grid and y ticks.
    let mut guard = 0;
    let mut y = 0.0;
    while y <= y_top + y_step * 1e-9 && guard < 100 {
        let py = sy(y);
        shapes.push(Shape::Line {
            from: (LEFT, py),
            to: (LEFT + plot_w, py),
            colour: "#dddddd",
            width: 1.0,
            dashed: false,
        });
        let tick = format_tick(y, y_step);
        shapes.push(label((LEFT - 6.0, py + 4.0), &tick, Anchor::End, 12.0, false));
        y += y_step;
        guard += 1;
    }
    // X ticks at integers (dropped bits).
    let first = x_min.ceil() as i64;
    let last = x_max.floor() as i64;
    for x in first..=last.min(first + 100) {
        let px = sx(x as f64);
        shapes.push(Shape::Line {
            from: (px, TOP + plot_h),
            to: (px, TOP + plot_h + 5.0),
            colour: "#444444",
            width: 1.0,
            dashed: false,
        });
        let tick = x.to_string();
        shapes.push(label((px, TOP + plot_h + 19.0), &tick, Anchor::Middle, 12.0, false));
    }
    shapes.push(Shape::Polyline {
        points: vec![(LEFT, TOP), (LEFT, TOP + plot_h), (LEFT + plot_w, TOP + plot_h)],
        colour: "#444444",
        width: 1.0,
        dashed: false,
    });
    shapes.push(label(
        (LEFT + plot_w / 2.0, HEIGHT - 18.0),
        text.x_label,
        Anchor::Middle,
        12.0,
        false,
    ));
    shapes.push(label((18.0, TOP + plot_h / 2.0), text.y_label, Anchor::Middle, 12.0, true));
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let dashed = i >= COLOURS.len();
        let points: Vec<(f64, f64)> = s
            .points
            .iter()
            .filter(|(x, y)| x.is_finite() && y.is_finite())
            .map(|&(x, y)| (sx(x), sy(y)))
            .collect();
        shapes.push(Shape::Polyline { points: points.clone(), colour, width: 2.0, dashed });
        for at in points {
            shapes.push(Shape::Dot { at, radius: 3.0, colour });
        }
        let ly = TOP + 10.0 + 20.0 * i as f64;
        let lx = WIDTH - RIGHT + 15.0;
        shapes.push(Shape::Line {
            from: (lx, ly),
            to: (lx + 22.0, ly),
            colour,
            width: 2.0,
            dashed,
        });
        shapes.push(label((lx + 28.0, ly + 4.0), &s.label, Anchor::Start, 12.0, false));
    }
    shapes
}

/// An SVG line chart of `series` (see [`layout`]).
pub fn line_chart_svg(text: &ChartText<'_>, series: &[Series]) -> String {
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for shape in layout(text, series) {
        match shape {
            Shape::Line { from, to, colour, width, dashed } => {
                let dash = if dashed { r#" stroke-dasharray="6 3""# } else { "" };
                let _ = writeln!(
                    svg,
                    r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{colour}" stroke-width="{width}"{dash}/>"#,
                    from.0, from.1, to.0, to.1
                );
            }
            Shape::Polyline { points, colour, width, dashed } => {
                let dash = if dashed { r#" stroke-dasharray="6 3""# } else { "" };
                let points: Vec<String> =
                    points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                let _ = writeln!(
                    svg,
                    r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="{width}"{dash}/>"#,
                    points.join(" ")
                );
            }
            Shape::Dot { at, radius, colour } => {
                let _ = writeln!(
                    svg,
                    r#"<circle cx="{:.1}" cy="{:.1}" r="{radius}" fill="{colour}"/>"#,
                    at.0, at.1
                );
            }
            Shape::Text { at, text, anchor, size, vertical } => {
                let anchor = match anchor {
                    Anchor::Start => "start",
                    Anchor::Middle => "middle",
                    Anchor::End => "end",
                };
                let place = if vertical {
                    format!(r#"transform="translate({:.1},{:.1}) rotate(-90)""#, at.0, at.1)
                } else {
                    format!(r#"x="{:.1}" y="{:.1}""#, at.0, at.1)
                };
                let _ = writeln!(
                    svg,
                    r#"<text {place} text-anchor="{anchor}" font-size="{size}">{}</text>"#,
                    escape(&text)
                );
            }
        }
    }
    svg.push_str("</svg>\n");
    svg
}

fn format_tick(value: f64, step: f64) -> String {
    let decimals = if step >= 1.0 { 0 } else { (-step.log10()).ceil() as usize };
    format!("{value:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
