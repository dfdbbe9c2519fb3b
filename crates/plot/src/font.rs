//! The font PNG text is set in.

use std::path::PathBuf;

/// DejaVu Sans, which SVG charts name first and PNG charts are set in (Debian:
/// fonts-dejavu-core).
pub const FONT_PATH: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Why the chart font could not be read.
#[derive(Debug, thiserror::Error)]
#[error("cannot read the font {} ({source}); install fonts-dejavu-core", path.display())]
pub struct FontError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// The bytes of [`FONT_PATH`], for the PNG renderers.
pub fn read_font() -> Result<Vec<u8>, FontError> {
    std::fs::read(FONT_PATH).map_err(|source| FontError { path: FONT_PATH.into(), source })
}
