//! The decorative background: shapes that drift and turn behind every page (spec §2, §9).
//!
//! Seeded and deterministic; time is an input ([`Simulation::step`] takes the elapsed
//! milliseconds). Shapes are stored as `#[repr(C)]` rows of `f32`, so the UI can read
//! them in place through a typed-array view over wasm memory (see [`Shape`]).

use std::mem::offset_of;

use serde::{Deserialize, Serialize};

use crate::paint::Ink;
use thiserror::Error;
#[cfg(target_arch = "wasm32")]
use tsify::Tsify;

/// How many shapes the landing page shows.
pub const LANDING_SHAPES: usize = 25;
/// How many shapes every other page shows.
pub const PAGE_SHAPES: usize = 18;
/// The longest step taken at once, in ms: a tab hidden for minutes resumes smoothly.
pub const MAX_STEP_MS: u32 = 50;
/// The shortest time between two drawn frames, in ms: about 30 frames a second on any
/// screen (every second refresh at 60 Hz, every fourth at 120 Hz). The fastest shape moves
/// `MAX_SPEED` px a second, under a pixel a frame even so, and motion that slow looks the
/// same at 30 frames as at 60. Each drawn frame costs the browser a whole canvas handed to
/// its compositor: drawing at every refresh of a 60 Hz screen took 0.46 to 0.68 of a core
/// in Chromium (2 cores, 1280 × 720), at this pace 0.29 to 0.48.
pub const FRAME_MS: u32 = 30;

/// The eight shape colours, as CSS hex colours. The UI sets their opacity per theme.
pub const PALETTE: [&str; 8] = [
    "#6366f1", // indigo
    "#8b5cf6", // violet
    "#ec4899", // pink
    "#f43f5e", // rose
    "#f59e0b", // amber
    "#10b981", // emerald
    "#06b6d4", // cyan
    "#3b82f6", // blue
];

const MIN_SIZE: f32 = 18.0;
const MAX_SIZE: f32 = 56.0;
const MIN_SPEED: f32 = 6.0; // px per second
const MAX_SPEED: f32 = 22.0;
const MAX_SPIN: f32 = 0.35; // radians per second

/// Which page the background is behind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub enum Variant {
    /// The landing page, `/`.
    Landing,
    /// Every other page.
    Page,
}

impl Variant {
    /// How many shapes this variant shows.
    pub fn shape_count(self) -> usize {
        match self {
            Variant::Landing => LANDING_SHAPES,
            Variant::Page => PAGE_SHAPES,
        }
    }
}

impl std::str::FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "landing" => Ok(Variant::Landing),
            "page" => Ok(Variant::Page),
            _ => Err(UnknownVariant),
        }
    }
}

/// A variant name that is neither `landing` nor `page`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
#[error("unknown variant: expected landing or page")]
pub struct UnknownVariant;

/// The five shape types. Stored in [`Shape::kind`] as their index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub enum ShapeKind {
    /// A rounded square, like a UI block.
    Block,
    /// A circle, like a graph node.
    Node,
    /// A triangle.
    Triangle,
    /// A hexagon.
    Hexagon,
    /// A short line with a dot at each end.
    Connection,
}

impl ShapeKind {
    /// Every kind, in index order.
    pub const ALL: [ShapeKind; 5] = [
        ShapeKind::Block,
        ShapeKind::Node,
        ShapeKind::Triangle,
        ShapeKind::Hexagon,
        ShapeKind::Connection,
    ];

    /// The name used at the boundary.
    pub const fn as_str(self) -> &'static str {
        match self {
            ShapeKind::Block => "block",
            ShapeKind::Node => "node",
            ShapeKind::Triangle => "triangle",
            ShapeKind::Hexagon => "hexagon",
            ShapeKind::Connection => "connection",
        }
    }
}

