//! Bitmap (PNG) rendering of the chart shapes of [`crate::plot::layout`].
//!
//! Lines and dots are drawn with anti-aliased discs stamped along the path, text with glyphs
//! rasterised from a TrueType font the caller supplies (Debian: `fonts-dejavu-core`).

use crate::plot::{layout, Anchor, ChartText, Series, Shape, CHART_SIZE};

/// Why a PNG chart could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    #[error("the font cannot be read: {0}")]
    Font(String),
    #[error("PNG encoding failed: {0}")]
    Encode(#[from] png::EncodingError),
}

/// An RGB image.
struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<[f32; 3]>,
}

/// `#rrggbb` to 0..1 channels; anything else is black.
fn parse_colour(hex: &str) -> [f32; 3] {
    if !(hex.len() == 7 && hex.starts_with('#')) {
        return [0.0; 3];
    }
    let channel = |i: usize| {
        hex.get(1 + 2 * i..3 + 2 * i)
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .map_or(0.0, |v| f32::from(v) / 255.0)
    };
    [channel(0), channel(1), channel(2)]
}

impl Canvas {
    fn new(width: usize, height: usize) -> Canvas {
        Canvas { width, height, pixels: vec![[1.0; 3]; width * height] }
    }

    /// Mixes `colour` into pixel (x, y) with opacity `alpha`; outside pixels are ignored.
    fn blend(&mut self, x: i64, y: i64, colour: [f32; 3], alpha: f32) {
        if x < 0 || y < 0 || x as usize >= self.width || y as usize >= self.height {
            return;
        }
        let alpha = alpha.clamp(0.0, 1.0);
        if let Some(p) = self.pixels.get_mut(y as usize * self.width + x as usize) {
            for (c, new) in p.iter_mut().zip(colour) {
                *c = *c * (1.0 - alpha) + new * alpha;
            }
        }
    }

    /// An anti-aliased filled disc; `seen` keeps a line's overlapping discs from darkening.
    fn disc(&mut self, centre: (f64, f64), radius: f64, colour: [f32; 3], coverage: &mut Vec<f32>) {
        let (cx, cy) = centre;
        let reach = radius + 1.0;
        for y in (cy - reach).floor() as i64..=(cy + reach).ceil() as i64 {
            for x in (cx - reach).floor() as i64..=(cx + reach).ceil() as i64 {
                let d = ((x as f64 + 0.5 - cx).powi(2) + (y as f64 + 0.5 - cy).powi(2)).sqrt();
                let alpha = (radius + 0.5 - d).clamp(0.0, 1.0) as f32;
                if alpha <= 0.0 || x < 0 || y < 0 || x as usize >= self.width {
                    continue;
                }
                let at = y as usize * self.width + x as usize;
                let Some(done) = coverage.get_mut(at) else { continue };
                if alpha > *done {
                    // Blend only the part not yet covered by this shape.
                    let extra = (alpha - *done) / (1.0 - *done).max(1e-6);
                    *done = alpha;
                    self.blend(x, y, colour, extra);
                }
            }
        }
    }

    fn fresh_coverage(&self) -> Vec<f32> {
        vec![0.0; self.width * self.height]
    }

    fn path(&mut self, points: &[(f64, f64)], colour: [f32; 3], width: f64, dashed: bool) {
        let mut coverage = self.fresh_coverage();
        let radius = (width / 2.0).max(0.5);
        let mut travelled = 0.0f64;
        for pair in points.windows(2) {
            let [(x0, y0), (x1, y1)] = [pair[0], pair[1]];
            let length = ((x1 - x0).powi(2) + (y1 - y0).powi(2)).sqrt();
            let steps = (length * 2.0).ceil().clamp(1.0, 100_000.0) as usize;
            for i in 0..=steps {
                let t = i as f64 / steps as f64;
                // Dashes of 6 pixels with gaps of 3, as in the SVG.
                if dashed && (travelled + t * length) % 9.0 > 6.0 {
                    continue;
                }
                self.disc((x0 + t * (x1 - x0), y0 + t * (y1 - y0)), radius, colour, &mut coverage);
            }
            travelled += length;
        }
    }

