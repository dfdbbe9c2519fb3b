//! Bitmap (PNG) rendering of a [`Drawing`].
//!
//! Lines and dots are drawn with anti-aliased discs stamped along the path, rectangles on whole
//! pixels, text with glyphs rasterised from a TrueType font the caller supplies
//! ([`crate::font`]).

use crate::drawing::{Anchor, Colour, Drawing, Shape};

/// Why a PNG chart could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RasterError {
    #[error("the font cannot be read: {0}")]
    Font(String),
    #[error("the chart is too large for a PNG: {width}×{height} pixels")]
    Size { width: f64, height: f64 },
    #[error("PNG encoding failed: {0}")]
    Encode(#[from] png::EncodingError),
}

/// An RGB image, channels from 0 to 1.
struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<[f32; 3]>,
}

fn channels(colour: Colour) -> [f32; 3] {
    colour.channels().map(|c| f32::from(c) / 255.0)
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

    /// An anti-aliased filled disc; `coverage` keeps a line's overlapping discs from darkening.
    fn disc(&mut self, centre: (f64, f64), radius: f64, colour: [f32; 3], coverage: &mut [f32]) {
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

    /// Paints the whole pixels from `(x, y)` (truncated) up to `(x + w, y + h)` (exclusive).
    fn fill(&mut self, (x, y): (f64, f64), (w, h): (f64, f64), colour: [f32; 3]) {
        let x0 = x.max(0.0) as usize;
        let y0 = y.max(0.0) as usize;
        let x1 = ((x + w).max(0.0) as usize).min(self.width);
        let y1 = ((y + h).max(0.0) as usize).min(self.height);
        for row in y0..y1 {
            for col in x0..x1 {
                if let Some(p) = self.pixels.get_mut(row * self.width + col) {
                    *p = colour;
                }
            }
        }
    }

    /// A filled rectangle whose outermost pixels, when `outline` is given, take that colour.
    fn rect(
        &mut self,
        at: (f64, f64),
        size: (f64, f64),
        fill: [f32; 3],
        outline: Option<[f32; 3]>,
    ) {
        match outline {
            None => self.fill(at, size, fill),
            Some(outline) => {
                self.fill(at, size, outline);
                self.fill((at.0 + 1.0, at.1 + 1.0), (size.0 - 2.0, size.1 - 2.0), fill);
            }
        }
    }

    fn text(
        &mut self,
        font: &fontdue::Font,
        at: (f64, f64),
        text: &str,
        anchor: Anchor,
        size: f64,
        vertical: bool,
    ) {
        let (x, y) = at;
        let glyphs: Vec<(fontdue::Metrics, Vec<u8>)> =
            text.chars().map(|c| font.rasterize(c, size as f32)).collect();
        let advance: f64 = glyphs.iter().map(|(m, _)| f64::from(m.advance_width)).sum();
        let mut pen = match anchor {
            Anchor::Start => 0.0,
            Anchor::Middle => -advance / 2.0,
            Anchor::End => -advance,
        };
        let black = [0.0f32; 3];
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
                    self.blend(px.round() as i64, py.round() as i64, black, f32::from(a) / 255.0);
                }
            }
            pen += f64::from(m.advance_width);
        }
    }

    fn to_rgb8(&self) -> Vec<u8> {
        self.pixels
            .iter()
            .flat_map(|p| p.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8))
            .collect()
    }
}

/// The largest side of a PNG chart: far beyond any chart clmap lays out, and small enough
/// that a malformed size cannot ask for an absurd allocation.
const MAX_SIDE: f64 = 16_384.0;

/// The drawing as a PNG image, text set in the TrueType font `font` (file bytes).
pub fn to_png(drawing: &Drawing, font: &[u8]) -> Result<Vec<u8>, RasterError> {
    let font = fontdue::Font::from_bytes(font, fontdue::FontSettings::default())
        .map_err(|e| RasterError::Font(e.to_string()))?;
    let (width, height) = (drawing.width.ceil(), drawing.height.ceil());
    if !(0.0..=MAX_SIDE).contains(&width) || !(0.0..=MAX_SIDE).contains(&height) {
        return Err(RasterError::Size { width: drawing.width, height: drawing.height });
    }
    let mut canvas = Canvas::new(width as usize, height as usize);
    for shape in &drawing.shapes {
        match shape {
            Shape::Line { from, to, colour, width, dashed } => {
                canvas.path(&[*from, *to], channels(*colour), *width, *dashed)
            }
            Shape::Polyline { points, colour, width, dashed } => {
                canvas.path(points, channels(*colour), *width, *dashed)
            }
            Shape::Dot { at, radius, colour } => {
                let mut coverage = canvas.fresh_coverage();
                canvas.disc(*at, *radius, channels(*colour), &mut coverage);
            }
            Shape::Rect { at, size, fill, outline } => {
                canvas.rect(*at, *size, channels(*fill), outline.map(channels))
            }
            Shape::Text { at, text, anchor, size, vertical } => {
                canvas.text(&font, *at, text, *anchor, *size, *vertical)
            }
        }
    }
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, width as u32, height as u32);
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
    use crate::font::FONT_PATH;

    #[test]
    fn lines_colour_the_pixels_they_cross() {
        let mut c = Canvas::new(20, 20);
        c.path(&[(0.0, 10.0), (20.0, 10.0)], [1.0, 0.0, 0.0], 2.0, false);
        let p = c.pixels[10 * 20 + 10];
        assert!(p[0] > 0.9 && p[1] < 0.1, "{p:?}");
        assert_eq!(c.pixels[2 * 20 + 10], [1.0; 3], "far pixels stay white");
    }

    #[test]
    fn outlined_rectangles_keep_their_border_pixels_for_the_outline() {
        let mut c = Canvas::new(10, 10);
        c.rect((2.0, 2.0), (5.0, 4.0), [0.0; 3], Some([1.0, 0.0, 0.0]));
        assert_eq!(c.pixels[2 * 10 + 2], [1.0, 0.0, 0.0], "corner is outline");
        assert_eq!(c.pixels[3 * 10 + 3], [0.0; 3], "inside is fill");
        assert_eq!(c.pixels[5 * 10 + 6], [1.0, 0.0, 0.0], "last row and column are outline");
        assert_eq!(c.pixels[6 * 10 + 6], [1.0; 3], "outside stays white");
    }

    #[test]
    fn drawings_too_large_or_with_a_bad_font_are_errors() {
        let huge = Drawing::new(1e9, 10.0);
        let nan = Drawing::new(f64::NAN, 10.0);
        if let Ok(font) = std::fs::read(FONT_PATH) {
            assert!(matches!(to_png(&huge, &font), Err(RasterError::Size { .. })));
            assert!(matches!(to_png(&nan, &font), Err(RasterError::Size { .. })));
        }
        assert!(matches!(
            to_png(&Drawing::new(4.0, 4.0), b"not a font"),
            Err(RasterError::Font(_))
        ));
    }
}
