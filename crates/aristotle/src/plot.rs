//! Charts of the performance database: an mbr heatmap (MAP × dataset) per device, and the share
//! of MAPs that gain from local memory per dataset across devices, the 2014 platforms included.
//!
//! The heatmap is drawn here (metrics' charts are line charts only), as SVG and as PNG with the
//! same geometry; the comparison reuses metrics' line chart in both formats.

use crate::query::MapTable;
use clmap_metrics::plot::{line_chart_svg, ChartText, Series};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The font PNG text is set in (Debian: fonts-dejavu-core).
pub const FONT_PATH: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Why charts could not be written.
#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("PNG: {0}")]
    Png(String),
}

const CELL_W: f64 = 56.0;
const CELL_H: f64 = 18.0;
const MARGIN_LEFT: f64 = 90.0;
const MARGIN_TOP: f64 = 60.0;
const MARGIN_BOTTOM: f64 = 50.0;

/// Colour of a ratio: white at 1, red for gains, blue for losses, saturating at 4× either way.
pub fn mbr_colour(mbr: f64) -> [u8; 3] {
    if !mbr.is_finite() || mbr <= 0.0 {
        return [200, 200, 200];
    }
    let t = (mbr.log2() / 2.0).clamp(-1.0, 1.0);
    let fade = |full: f64| (255.0 - (255.0 - full) * t.abs()).round() as u8;
    if t >= 0.0 {
        [255, fade(40.0), fade(40.0)]
    } else {
        [fade(40.0), fade(90.0), 255]
    }
}

/// The cells of a heatmap: (column = dataset index, row = MAP index, mbr).
struct Grid {
    maps: Vec<u16>,
    datasets: Vec<usize>,
    cells: Vec<(usize, usize, f64)>,
}

fn grid(table: &MapTable) -> Grid {
    let maps = table.maps();
    let datasets = table.datasets();
    let mut cells = Vec::new();
    for r in &table.records {
        let col = datasets.iter().position(|&d| d == r.dataset);
        let row = maps.iter().position(|&m| m == r.map);
        if let (Some(col), Some(row)) = (col, row) {
            cells.push((col, row, r.mbr));
        }
    }
    Grid { maps, datasets, cells }
}

/// Width of a character of the device line, generous for DejaVu Sans at 12 px: OpenCL device
/// names run to 80 characters, far wider than a six-dataset grid.
const TITLE_CHAR_W: f64 = 7.5;

fn size(g: &Grid, device: &str) -> (f64, f64) {
    let grid_w = MARGIN_LEFT + CELL_W * g.datasets.len().max(1) as f64 + 20.0;
    let title_w = TITLE_CHAR_W * device.chars().count() as f64 + 20.0;
    (grid_w.max(title_w).ceil(), MARGIN_TOP + CELL_H * g.maps.len().max(1) as f64 + MARGIN_BOTTOM)
}

/// The two title lines: what the colours show, then the device.
fn title_lines(table: &MapTable) -> [String; 2] {
    [format!("mbr = B/b (B: the {} variant)", table.local_variant), table.device.clone()]
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// The heatmap of one device as SVG.
pub fn heatmap_svg(table: &MapTable) -> String {
    let g = grid(table);
    let (w, h) = size(&g, &table.device);
    let [what, device] = title_lines(table);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="DejaVu Sans, sans-serif">"#
    );
    let _ = writeln!(s, r#"<rect width="{w}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="20" font-size="14" text-anchor="middle">{}</text>"#,
        w / 2.0,
        escape(&what)
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="36" font-size="12" text-anchor="middle">{}</text>"#,
        w / 2.0,
        escape(&device)
    );
    for (i, n) in g.datasets.iter().enumerate() {
        let x = MARGIN_LEFT + CELL_W * (i as f64 + 0.5);
        let _ = writeln!(
            s,
            r#"<text x="{x}" y="{}" font-size="11" text-anchor="middle">{n}</text>"#,
            MARGIN_TOP - 6.0
        );
    }
    for (i, m) in g.maps.iter().enumerate() {
        let y = MARGIN_TOP + CELL_H * (i as f64 + 0.7);
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{y}" font-size="11" text-anchor="end">MAP-{m}</text>"#,
            MARGIN_LEFT - 6.0
        );
    }
    for &(col, row, mbr) in &g.cells {
        let [r, gr, b] = mbr_colour(mbr);
        let x = MARGIN_LEFT + CELL_W * col as f64;
        let y = MARGIN_TOP + CELL_H * row as f64;
        let _ = writeln!(
            s,
            r##"<rect x="{x}" y="{y}" width="{CELL_W}" height="{CELL_H}" fill="#{r:02x}{gr:02x}{b:02x}" stroke="white"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="10" text-anchor="middle">{mbr:.2}</text>"#,
            x + CELL_W / 2.0,
            y + CELL_H * 0.7
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" font-size="12" text-anchor="middle">dataset N (N×N); red: local memory gains, blue: it loses</text>"#,
        w / 2.0,
        h - 18.0
    );
    s.push_str("</svg>\n");
    s
}