/// One shape. The first six fields are what a renderer reads; all are `f32` so that a
/// slice of shapes is a plain `Float32Array` of [`Shape::STRIDE`] numbers per shape.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Shape {
    /// Centre, in CSS pixels from the left.
    pub x: f32,
    /// Centre, in CSS pixels from the top.
    pub y: f32,
    /// Width of the shape's bounding square, in CSS pixels.
    pub size: f32,
    /// Rotation, in radians, in `[0, 2π)`.
    pub angle: f32,
    /// Index into [`ShapeKind::ALL`].
    pub kind: f32,
    /// Index into [`PALETTE`].
    pub colour: f32,
    vx: f32,
    vy: f32,
    spin: f32,
}

impl Shape {
    /// `f32`s per shape in memory.
    pub const STRIDE: usize = size_of::<Shape>() / size_of::<f32>();
    /// Offsets of the renderer's fields within a row, in `f32`s, from the struct's layout.
    pub const X: usize = offset_of!(Shape, x) / size_of::<f32>();
    /// See [`Shape::X`].
    pub const Y: usize = offset_of!(Shape, y) / size_of::<f32>();
    /// See [`Shape::X`].
    pub const SIZE: usize = offset_of!(Shape, size) / size_of::<f32>();
    /// See [`Shape::X`].
    pub const ANGLE: usize = offset_of!(Shape, angle) / size_of::<f32>();
    /// See [`Shape::X`].
    pub const KIND: usize = offset_of!(Shape, kind) / size_of::<f32>();
    /// See [`Shape::X`].
    pub const COLOUR: usize = offset_of!(Shape, colour) / size_of::<f32>();

    /// The shape's type.
    pub fn shape_kind(&self) -> ShapeKind {
        ShapeKind::ALL[self.kind as usize]
    }
}

// A row is a whole number of `f32`s with no padding, so a `Float32Array` reads it.
const _: () = assert!(size_of::<Shape>() % size_of::<f32>() == 0);
const _: () = assert!(align_of::<Shape>() == align_of::<f32>());

/// Where a renderer finds each field within a shape row, in `f32`s.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct RowOffsets {
    /// See [`Shape::x`].
    pub x: u32,
    /// See [`Shape::y`].
    pub y: u32,
    /// See [`Shape::size`].
    pub size: u32,
    /// See [`Shape::angle`].
    pub angle: u32,
    /// See [`Shape::kind`].
    pub kind: u32,
    /// See [`Shape::colour`].
    pub colour: u32,
}

/// The background's fixed values (spec §2 and §9) and the layout of a shape row.
/// Counts are `u32` at the boundary: a JS number, and no 64-bit conversion in the wasm.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct BackgroundConstants {
    /// Shapes on the landing page.
    pub landing_shapes: u32,
    /// Shapes on every other page.
    pub page_shapes: u32,
    /// The longest step taken at once, in ms.
    pub max_step_ms: u32,
    /// The shortest time between two drawn frames, in ms.
    pub frame_ms: u32,
    /// The eight colours, as CSS hex colours, indexed by a shape's `colour`.
    pub palette: [&'static str; PALETTE.len()],
    /// The shape types, indexed by a shape's `kind`.
    pub kinds: [ShapeKind; ShapeKind::ALL.len()],
    /// `f32`s per shape row.
    pub stride: u32,
    /// Where each field is within a row.
    pub offsets: RowOffsets,
    /// How strongly shapes show in the site's light and dark themes.
    pub inks: ThemeInks,
}

/// The site's ink per theme (for `Background.setInk`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[cfg_attr(target_arch = "wasm32", derive(Tsify))]
pub struct ThemeInks {
    /// Dark shapes on a light page.
    pub light: Ink,
    /// Light shapes on a dark page: a little stronger, as they read fainter.
    pub dark: Ink,
}

impl BackgroundConstants {
    /// The constants, from the consts the simulation uses.
    pub fn new() -> Self {
        Self {
            landing_shapes: LANDING_SHAPES as u32,
            page_shapes: PAGE_SHAPES as u32,
            max_step_ms: MAX_STEP_MS,
            frame_ms: FRAME_MS,
            palette: PALETTE,
            kinds: ShapeKind::ALL,
            stride: Shape::STRIDE as u32,
            offsets: RowOffsets {
                x: Shape::X as u32,
                y: Shape::Y as u32,
                size: Shape::SIZE as u32,
                angle: Shape::ANGLE as u32,
                kind: Shape::KIND as u32,
                colour: Shape::COLOUR as u32,
            },
            inks: ThemeInks {
                light: Ink::LIGHT,
                dark: Ink::DARK,
            },
        }
    }
}

