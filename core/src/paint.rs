//! How the background's shapes are drawn, as plain data: the path of each kind of shape
//! (centred on the origin, before its rotation), the box each one may touch, its colours
//! in each theme, and how it fades behind a page's text. The wasm layer replays these on
//! a canvas 2D context (the site draws only that way); anything else that draws (a test,
//! another renderer) can too. Every number of the drawing lives here.

use serde::Serialize;
#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

use crate::background::{PALETTE, Shape, ShapeKind};

/// Line width of every outline, in CSS pixels.
pub const LINE_WIDTH: f64 = 1.5;
/// A block's corner radius, as a share of its size.
const CORNER: f64 = 0.18;
/// A connection's end dots' radius, as a share of its size.
const DOT: f64 = 0.12;

/// One step of drawing a shape, in the shape's own coordinates (CSS pixels, centred,
/// unrotated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// Starts a new path.
    Begin,
    /// Adds a rounded square: left, top, side, corner radius.
    RoundRect(f64, f64, f64, f64),
    /// Adds a full circle: centre x, centre y, radius.
    Circle(f64, f64, f64),
    /// Starts a sub-path at a point.
    MoveTo(f64, f64),
    /// Adds a line to a point.
    LineTo(f64, f64),
    /// Closes the sub-path.
    Close,
    /// Fills the path with the shape's fill colour.
    Fill,
    /// Strokes the path with the shape's outline colour.
    Stroke,
}

/// The steps that draw a shape of `kind`, `size` CSS pixels wide, given to `out` in order.
pub fn steps(kind: ShapeKind, size: f64, mut out: impl FnMut(Step)) {
    let r = size / 2.0;
    out(Step::Begin);
    match kind {
        ShapeKind::Block => out(Step::RoundRect(-r, -r, size, size * CORNER)),
        ShapeKind::Node => out(Step::Circle(0.0, 0.0, r)),
        ShapeKind::Triangle => polygon(&TRIANGLE, r, &mut out),
        ShapeKind::Hexagon => polygon(&HEXAGON, r, &mut out),
        ShapeKind::Connection => {
            // A link between two nodes: a line, then a dot at each end.
            let dot = size * DOT;
            out(Step::MoveTo(-r + dot, 0.0));
            out(Step::LineTo(r - dot, 0.0));
            out(Step::Stroke);
            out(Step::Begin);
            out(Step::Circle(-r + dot, 0.0, dot));
            out(Step::MoveTo(r, 0.0));
            out(Step::Circle(r - dot, 0.0, dot));
            out(Step::Fill);
            return;
        }
    }
    out(Step::Fill);
    out(Step::Stroke);
}

/// √3 / 2, the half-width of a unit triangle and hexagon.
const H: f64 = 0.866_025_403_784_438_6;
/// A unit triangle's vertices, the first at the top, clockwise: fixed, as `sin` and `cos`
/// would link soft-float code several kilobytes long into the wasm.
const TRIANGLE: [(f64, f64); 3] = [(0.0, -1.0), (H, 0.5), (-H, 0.5)];
/// A unit hexagon's vertices, likewise.
const HEXAGON: [(f64, f64); 6] = [
    (0.0, -1.0),
    (H, -0.5),
    (H, 0.5),
    (0.0, 1.0),
    (-H, 0.5),
    (-H, -0.5),
];

/// A regular polygon through `unit`'s vertices, scaled to radius `r`.
fn polygon(unit: &[(f64, f64)], r: f64, out: &mut impl FnMut(Step)) {
    for (i, &(x, y)) in unit.iter().enumerate() {
        out(if i == 0 {
            Step::MoveTo(r * x, r * y)
        } else {
            Step::LineTo(r * x, r * y)
        });
    }
    out(Step::Close);
}

/// The square around `shape` that its drawing may touch, whatever its rotation, in
/// device pixels at `ratio`: left, top, side. Clearing it erases the shape.
pub fn reach(shape: &Shape, ratio: f64) -> [f64; 3] {
    // Half the diagonal of the bounding square, plus the outline and antialiasing.
    let half = (f64::from(shape.size) * 0.71 + 2.0) * ratio;
    [
        f64::from(shape.x) * ratio - half,
        f64::from(shape.y) * ratio - half,
        half * 2.0,
    ]
}

/// The kind of a shape (its stored index, clamped into range).
pub fn kind(shape: &Shape) -> ShapeKind {
    ShapeKind::ALL[(shape.kind.max(0.0) as usize).min(ShapeKind::ALL.len() - 1)]
}

/// The palette index of a shape (clamped into range).
pub fn colour_index(shape: &Shape) -> usize {
    (shape.colour.max(0.0) as usize).min(PALETTE.len() - 1)
}

/// How strongly shapes show: the opacity of their fill and of their outline, 0 to 1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct Ink {
    /// Opacity of the fill.
    pub fill: f64,
    /// Opacity of the outline.
    pub stroke: f64,
}

impl Ink {
    /// The site's light theme: decoration, never competing with text.
    pub const LIGHT: Ink = Ink {
        fill: 0.1,
        stroke: 0.32,
    };
    /// The dark theme: a little stronger, as light ink on a dark page reads fainter.
    pub const DARK: Ink = Ink {
        fill: 0.14,
        stroke: 0.42,
    };
}

/// A vertical band where shapes show fainter: behind a page's column of text (CSS pixels,
/// from the viewport's left edge).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fade {
    /// The band's left edge.
    pub left: f64,
    /// The band's right edge.
    pub right: f64,
}

