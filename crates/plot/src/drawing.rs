//! The shapes a chart is made of, in pixels from the top left corner.

/// An sRGB colour, written `#rrggbb` in SVG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Colour(Repr);

/// Constant colours keep the spelling they are given, so the SVG of a chart stays
/// byte-for-byte what it was when the constant was written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Repr {
    Hex(&'static str),
    Rgb([u8; 3]),
}

impl Colour {
    pub const WHITE: Colour = Colour(Repr::Rgb([255, 255, 255]));

    /// A colour spelt `#rrggbb`; any other spelling paints black in PNG.
    pub const fn hex(hex: &'static str) -> Colour {
        Colour(Repr::Hex(hex))
    }

    pub const fn rgb(rgb: [u8; 3]) -> Colour {
        Colour(Repr::Rgb(rgb))
    }

    /// The colour as SVG writes it.
    pub fn svg(&self) -> String {
        match self.0 {
            Repr::Hex(hex) => hex.to_string(),
            Repr::Rgb([r, g, b]) => format!("#{r:02x}{g:02x}{b:02x}"),
        }
    }

    /// Red, green and blue from 0 to 255.
    pub fn channels(&self) -> [u8; 3] {
        match self.0 {
            Repr::Rgb(rgb) => rgb,
            Repr::Hex(hex) => {
                if !(hex.len() == 7 && hex.starts_with('#')) {
                    return [0; 3];
                }
                let channel = |i: usize| {
                    hex.get(1 + 2 * i..3 + 2 * i)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .unwrap_or(0)
                };
                [channel(0), channel(1), channel(2)]
            }
        }
    }
}

/// Which point of a text its position names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

/// A drawing primitive; text is black, set on its baseline.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Line {
        from: (f64, f64),
        to: (f64, f64),
        colour: Colour,
        width: f64,
        dashed: bool,
    },
    Polyline {
        points: Vec<(f64, f64)>,
        colour: Colour,
        width: f64,
        dashed: bool,
    },
    Dot {
        at: (f64, f64),
        radius: f64,
        colour: Colour,
    },
    /// A filled rectangle; `outline` is a one-pixel border inside it.
    Rect {
        at: (f64, f64),
        size: (f64, f64),
        fill: Colour,
        outline: Option<Colour>,
    },
    Text {
        at: (f64, f64),
        text: String,
        anchor: Anchor,
        size: f64,
        vertical: bool,
    },
}

/// A chart laid out: its size and its shapes in painting order, on a white background.
#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    pub shapes: Vec<Shape>,
}

impl Drawing {
    pub fn new(width: f64, height: f64) -> Drawing {
        Drawing { width, height, shapes: Vec::new() }
    }

    /// Adds black text.
    pub fn text(&mut self, at: (f64, f64), text: &str, anchor: Anchor, size: f64) {
        self.shapes.push(Shape::Text { at, text: text.to_string(), anchor, size, vertical: false });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_keep_their_spelling_and_parse() {
        assert_eq!(Colour::hex("#0072B2").svg(), "#0072B2");
        assert_eq!(Colour::hex("#ff0000").channels(), [255, 0, 0]);
        assert_eq!(Colour::hex("bad").channels(), [0, 0, 0]);
        assert_eq!(Colour::rgb([255, 40, 9]).svg(), "#ff2809");
        assert_eq!(Colour::WHITE.channels(), [255; 3]);
    }
}
