//! Charts of the performance database: an mbr heatmap (MAP × dataset) per device, and the share
//! of MAPs that gain from local memory per dataset across devices, the 2014 platforms included.
//!
//! Both are drawn by `clmap-plot`, as SVG and as PNG with the same geometry.

use crate::query::MapTable;
use clmap_plot::{line_chart_png, line_chart_svg, ChartText, Series};
use clmap_plot::{Colour, Heatmap, HeatmapCell, RasterError};
use std::path::{Path, PathBuf};

pub use clmap_plot::FONT_PATH;

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
    Png(#[from] RasterError),
}

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

/// The heatmap of one device: a row per MAP, a column per dataset, the mbr in each cell.
pub fn heatmap(table: &MapTable) -> Heatmap {
    let maps = table.maps();
    let datasets = table.datasets();
    let mut cells = Vec::new();
    for r in &table.records {
        let column = datasets.iter().position(|&d| d == r.dataset);
        let row = maps.iter().position(|&m| m == r.map);
        if let (Some(column), Some(row)) = (column, row) {
            let fill = Colour::rgb(mbr_colour(r.mbr));
            cells.push(HeatmapCell { column, row, text: format!("{:.2}", r.mbr), fill });
        }
    }
    Heatmap {
        title: format!("mbr = B/b (B: the {} variant)", table.local_variant),
        subtitle: table.device.clone(),
        columns: datasets.iter().map(usize::to_string).collect(),
        rows: maps.iter().map(|m| format!("MAP-{m}")).collect(),
        cells,
        legend: "dataset N (N×N); red: local memory gains, blue: it loses".into(),
    }
}

/// The heatmap of one device as SVG.
pub fn heatmap_svg(table: &MapTable) -> String {
    heatmap(table).to_svg()
}

/// The heatmap of one device as PNG, text set in `font` (TrueType file bytes).
pub fn heatmap_png(table: &MapTable, font: &[u8]) -> Result<Vec<u8>, PlotError> {
    Ok(heatmap(table).to_png(font)?)
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
    let font = clmap_plot::read_font().ok();
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
            let png = line_chart_png(&text, &series, font)?;
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
        let rec = MapRecord::with_ratio;
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
        assert!(
            long_w >= clmap_plot::heatmap::SUBTITLE_CHAR_W * long.device.len() as f64,
            "{long_w}"
        );
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
