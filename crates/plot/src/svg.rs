//! SVG text of a [`Drawing`].

use crate::drawing::{Anchor, Drawing, Shape};
use std::fmt::Write;

/// Text made safe for an SVG element or attribute.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The drawing as a standalone SVG document, text in DejaVu Sans at 12 px unless a shape says
/// otherwise.
pub fn to_svg(drawing: &Drawing) -> String {
    let (width, height) = (drawing.width, drawing.height);
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="DejaVu Sans, sans-serif" font-size="12">"#
    );
    let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
    for shape in &drawing.shapes {
        write_shape(&mut svg, shape);
    }
    svg.push_str("</svg>\n");
    svg
}

fn write_shape(svg: &mut String, shape: &Shape) {
    let dash = |dashed: bool| if dashed { r#" stroke-dasharray="6 3""# } else { "" };
    match shape {
        Shape::Line { from, to, colour, width, dashed } => {
            let _ = writeln!(
                svg,
                r#"<line x1="{:.1}" y1="{:.1}" x2="{:.1}" y2="{:.1}" stroke="{}" stroke-width="{width}"{}/>"#,
                from.0,
                from.1,
                to.0,
                to.1,
                colour.svg(),
                dash(*dashed)
            );
        }
        Shape::Polyline { points, colour, width, dashed } => {
            let points: Vec<String> =
                points.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            let _ = writeln!(
                svg,
                r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="{width}"{}/>"#,
                points.join(" "),
                colour.svg(),
                dash(*dashed)
            );
        }
        Shape::Dot { at, radius, colour } => {
            let _ = writeln!(
                svg,
                r#"<circle cx="{:.1}" cy="{:.1}" r="{radius}" fill="{}"/>"#,
                at.0,
                at.1,
                colour.svg()
            );
        }
        Shape::Rect { at, size, fill, outline } => {
            let stroke = outline.map(|c| format!(r#" stroke="{}""#, c.svg())).unwrap_or_default();
            let _ = writeln!(
                svg,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"{stroke}/>"#,
                at.0,
                at.1,
                size.0,
                size.1,
                fill.svg()
            );
        }
        Shape::Text { at, text, anchor, size, vertical } => {
            let anchor = match anchor {
                Anchor::Start => "start",
                Anchor::Middle => "middle",
                Anchor::End => "end",
            };
            let place = if *vertical {
                format!(r#"transform="translate({:.1},{:.1}) rotate(-90)""#, at.0, at.1)
            } else {
                format!(r#"x="{:.1}" y="{:.1}""#, at.0, at.1)
            };
            let _ = writeln!(
                svg,
                r#"<text {place} text-anchor="{anchor}" font-size="{size}">{}</text>"#,
                escape(text)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drawing::Colour;

    #[test]
    fn shapes_become_elements() {
        let mut d = Drawing::new(100.0, 50.5);
        d.shapes.push(Shape::Rect {
            at: (1.0, 2.0),
            size: (3.0, 4.0),
            fill: Colour::rgb([255, 0, 16]),
            outline: Some(Colour::WHITE),
        });
        d.shapes.push(Shape::Line {
            from: (0.0, 0.0),
            to: (1.5, 2.0),
            colour: Colour::hex("#444444"),
            width: 2.0,
            dashed: true,
        });
        d.text((5.0, 6.0), "a<\"b\"&", Anchor::End, 10.0);
        let svg = to_svg(&d);
        assert!(
            svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50.5""#)
        );
        assert!(svg.contains(
            r##"<rect x="1.0" y="2.0" width="3.0" height="4.0" fill="#ff0010" stroke="#ffffff"/>"##
        ));
        assert!(svg.contains(
            r##"x2="1.5" y2="2.0" stroke="#444444" stroke-width="2" stroke-dasharray="6 3"/>"##
        ));
        assert!(svg.contains(r#">a&lt;&quot;b&quot;&amp;</text>"#));
        assert!(svg.ends_with("</svg>\n"));
    }
}