/// The heatmap of one device as PNG, text set in `font` (TrueType file bytes).
pub fn heatmap_png(table: &MapTable, font: &[u8]) -> Result<Vec<u8>, PlotError> {
    let font = fontdue::Font::from_bytes(font, fontdue::FontSettings::default())
        .map_err(|e| PlotError::Png(format!("the font cannot be read: {e}")))?;
    let g = grid(table);
    let (w, h) = size(&g, &table.device);
    let mut canvas = Canvas::new(w as usize, h as usize);
    for &(col, row, mbr) in &g.cells {
        let x = MARGIN_LEFT + CELL_W * col as f64;
        let y = MARGIN_TOP + CELL_H * row as f64;
        canvas.fill(x + 1.0, y + 1.0, CELL_W - 2.0, CELL_H - 2.0, mbr_colour(mbr));
        canvas.text(&font, x + CELL_W / 2.0, y + CELL_H * 0.7, &format!("{mbr:.2}"), 10.0, 0.5);
    }
    let [what, device] = title_lines(table);
    canvas.text(&font, w / 2.0, 20.0, &what, 14.0, 0.5);
    canvas.text(&font, w / 2.0, 36.0, &device, 12.0, 0.5);
    for (i, n) in g.datasets.iter().enumerate() {
        let x = MARGIN_LEFT + CELL_W * (i as f64 + 0.5);
        canvas.text(&font, x, MARGIN_TOP - 6.0, &n.to_string(), 11.0, 0.5);
    }
    for (i, m) in g.maps.iter().enumerate() {
        let y = MARGIN_TOP + CELL_H * (i as f64 + 0.7);
        canvas.text(&font, MARGIN_LEFT - 6.0, y, &format!("MAP-{m}"), 11.0, 1.0);
    }
    let legend = "dataset N (NxN); red: local memory gains, blue: it loses";
    canvas.text(&font, w / 2.0, h - 18.0, legend, 12.0, 0.5);
    canvas.encode()
}

/// An RGB bitmap with a white background.
struct Canvas {
    width: usize,
    height: usize,
    pixels: Vec<[u8; 3]>,
}

impl Canvas {
    fn new(width: usize, height: usize) -> Canvas {
        Canvas { width, height, pixels: vec![[255; 3]; width * height] }
    }

