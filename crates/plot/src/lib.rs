//! Every chart clmap draws: line charts of metric curves and heatmaps of the performance
//! database, written as SVG and rasterised to PNG from the same [`Drawing`].
//!
//! A chart is laid out once as a list of [`Shape`]s in pixels; [`svg::to_svg`] writes them as
//! text and [`raster::to_png`] paints them, so both formats share their geometry exactly.
//!
//! ```
//! use clmap_plot::{line_chart_svg, ChartText, Series};
//! let series = [Series { label: "psl".into(), points: vec![(0.0, 1.0), (1.0, 0.5)] }];
//! let text = ChartText { title: "PSL", x_label: "bits dropped", y_label: "psl" };
//! assert!(line_chart_svg(&text, &series).starts_with("<svg"));
//! ```

mod drawing;
pub mod font;
pub mod heatmap;
pub mod line;
pub mod raster;
pub mod svg;

pub use drawing::{Anchor, Colour, Drawing, Shape};
pub use font::{read_font, FontError, FONT_PATH};
pub use heatmap::{Heatmap, HeatmapCell};
pub use line::{line_chart_png, line_chart_svg, ChartText, Series, CHART_SIZE};
pub use raster::RasterError;