    fn to_rgb8(&self) -> Vec<u8> {
        self.pixels
            .iter()
            .flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8))
            .collect()
    }
}

fn text(canvas: &mut Canvas, font: &fontdue::Font, shape: (&(f64, f64), &str, Anchor, f64, bool)) {
    let (&(x, y), text, anchor, size, vertical) = shape;
    let size = size as f32;
    let glyphs: Vec<(fontdue::Metrics, Vec<u8>)> =
        text.chars().map(|c| font.rasterize(c, size)).collect();
    let advance: f64 = glyphs.iter().map(|(m, _)| f64::from(m.advance_width)).sum();
    let start = match anchor {
        Anchor::Start => 0.0,
        Anchor::Middle => -advance / 2.0,
        Anchor::End => -advance,
    };
    let black = [0.0f32; 3];
    let mut pen = start;
    for (m, bitmap) in &glyphs {
        for row in 0..m.height {
            for col in 0..m.width {
                let Some(&a) = bitmap.get(row * m.width + col) else { continue };
                if a == 0 {
                    continue;
                }
                // Offsets along and across the baseline, from the text's anchor point.
                let along = pen + f64::from(m.xmin) + col as f64;
                let above = f64::from(m.ymin) + (m.height - row) as f64 - 1.0;
                let (px, py) =
                    if vertical { (x - above, y - along) } else { (x + along, y - above) };
                canvas.blend(px.round() as i64, py.round() as i64, black, f32::from(a) / 255.0);
            }
        }
        pen += f64::from(m.advance_width);
    }
}

/// A PNG line chart of `series`, with text set in the TrueType font `font` (file bytes).
pub fn line_chart_png(
    chart: &ChartText<'_>,
    series: &[Series],
    font: &[u8],
) -> Result<Vec<u8>, RasterError> {
    let font = fontdue::Font::from_bytes(font, fontdue::FontSettings::default())
        .map_err(|e| RasterError::Font(e.to_string()))?;
    let (width, height) = CHART_SIZE;
    let mut canvas = Canvas::new(width as usize, height as usize);
    for shape in layout(chart, series) {
        match &shape {
            Shape::Line { from, to, colour, width, dashed } => {
                canvas.path(&[*from, *to], parse_colour(colour), *width, *dashed)
            }
            Shape::Polyline { points, colour, width, dashed } => {
                canvas.path(points, parse_colour(colour), *width, *dashed)
            }
            Shape::Dot { at, radius, colour } => {
                let mut coverage = canvas.fresh_coverage();
                canvas.disc(*at, *radius, parse_colour(colour), &mut coverage);
            }
            Shape::Text { at, text: t, anchor, size, vertical } => {
                text(&mut canvas, &font, (at, t, *anchor, *size, *vertical))
            }
        }
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&canvas.to_rgb8())?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEJAVU: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

    #[test]
    fn colours_parse() {
        assert_eq!(parse_colour("#ff0000"), [1.0, 0.0, 0.0]);
        assert_eq!(parse_colour("bad"), [0.0, 0.0, 0.0]);
    }

    #[test]
    fn lines_colour_the_pixels_they_cross() {
        let mut c = Canvas::new(20, 20);
        c.path(&[(0.0, 10.0), (20.0, 10.0)], [1.0, 0.0, 0.0], 2.0, false);
        let p = c.pixels[10 * 20 + 10];
        assert!(p[0] > 0.9 && p[1] < 0.1, "{p:?}");
        assert_eq!(c.pixels[2 * 20 + 10], [1.0; 3], "far pixels stay white");
    }

    #[test]
    fn chart_is_a_png() {
        let Ok(font) = std::fs::read(DEJAVU) else {
            eprintln!("{DEJAVU} missing (fonts-dejavu-core); skipping");
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