impl Default for BackgroundConstants {
    fn default() -> Self {
        Self::new()
    }
}

/// A small, seedable generator (`SplitMix64`): the same seed gives the same shapes.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[lo, hi)`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// A unit vector in a uniformly random direction. Rejection sampling in the unit
    /// disc rather than `sin`/`cos`, whose soft-float code would add 7 KB to the wasm.
    fn direction(&mut self) -> (f32, f32) {
        loop {
            let (x, y) = (self.range(-1.0, 1.0), self.range(-1.0, 1.0));
            // Not `hypot`: that links a soft-float routine; `sqrt` is a wasm instruction.
            let len = (x * x + y * y).sqrt();
            if (0.01..=1.0).contains(&len) {
                return (x / len, y / len);
            }
        }
    }
}

/// The shapes and the viewport they live in.
#[derive(Clone, Debug)]
pub struct Simulation {
    shapes: Vec<Shape>,
    width: f32,
    height: f32,
}

impl Simulation {
    /// Scatters the variant's shapes over a `width` × `height` viewport (CSS pixels).
    /// Every kind appears; sizes, colours, headings and speeds come from `seed`.
    pub fn new(variant: Variant, width: f64, height: f64, seed: u64) -> Self {
        let (width, height) = (viewport_side(width), viewport_side(height));
        let mut rng = Rng(seed);
        let shapes = (0..variant.shape_count())
            .map(|i| {
                let (dx, dy) = rng.direction();
                let px_per_s = rng.range(MIN_SPEED, MAX_SPEED);
                Shape {
                    x: rng.range(0.0, width),
                    y: rng.range(0.0, height),
                    size: rng.range(MIN_SIZE, MAX_SIZE),
                    angle: rng.range(0.0, std::f32::consts::TAU),
                    // Round-robin, so all five kinds always appear.
                    kind: (i % ShapeKind::ALL.len()) as f32,
                    colour: (rng.next_u64() % PALETTE.len() as u64) as f32,
                    vx: px_per_s * dx,
                    vy: px_per_s * dy,
                    spin: rng.range(-MAX_SPIN, MAX_SPIN),
                }
            })
            .collect();
        Self {
            shapes,
            width,
            height,
        }
    }

    /// The shapes, in drawing order.
    pub fn shapes(&self) -> &[Shape] {
        &self.shapes
    }

    /// The viewport's width and height, in CSS pixels.
    pub fn viewport(&self) -> (f32, f32) {
        (self.width, self.height)
    }

    /// Moves every shape on by `dt_ms` milliseconds, at most [`MAX_STEP_MS`]; a
    /// negative or non-finite `dt_ms` moves nothing. Shapes leaving one edge come back
    /// at the opposite one.
    pub fn step(&mut self, dt_ms: f64) {
        if !(dt_ms.is_finite() && dt_ms > 0.0) {
            return;
        }
        let dt = dt_ms.min(f64::from(MAX_STEP_MS)) as f32 / 1000.0;
        for s in &mut self.shapes {
            s.x = wrap(s.x + s.vx * dt, s.size, self.width);
            s.y = wrap(s.y + s.vy * dt, s.size, self.height);
            s.angle = modulo(s.angle + s.spin * dt, std::f32::consts::TAU);
        }
    }

    /// Follows a resize: every shape keeps its place relative to the viewport.
    pub fn resize(&mut self, width: f64, height: f64) {
        let (width, height) = (viewport_side(width), viewport_side(height));
        let (sx, sy) = (width / self.width, height / self.height);
        for s in &mut self.shapes {
            s.x = wrap(s.x * sx, s.size, width);
            s.y = wrap(s.y * sy, s.size, height);
        }
        self.width = width;
        self.height = height;
    }
}