    fn fill(&mut self, x: f64, y: f64, w: f64, h: f64, colour: [u8; 3]) {
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

    /// Text on baseline `y`; `align` 0 puts its start at `x`, 0.5 its middle, 1 its end.
    fn text(&mut self, font: &fontdue::Font, x: f64, y: f64, text: &str, px: f32, align: f64) {
        let glyphs: Vec<_> = text.chars().map(|c| font.rasterize(c, px)).collect();
        let advance: f64 = glyphs.iter().map(|(m, _)| f64::from(m.advance_width)).sum();
        let mut pen = x - advance * align;
        for (m, bitmap) in &glyphs {
            for row in 0..m.height {
                for col in 0..m.width {
                    let Some(&a) = bitmap.get(row * m.width + col) else { continue };
                    let px_x = (pen + f64::from(m.xmin) + col as f64).round();
                    let px_y = (y - f64::from(m.ymin) - (m.height - row) as f64 + 1.0).round();
                    if px_x < 0.0 || px_y < 0.0 {
                        continue;
                    }
                    let (cx, cy) = (px_x as usize, px_y as usize);
                    if cx >= self.width || cy >= self.height {
                        continue;
                    }
                    if let Some(p) = self.pixels.get_mut(cy * self.width + cx) {
                        let alpha = f32::from(a) / 255.0;
                        for c in p.iter_mut() {
                            *c = (f32::from(*c) * (1.0 - alpha)).round() as u8;
                        }
                    }
                }
            }
            pen += f64::from(m.advance_width);
        }
    }

    fn encode(&self) -> Result<Vec<u8>, PlotError> {
        let mut out = Vec::new();
        {
            let width = u32::try_from(self.width).map_err(|e| PlotError::Png(e.to_string()))?;
            let height = u32::try_from(self.height).map_err(|e| PlotError::Png(e.to_string()))?;
            let mut encoder = png::Encoder::new(&mut out, width, height);
            encoder.set_color(png::ColorType::Rgb);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header().map_err(|e| PlotError::Png(e.to_string()))?;
            let bytes: Vec<u8> = self.pixels.iter().flatten().copied().collect();
            writer.write_image_data(&bytes).map_err(|e| PlotError::Png(e.to_string()))?;
        }
        Ok(out)
    }
}

/// Per device, the percentage of MAPs that gain at each dataset (x = log2 N).
pub fn gain_series(tables: &[MapTable], delta: f64) -> Vec<Series> {
    tables
        .iter()
        .map(|t| Series {
            label: short_label(&t.device),
            points: t
                .distribution(delta)
                .iter()
                .map(|row| ((row.dataset.max(1) as f64).log2(), row.percent(row.gain) as f64))
                .collect(),
        })
        .collect()
}

/// A legend label that fits the chart's legend column.
fn short_label(label: &str) -> String {
    const MAX: usize = 30;
    if label.chars().count() <= MAX {
        label.to_string()
    } else {
        let mut short: String = label.chars().take(MAX - 1).collect();
        short.push('…');
        short
    }
}

/// A file name from a device label.
fn slug(label: &str) -> String {
    let mut s: String = label
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect();
    while s.contains("--") {
        s = s.replace("--", "-");
    }
    s.trim_matches('-').chars().take(60).collect()
}

fn write(path: PathBuf, bytes: &[u8], written: &mut Vec<PathBuf>) -> Result<(), PlotError> {
    std::fs::write(&path, bytes)
        .map_err(|source| PlotError::Write { path: path.clone(), source })?;
    written.push(path);
    Ok(())
}

/// Writes `mbr-<device>.svg/.png` for each of `tables` and `gain-comparison.svg/.png` over
/// `all` into `dir` (created if needed). PNGs need [`FONT_PATH`]; without it only SVGs are
/// written. Returns the files written.
pub fn write_plots(
    dir: &Path,
    tables: &[MapTable],
    all: &[MapTable],
    delta: f64,
) -> Result<Vec<PathBuf>, PlotError> {
    std::fs::create_dir_all(dir)
        .map_err(|source| PlotError::Write { path: dir.to_path_buf(), source })?;
    let font = std::fs::read(FONT_PATH).ok();
    let mut written = Vec::new();
    for t in tables {
        let name = slug(&t.device);
        write(dir.join(format!("mbr-{name}.svg")), heatmap_svg(t).as_bytes(), &mut written)?;
        if let Some(font) = &font {
            write(dir.join(format!("mbr-{name}.png")), &heatmap_png(t, font)?, &mut written)?;
        }
    }
    if !all.is_empty() {
        let title = format!("MAPs that gain from local memory (mbr > {:.2})", 1.0 + delta);
        let text =
            ChartText { title: &title, x_label: "log2 of dataset side N", y_label: "% of MAPs" };
        let series = gain_series(all, delta);
        write(
            dir.join("gain-comparison.svg"),
            line_chart_svg(&text, &series).as_bytes(),
            &mut written,
        )?;
        if let Some(font) = &font {
            let png = clmap_metrics::raster::line_chart_png(&text, &series, font)
                .map_err(|e| PlotError::Png(e.to_string()))?;
            write(dir.join("gain-comparison.png"), &png, &mut written)?;
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::MapRecord;

    fn table() -> MapTable {
        let rec = |map, dataset, mbr| MapRecord {
            map,
            dataset,
            b_mean: 1.0,
            b_std: 0.0,
            big_b_mean: mbr,
            big_b_std: 0.0,
            mbr,
        };
        MapTable {
            device: "Test <GPU>".into(),
            local_variant: "max".into(),
            records: vec![rec(107, 128, 2.0), rec(108, 128, 0.5), rec(107, 256, 1.0)],
        }
    }

    #[test]
    fn colours_run_from_blue_through_white_to_red() {
        assert_eq!(mbr_colour(1.0), [255, 255, 255]);
        assert_eq!(mbr_colour(4.0), [255, 40, 40]);
        assert_eq!(mbr_colour(0.25), [40, 90, 255]);
        assert_eq!(mbr_colour(f64::NAN), [200, 200, 200]);
    }

    #[test]
    fn heatmap_has_a_cell_per_record_and_escapes_labels() {
        let svg = heatmap_svg(&table());
        assert_eq!(svg.matches("<rect x=").count(), 3);
        assert!(svg.contains("Test &lt;GPU&gt;"));
        assert!(svg.contains(">2.00<") && svg.contains(">0.50<"));
    }

    #[test]
    fn a_long_device_name_widens_the_heatmap_instead_of_being_cut() {
        let mut long = table();
        long.device =
            "cpu-skylake-avx512-Intel(R) Xeon(R) Processor (Portable Computing Language)".into();
        let width = |svg: &str| -> f64 {
            let start = svg.find("width=\"").expect("width") + 7;
            let end = start + svg[start..].find('"').expect("closing quote");
            svg[start..end].parse().expect("number")
        };
        let (short_w, long_w) = (width(&heatmap_svg(&table())), width(&heatmap_svg(&long)));
        assert!(long_w >= TITLE_CHAR_W * long.device.len() as f64, "{long_w}");
        assert!(long_w > short_w);
        assert!(heatmap_svg(&long).contains(">cpu-skylake-avx512-Intel(R) Xeon(R) Processor"));
    }

    #[test]
    fn gain_series_gives_percentages_per_dataset() {
        let s = gain_series(&[table()], 0.05);
        assert_eq!(s[0].points, vec![(7.0, 50.0), (8.0, 0.0)]);
        assert_eq!(slug("Intel(R) Xeon  GPU"), "intel-r-xeon-gpu");
    }

    #[test]
    fn png_heatmap_encodes_when_the_font_is_installed() {
        let Ok(font) = std::fs::read(FONT_PATH) else {
            eprintln!("skipped: {FONT_PATH} is not installed");
            return;
        };
        let png = heatmap_png(&table(), &font).expect("png");
        assert_eq!(png.get(1..4), Some(&b"PNG"[..]));
    }
}
