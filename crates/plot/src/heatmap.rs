//! Heatmaps: a grid of coloured cells with their values written in, labelled rows and
//! columns, two title lines above and a legend line below.

use crate::drawing::{Anchor, Colour, Drawing, Shape};
use crate::raster::{to_png, RasterError};
use crate::svg::to_svg;

/// One cell: where it is in the grid, the value written in it and its colour.
#[derive(Clone, Debug, PartialEq)]
pub struct HeatmapCell {
    pub column: usize,
    pub row: usize,
    pub text: String,
    pub fill: Colour,
}

/// The content of a heatmap; [`Heatmap::layout`] places it.
#[derive(Clone, Debug, PartialEq)]
pub struct Heatmap {
    /// What the colours show, in large type.
    pub title: String,
    /// The second title line; the heatmap is made wide enough for it (device names are far
    /// wider than a grid of a few columns).
    pub subtitle: String,
    pub columns: Vec<String>,
    pub rows: Vec<String>,
    pub cells: Vec<HeatmapCell>,
    /// The line below the grid: what the axes and colours mean.
    pub legend: String,
}

const CELL_W: f64 = 56.0;
const CELL_H: f64 = 18.0;
const MARGIN_LEFT: f64 = 90.0;
const MARGIN_TOP: f64 = 60.0;
const MARGIN_BOTTOM: f64 = 50.0;

/// Width given to each character of the subtitle, generous for DejaVu Sans at 12 px.
pub const SUBTITLE_CHAR_W: f64 = 7.5;

impl Heatmap {
    fn size(&self) -> (f64, f64) {
        let grid_w = MARGIN_LEFT + CELL_W * self.columns.len().max(1) as f64 + 20.0;
        let title_w = SUBTITLE_CHAR_W * self.subtitle.chars().count() as f64 + 20.0;
        let height = MARGIN_TOP + CELL_H * self.rows.len().max(1) as f64 + MARGIN_BOTTOM;
        (grid_w.max(title_w).ceil(), height)
    }

    /// The shapes of the heatmap, with the same geometry in both formats.
    pub fn layout(&self) -> Drawing {
        let (w, h) = self.size();
        let mut d = Drawing::new(w, h);
        d.text((w / 2.0, 20.0), &self.title, Anchor::Middle, 14.0);
        d.text((w / 2.0, 36.0), &self.subtitle, Anchor::Middle, 12.0);
        for (i, column) in self.columns.iter().enumerate() {
            let x = MARGIN_LEFT + CELL_W * (i as f64 + 0.5);
            d.text((x, MARGIN_TOP - 6.0), column, Anchor::Middle, 11.0);
        }
        for (i, row) in self.rows.iter().enumerate() {
            let y = MARGIN_TOP + CELL_H * (i as f64 + 0.7);
            d.text((MARGIN_LEFT - 6.0, y), row, Anchor::End, 11.0);
        }
        for cell in &self.cells {
            let x = MARGIN_LEFT + CELL_W * cell.column as f64;
            let y = MARGIN_TOP + CELL_H * cell.row as f64;
            d.shapes.push(Shape::Rect {
                at: (x, y),
                size: (CELL_W, CELL_H),
                fill: cell.fill,
                outline: Some(Colour::WHITE),
            });
            d.text((x + CELL_W / 2.0, y + CELL_H * 0.7), &cell.text, Anchor::Middle, 10.0);
        }
        d.text((w / 2.0, h - 18.0), &self.legend, Anchor::Middle, 12.0);
        d
    }

    pub fn to_svg(&self) -> String {
        to_svg(&self.layout())
    }

    /// The heatmap as PNG, text set in `font` (TrueType file bytes).
    pub fn to_png(&self, font: &[u8]) -> Result<Vec<u8>, RasterError> {
        to_png(&self.layout(), font)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heatmap(subtitle: &str) -> Heatmap {
        let cell = |column, row, text: &str| HeatmapCell {
            column,
            row,
            text: text.into(),
            fill: Colour::rgb([255, 40, 40]),
        };
        Heatmap {
            title: "t".into(),
            subtitle: subtitle.into(),
            columns: vec!["128".into(), "256".into()],
            rows: vec!["MAP-1".into()],
            cells: vec![cell(0, 0, "2.00"), cell(1, 0, "0.50")],
            legend: "l".into(),
        }
    }

    #[test]
    fn cells_sit_in_their_grid_position() {
        let svg = heatmap("dev").to_svg();
        assert_eq!(svg.matches("<rect x=").count(), 2);
        assert!(
            svg.contains(r##"<rect x="146.0" y="60.0" width="56.0" height="18.0" fill="#ff2828""##)
        );
        assert!(svg.contains(">0.50</text>"));
    }

    #[test]
    fn the_subtitle_widens_the_heatmap() {
        let narrow = heatmap("dev").layout();
        let wide = heatmap(&"x".repeat(80)).layout();
        assert_eq!(narrow.width, 90.0 + 2.0 * 56.0 + 20.0);
        assert!(wide.width >= 80.0 * SUBTITLE_CHAR_W);
        assert_eq!(narrow.height, wide.height);
    }
}