/// Which animation frames are drawn. The page reports the time since its last refresh at
/// every refresh; a frame is due once [`FRAME_MS`] have passed since the last one drawn,
/// and the shapes then move by all of that time (at most [`MAX_STEP_MS`]), so their speed
/// is the same whatever the screen's rate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FramePace {
    /// Milliseconds since the last drawn frame (at most `MAX_STEP_MS`).
    waited: f64,
}

impl FramePace {
    /// One refresh, `dt_ms` after the last: the time to move the shapes by if a frame is
    /// due now, else `None`. A negative, zero or non-number `dt_ms` is no time at all.
    pub fn tick(&mut self, dt_ms: f64) -> Option<f64> {
        if dt_ms.is_nan() || dt_ms <= 0.0 {
            return None;
        }
        self.waited = (self.waited + dt_ms).min(f64::from(MAX_STEP_MS));
        (self.waited >= f64::from(FRAME_MS)).then(|| std::mem::take(&mut self.waited))
    }
}

/// A usable viewport side: at least 1 px, at most 1,000,000 px, 1 px if not a number.
fn viewport_side(v: f64) -> f32 {
    if v.is_finite() {
        v.clamp(1.0, 1.0e6) as f32
    } else {
        1.0
    }
}

/// Keeps a coordinate within `[-size, extent + size)`: a shape wraps once it is wholly
/// out of view, so it never pops in or out at an edge.
fn wrap(v: f32, size: f32, extent: f32) -> f32 {
    modulo(v + size, extent + 2.0 * size) - size
}

/// `v` modulo `m`, in `[0, m)`. By `floor`, a wasm instruction, where `rem_euclid`
/// would link a soft-float `fmodf`; the guard catches rounding up to `m` itself.
fn modulo(v: f32, m: f32) -> f32 {
    let r = v - m * (v / m).floor();
    if (0.0..m).contains(&r) { r } else { 0.0 }
}

#[cfg(test)]
#[allow(clippy::float_cmp)] // exact equality is the point: runs are deterministic
mod tests {
    use super::*;

    fn in_bounds(sim: &Simulation) -> bool {
        let (w, h) = sim.viewport();
        sim.shapes()
            .iter()
            .all(|s| (-s.size..w + s.size).contains(&s.x) && (-s.size..h + s.size).contains(&s.y))
    }

    #[test]
    fn counts_are_25_on_the_landing_page_and_18_elsewhere() {
        assert_eq!(
            Simulation::new(Variant::Landing, 800.0, 600.0, 1)
                .shapes()
                .len(),
            25
        );
        assert_eq!(
            Simulation::new(Variant::Page, 800.0, 600.0, 1)
                .shapes()
                .len(),
            18
        );
    }