impl Fade {
    /// Inside the band, shapes show at this share of their ink.
    pub const STRENGTH: f64 = 0.4;
    /// Over this many CSS pixels either side of the band's edges, the fade eases in.
    pub const EDGE: f64 = 64.0;

    /// How strongly a shape centred at `x` shows: 1 well beside the band,
    /// [`Fade::STRENGTH`] well inside it, in between over [`Fade::EDGE`] across each edge.
    pub fn at(self, x: f64) -> f64 {
        // 0 deep inside the band, 1 at or beyond half an edge outside it.
        let out = ((self.left - x) / Self::EDGE + 0.5)
            .max((x - self.right) / Self::EDGE + 0.5)
            .clamp(0.0, 1.0);
        Self::STRENGTH + (1.0 - Self::STRENGTH) * out
    }
}

/// Palette colour `index` at opacity `alpha`, as CSS `#rrggbbaa`. Written out by hand:
/// no formatting machinery in the wasm.
pub fn colour(index: usize, alpha: f64) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let base = PALETTE[index.min(PALETTE.len() - 1)];
    // Rounded by `floor`, a wasm instruction (`round` links a function).
    let a = (alpha.clamp(0.0, 1.0) * 255.0 + 0.5).floor() as u8;
    let mut css = String::with_capacity(9);
    css.push_str(base);
    css.push(char::from(HEX[usize::from(a >> 4)]));
    css.push(char::from(HEX[usize::from(a & 15)]));
    css
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::background::{Simulation, Variant};

    fn all(kind: ShapeKind, size: f64) -> Vec<Step> {
        let mut out = Vec::new();
        steps(kind, size, |s| out.push(s));
        out
    }

    #[test]
    fn each_kind_draws_its_outline() {
        assert_eq!(
            all(ShapeKind::Block, 50.0),
            [
                Step::Begin,
                Step::RoundRect(-25.0, -25.0, 50.0, 9.0),
                Step::Fill,
                Step::Stroke
            ]
        );
        assert_eq!(
            all(ShapeKind::Node, 40.0),
            [
                Step::Begin,
                Step::Circle(0.0, 0.0, 20.0),
                Step::Fill,
                Step::Stroke
            ]
        );
        for (kind, sides) in [(ShapeKind::Triangle, 3), (ShapeKind::Hexagon, 6)] {
            let steps = all(kind, 40.0);
            let points: Vec<(f64, f64)> = steps
                .iter()
                .filter_map(|s| match *s {
                    Step::MoveTo(x, y) | Step::LineTo(x, y) => Some((x, y)),
                    _ => None,
                })
                .collect();
            assert_eq!(points.len(), sides);
            let (x, y) = points[0];
            assert!(
                x.abs() < 1e-9 && (y + 20.0).abs() < 1e-9,
                "a vertex at the top"
            );
            for (x, y) in points {
                assert!((x.hypot(y) - 20.0).abs() < 1e-9, "on the circle");
            }
            assert_eq!(
                steps[steps.len() - 3..],
                [Step::Close, Step::Fill, Step::Stroke]
            );
        }
        let link = all(ShapeKind::Connection, 50.0);
        assert_eq!(
            link.iter()
                .filter(|s| matches!(s, Step::Circle(..)))
                .count(),
            2
        );
        assert_eq!(link.last(), Some(&Step::Fill));
    }

    #[test]
    fn every_shape_lies_within_its_reach_at_any_rotation() {
        let sim = Simulation::new(Variant::Landing, 1280.0, 800.0, 1);
        for shape in sim.shapes() {
            let [left, top, side] = reach(shape, 2.0);
            let (cx, cy) = (f64::from(shape.x) * 2.0, f64::from(shape.y) * 2.0);
            // The farthest any point of the shape gets from its centre, with the outline.
            let far = (f64::from(shape.size) / 2.0 * std::f64::consts::SQRT_2 + LINE_WIDTH) * 2.0;
            assert!(cx - far >= left && cx + far <= left + side, "{shape:?}");
            assert!(cy - far >= top && cy + far <= top + side, "{shape:?}");
        }
    }

    #[test]
    fn shapes_fade_behind_the_text_column_and_ease_across_its_edges() {
        let fade = Fade {
            left: 200.0,
            right: 800.0,
        };
        let near = |x: f64, want: f64| {
            let got = fade.at(x);
            assert!((got - want).abs() < 1e-12, "at {x}: {got}, not {want}");
        };
        near(500.0, Fade::STRENGTH); // deep inside
        near(100.0, 1.0); // well to the left
        near(900.0, 1.0); // well to the right
        // At an edge, halfway; half an edge outside it, full; half inside, the band's.
        near(200.0, 0.7);
        near(800.0, 0.7);
        near(168.0, 1.0);
        near(832.0, 1.0);
        near(232.0, Fade::STRENGTH);
        // Never below the band's strength, never above 1, and monotonic towards the edge.
        let mut last = 1.0;
        for x in (0..=500).map(f64::from) {
            let a = fade.at(x);
            assert!((Fade::STRENGTH..=1.0).contains(&a) && a <= last, "{x}: {a}");
            last = a;
        }
    }

    #[test]
    fn colours_are_the_palette_with_an_alpha_byte() {
        assert_eq!(colour(0, 0.1), "#6366f11a");
        assert_eq!(colour(7, 1.0), "#3b82f6ff");
        assert_eq!(colour(3, 0.0), "#f43f5e00");
        assert_eq!(colour(99, 2.0), "#3b82f6ff", "clamped");
    }
}