    #[test]
    fn all_five_kinds_appear_and_only_they() {
        for variant in [Variant::Landing, Variant::Page] {
            for seed in 0..50 {
                let sim = Simulation::new(variant, 1024.0, 768.0, seed);
                for kind in ShapeKind::ALL {
                    assert!(sim.shapes().iter().any(|s| s.shape_kind() == kind));
                }
                assert!(
                    sim.shapes()
                        .iter()
                        .all(|s| { s.kind.fract() == 0.0 && (0.0..5.0).contains(&s.kind) })
                );
            }
        }
        let names: Vec<_> = ShapeKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            names,
            ["block", "node", "triangle", "hexagon", "connection"]
        );
    }

    #[test]
    fn colours_come_from_the_eight() {
        assert_eq!(PALETTE.len(), 8);
        let mut seen = [false; 8];
        for seed in 0..50 {
            for s in Simulation::new(Variant::Landing, 800.0, 600.0, seed).shapes() {
                assert!(s.colour.fract() == 0.0 && (0.0..8.0).contains(&s.colour));
                seen[s.colour as usize] = true;
            }
        }
        assert!(seen.iter().all(|&c| c), "every colour is used by some seed");
        for c in PALETTE {
            assert!(c.len() == 7 && c.starts_with('#'));
            assert!(c[1..].chars().all(|ch| ch.is_ascii_hexdigit()));
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_run_and_another_seed_does_not() {
        let run = |seed| {
            let mut sim = Simulation::new(Variant::Landing, 1280.0, 720.0, seed);
            for _ in 0..500 {
                sim.step(16.7);
            }
            sim.shapes().to_vec()
        };
        assert_eq!(run(42), run(42));
        assert_ne!(run(42), run(43));
    }

    #[test]
    fn shapes_start_in_view_and_stay_in_bounds_over_many_steps() {
        let mut sim = Simulation::new(Variant::Landing, 375.0, 667.0, 7);
        let (w, h) = sim.viewport();
        assert!(
            sim.shapes()
                .iter()
                .all(|s| (0.0..w).contains(&s.x) && (0.0..h).contains(&s.y))
        );
        for i in 0..100_000 {
            sim.step(if i % 3 == 0 { 50.0 } else { 16.0 });
        }
        assert!(in_bounds(&sim));
        assert!(
            sim.shapes()
                .iter()
                .all(|s| (0.0..std::f32::consts::TAU).contains(&s.angle))
        );
    }

    #[test]
    fn shapes_move_and_turn_smoothly() {
        let mut sim = Simulation::new(Variant::Page, 1280.0, 720.0, 3);
        let before = sim.shapes().to_vec();
        sim.step(16.0);
        for (a, b) in before.iter().zip(sim.shapes()) {
            let moved = (b.x - a.x).hypot(b.y - a.y);
            // At most MAX_SPEED px/s for 16 ms, unless it wrapped.
            assert!(moved > 0.0 && (moved <= MAX_SPEED * 0.016 + 1e-3 || moved > 100.0));
            assert_ne!(a.angle, b.angle);
        }
    }

    #[test]
    fn huge_negative_and_non_finite_steps_are_clamped() {
        let base = Simulation::new(Variant::Landing, 800.0, 600.0, 9);
        let mut clamped = base.clone();
        clamped.step(10.0 * 60.0 * 1000.0);
        let mut capped = base.clone();
        capped.step(f64::from(MAX_STEP_MS));
        assert_eq!(clamped.shapes(), capped.shapes());
        for dt in [-5.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0] {
            let mut sim = base.clone();
            sim.step(dt);
            assert_eq!(sim.shapes(), base.shapes(), "{dt}");
        }
    }

    #[test]
    fn a_resize_keeps_relative_places_and_bounds() {
        let mut sim = Simulation::new(Variant::Landing, 1000.0, 500.0, 11);
        let before = sim.shapes().to_vec();
        sim.resize(500.0, 1000.0);
        assert_eq!(sim.viewport(), (500.0, 1000.0));
        for (a, b) in before.iter().zip(sim.shapes()) {
            assert!((b.x - a.x / 2.0).abs() < 1e-3 && (b.y - a.y * 2.0).abs() < 1e-3);
        }
        for (w, h) in [
            (320.0, 200.0),
            (1.0, 1.0),
            (7680.0, 4320.0),
            (0.0, -5.0),
            (f64::NAN, 1e300),
        ] {
            sim.resize(w, h);
            for _ in 0..1000 {
                sim.step(50.0);
            }
            assert!(in_bounds(&sim), "{w}x{h}");
        }
        assert_eq!(sim.viewport(), (1.0, 1.0e6));
    }

    /// The drawn frames' times for refreshes `dt` apart, over `ms` milliseconds.
    fn drawn(dt: f64, ms: f64) -> Vec<f64> {
        let mut pace = FramePace::default();
        (0..(ms / dt) as usize)
            .filter_map(|_| pace.tick(dt))
            .collect()
    }

    #[test]
    fn frames_are_drawn_about_thirty_times_a_second_on_any_screen() {
        // 60 Hz: every second refresh; 120 Hz: every fourth; 144 Hz: every fifth.
        for (hz, every) in [
            (60.0, 2.0),
            (120.0, 4.0),
            (144.0, 5.0),
            (90.0, 3.0),
            (30.0, 1.0),
        ] {
            let dt = 1000.0 / hz;
            let frames = drawn(dt, 1000.0);
            assert!(
                frames.iter().all(|&t| (t - every * dt).abs() < 1e-9),
                "{hz} Hz"
            );
            assert!(
                (24..=30).contains(&frames.len()),
                "{hz} Hz: {}",
                frames.len()
            );
        }
        // A slow screen (or a busy page) draws at every refresh, by the time that passed.
        assert_eq!(drawn(40.0, 400.0), vec![40.0; 10]);
    }

    #[test]
    fn the_shapes_move_by_exactly_the_time_that_passed() {
        // Refreshes of uneven length: each drawn frame moves the shapes by the time since
        // the last one (at most MAX_STEP_MS), and none comes less than FRAME_MS after it.
        let mut pace = FramePace::default();
        let refreshes = [16.0, 17.0, 3.0, 12.0, 16.7, 16.6, 40.0, 1.0, 29.0, 0.5];
        let frames: Vec<f64> = refreshes.iter().filter_map(|&dt| pace.tick(dt)).collect();
        let expected = [33.0, 31.7, f64::from(MAX_STEP_MS), 30.0];
        assert_eq!(frames.len(), expected.len(), "{frames:?}");
        for (frame, expected) in frames.iter().zip(expected) {
            assert!((frame - expected).abs() < 1e-9, "{frames:?}");
        }
        assert!(frames.iter().all(|&t| t >= f64::from(FRAME_MS)));
        assert_eq!(pace.tick(0.0), None);
        assert_eq!(pace.waited, 0.5);
        // Nothing is time: no frame, and what was waited stays.
        for dt in [-5.0, f64::NAN, f64::NEG_INFINITY, 0.0] {
            assert_eq!(pace.tick(dt), None, "{dt}");
        }
        assert_eq!(pace.waited, 0.5);
        // A tab hidden for minutes: one frame of MAX_STEP_MS at once, no jump.
        assert_eq!(pace.tick(f64::INFINITY), Some(f64::from(MAX_STEP_MS)));
        assert_eq!(pace.tick(600_000.0), Some(f64::from(MAX_STEP_MS)));
    }

    #[test]
    fn the_constants_are_the_spec_values_and_the_row_layout() {
        assert_eq!(
            serde_json::to_string(&BackgroundConstants::new()).unwrap(),
            r##"{"landingShapes":25,"pageShapes":18,"maxStepMs":50,"frameMs":30,"palette":["#6366f1","#8b5cf6","#ec4899","#f43f5e","#f59e0b","#10b981","#06b6d4","#3b82f6"],"kinds":["block","node","triangle","hexagon","connection"],"stride":9,"offsets":{"x":0,"y":1,"size":2,"angle":3,"kind":4,"colour":5},"inks":{"light":{"fill":0.1,"stroke":0.32},"dark":{"fill":0.14,"stroke":0.42}}}"##
        );
    }

    #[test]
    fn variants_are_read_by_their_serde_names() {
        for v in [Variant::Landing, Variant::Page] {
            let name = serde_json::to_value(v).unwrap();
            assert_eq!(name.as_str().unwrap().parse::<Variant>(), Ok(v));
        }
        assert_eq!("home".parse::<Variant>(), Err(UnknownVariant));
    }

    #[test]
    fn a_row_is_stride_f32s_with_the_renderer_fields_first() {
        assert_eq!(Shape::STRIDE, 9);
        let sim = Simulation::new(Variant::Page, 800.0, 600.0, 5);
        let s = sim.shapes()[3];
        // Six distinct offsets within a row (their values come from `offset_of!`; the
        // browser test in core/tests/web.rs reads real rows through a Float32Array).
        let c = BackgroundConstants::new().offsets;
        let mut offsets = vec![c.x, c.y, c.size, c.angle, c.kind, c.colour];
        offsets.sort_unstable();
        offsets.dedup();
        assert_eq!(offsets.len(), 6);
        assert!(offsets.iter().all(|&o| (o as usize) < Shape::STRIDE));
        let row = [s.x, s.y, s.size, s.angle, s.kind, s.colour];
        assert_eq!(row[4], 3.0);
        assert!((MIN_SIZE..MAX_SIZE).contains(&row[2]));
    }
}
