//! The one wasm-bindgen layer: thin wrappers over [`crate::validation`],
//! [`crate::form`] and [`crate::background`]. Plain data crosses as plain JS
//! objects typed by the TypeScript section below; programmer errors become JS `Error`s.

use const_format::formatcp;
use js_sys::{Array, JSON};
use lol_alloc::{FreeListAllocator, LockedAllocator};
use wasm_bindgen::prelude::*;

use crate::background::{self, Shape, ShapeKind, Simulation, Variant};
use crate::form::{self, FormMachine, SubmitOutcome};
use crate::validation::{self, Field, FieldError, Fields, Interest};

// The heap holds a few strings and two dozen shapes: a free list is plenty, and is
// 5 KB smaller than the standard dlmalloc, which matters under the 40 KB budget.
#[global_allocator]
static ALLOCATOR: LockedAllocator<FreeListAllocator> =
    LockedAllocator::new(FreeListAllocator::new());

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &str = r#"
/** A field of the waitlist form. */
export type Field = "name" | "email" | "company" | "role" | "message" | "interest";
/** What the visitor is writing about. */
export type Interest = "general" | "enterprise" | "developer" | "partnership" | "press";
/** Where the form is: idle → submitting → submitted → idle. */
export type Phase = "idle" | "submitting" | "submitted";
/** What the visitor has typed. */
export interface FormValues {
  name: string;
  email: string;
  company: string;
  role: string;
  message: string;
  interest: Interest;
}
/** One failing field and the message to show beneath it. */
export interface FieldError {
  field: "name" | "email" | "message";
  code: "required" | "invalid-email";
  message: string;
}
/** Everything the form's UI renders. */
export interface FormState {
  phase: Phase;
  values: FormValues;
  /** Errors of the last invalid submit, in form order; empty unless idle. */
  errors: FieldError[];
  submitLabel: string;
  /** When `tick` should next be called (same clock as `submit`'s `now`), or null. */
  wakeAt: number | null;
}
/** What `submit` did. */
export type SubmitOutcome = "started" | "invalid" | "ignored";
/** The form's fixed values (spec §5, §9). */
export interface FormConstants {
  submitDelayMs: number;
  thankYouMs: number;
  messageRows: number;
  interests: Interest[];
  requiredFields: Field[];
  submitLabel: string;
  submittingLabel: string;
}
/** The shape types, indexed by a shape's `kind`. */
export type ShapeKind = "block" | "node" | "triangle" | "hexagon" | "connection";
/** The background's fixed values and the layout of a shape row in memory. */
export interface BackgroundConstants {
  landingShapes: number;
  pageShapes: number;
  maxStepMs: number;
  /** Eight CSS hex colours, indexed by a shape's `colour`. */
  palette: string[];
  kinds: ShapeKind[];
  /** f32s per shape row. */
  stride: number;
  /** Offsets within a row. */
  offsets: { x: number; y: number; size: number; angle: number; kind: number; colour: number };
}
"#;

#[wasm_bindgen]
extern "C" {
    /// A plain JS object, written by key.
    #[wasm_bindgen(js_name = Object)]
    type PlainObject;

    #[wasm_bindgen(constructor, js_class = "Object")]
    fn new() -> PlainObject;

    #[wasm_bindgen(method, structural, indexing_setter)]
    fn set(this: &PlainObject, key: &str, value: JsValue);
}

/// A plain JS object from `(key, value)` pairs. Built by hand rather than through
/// serde: a serializer per type cost more than 3 KB of the 40 KB wasm budget.
fn object(entries: impl IntoIterator<Item = (&'static str, JsValue)>) -> JsValue {
    let object = PlainObject::new();
    for (key, value) in entries {
        object.set(key, value);
    }
    object.into()
}

fn field_errors(errors: &[FieldError]) -> JsValue {
    errors
        .iter()
        .map(|e| {
            object([
                ("field", e.field.as_str().into()),
                ("code", e.code.as_str().into()),
                ("message", e.message.into()),
            ])
        })
        .collect::<Array>()
        .into()
}

fn values(fields: &Fields) -> JsValue {
    object([
        ("name", fields.name.as_str().into()),
        ("email", fields.email.as_str().into()),
        ("company", fields.company.as_str().into()),
        ("role", fields.role.as_str().into()),
        ("message", fields.message.as_str().into()),
        ("interest", fields.interest.as_str().into()),
    ])
}

/// The waitlist form: its values, phase and errors. Call `tick(now)` at `wakeAt`.
#[wasm_bindgen]
#[derive(Default)]
pub struct WaitlistForm(FormMachine);

#[wasm_bindgen]
impl WaitlistForm {
    /// An idle, empty form with interest "general".
    #[wasm_bindgen(constructor)]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets a field.
    ///
    /// # Errors
    /// An unknown field or interest, or a form that is not idle: nothing changes.
    pub fn set(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Field")] field: &str,
        value: &str,
    ) -> Result<(), JsError> {
        // Constant messages, not `JsError::from`: that formats through `Display`.
        let field = field
            .parse::<Field>()
            .map_err(|e| JsError::new(e.message()))?;
        self.0
            .set(field, value)
            .map_err(|e| JsError::new(e.message()))
    }

    /// Submits at `now` (ms): valid data starts submitting, invalid data shows errors,
    /// and a submit while not idle, or at a non-finite time, is ignored.
    #[wasm_bindgen(unchecked_return_type = "SubmitOutcome")]
    pub fn submit(&mut self, now: f64) -> JsValue {
        let outcome = match self.0.submit(now) {
            SubmitOutcome::Started => "started",
            SubmitOutcome::Invalid(_) => "invalid",
            SubmitOutcome::Ignored => "ignored",
        };
        outcome.into()
    }

    /// Advances to `now` (ms); returns whether the state changed.
    pub fn tick(&mut self, now: f64) -> bool {
        self.0.tick(now)
    }

    /// The errors the current values would get on submit, in form order, without
    /// submitting or showing them: the same rules as `submit`, for live checks.
    #[wasm_bindgen(unchecked_return_type = "FieldError[]")]
    pub fn check(&self) -> JsValue {
        field_errors(&validation::validate(self.0.fields()))
    }

    /// A snapshot of everything the UI renders.
    #[wasm_bindgen(unchecked_return_type = "FormState")]
    pub fn state(&self) -> JsValue {
        object([
            ("phase", self.0.phase().as_str().into()),
            ("values", values(self.0.fields())),
            ("errors", field_errors(self.0.errors())),
            ("submitLabel", self.0.submit_label().into()),
            (
                "wakeAt",
                self.0.wake_at().map_or(JsValue::NULL, JsValue::from),
            ),
        ])
    }
}

/// Text, an at sign, text, a dot, text, with no white space (as JS's `\s`).
#[wasm_bindgen(js_name = isValidEmail)]
pub fn is_valid_email(email: &str) -> bool {
    validation::is_valid_email(email)
}

// The constant objects, written as JSON at compile time from the same consts the
// domain uses: one string and one `JSON.parse` at the boundary, where building them
// key by key cost over 1 KB of the wasm budget. Their strings need no JSON escaping.
#[allow(clippy::needless_raw_string_hashes)] // the JSON's quotes need them
const FORM_CONSTANTS: &str = formatcp!(
    r#"{{"submitDelayMs":{},"thankYouMs":{},"messageRows":{},"interests":["{}","{}","{}","{}","{}"],"requiredFields":["{}","{}","{}"],"submitLabel":"{}","submittingLabel":"{}"}}"#,
    form::SUBMIT_DELAY_MS,
    form::THANK_YOU_MS,
    validation::MESSAGE_ROWS,
    Interest::ALL[0].as_str(),
    Interest::ALL[1].as_str(),
    Interest::ALL[2].as_str(),
    Interest::ALL[3].as_str(),
    Interest::ALL[4].as_str(),
    Field::Name.as_str(),
    Field::Email.as_str(),
    Field::Message.as_str(),
    form::SUBMIT_LABEL,
    form::SUBMITTING_LABEL,
);

#[allow(clippy::needless_raw_string_hashes)]
const BACKGROUND_CONSTANTS: &str = formatcp!(
    r#"{{"landingShapes":{},"pageShapes":{},"maxStepMs":{},"palette":["{}","{}","{}","{}","{}","{}","{}","{}"],"kinds":["{}","{}","{}","{}","{}"],"stride":{},"offsets":{{"x":{},"y":{},"size":{},"angle":{},"kind":{},"colour":{}}}}}"#,
    background::LANDING_SHAPES,
    background::PAGE_SHAPES,
    background::MAX_STEP_MS,
    background::PALETTE[0],
    background::PALETTE[1],
    background::PALETTE[2],
    background::PALETTE[3],
    background::PALETTE[4],
    background::PALETTE[5],
    background::PALETTE[6],
    background::PALETTE[7],
    ShapeKind::ALL[0].as_str(),
    ShapeKind::ALL[1].as_str(),
    ShapeKind::ALL[2].as_str(),
    ShapeKind::ALL[3].as_str(),
    ShapeKind::ALL[4].as_str(),
    Shape::STRIDE,
    Shape::X,
    Shape::Y,
    Shape::SIZE,
    Shape::ANGLE,
    Shape::KIND,
    Shape::COLOUR,
);

/// The form's fixed values: delays, rows, interests, labels.
#[wasm_bindgen(js_name = formConstants, unchecked_return_type = "FormConstants")]
pub fn form_constants() -> JsValue {
    JSON::parse(FORM_CONSTANTS).unwrap_throw()
}

/// The background's fixed values: counts, palette, kinds and the row layout.
#[wasm_bindgen(js_name = backgroundConstants, unchecked_return_type = "BackgroundConstants")]
pub fn background_constants() -> JsValue {
    JSON::parse(BACKGROUND_CONSTANTS).unwrap_throw()
}

/// The module's memory, for a `Float32Array` view over `Background.shapesPtr()`.
/// (Not named `memory`: that is the wasm module's own export.)
#[wasm_bindgen(js_name = wasmMemory, unchecked_return_type = "WebAssembly.Memory")]
pub fn wasm_memory() -> JsValue {
    wasm_bindgen::memory()
}

/// The moving shapes behind a page. Read them in place:
/// `new Float32Array(wasmMemory().buffer, bg.shapesPtr(), bg.count * stride)`,
/// where `bg = Background.landing(width, height, seed)` or `Background.page(...)`.
#[wasm_bindgen]
pub struct Background(Simulation);

#[wasm_bindgen]
impl Background {
    /// The landing page's 25 shapes over a `width` × `height` CSS-pixel viewport. The
    /// same seed gives the same shapes.
    pub fn landing(width: f64, height: f64, seed: u32) -> Background {
        Self(Simulation::new(
            Variant::Landing,
            width,
            height,
            seed.into(),
        ))
    }

    /// Every other page's 18 shapes; otherwise as `landing`.
    pub fn page(width: f64, height: f64, seed: u32) -> Background {
        Self(Simulation::new(Variant::Page, width, height, seed.into()))
    }

    /// Moves the shapes on by `dtMs` milliseconds (clamped to `maxStepMs`).
    pub fn step(&mut self, #[wasm_bindgen(js_name = dtMs)] dt_ms: f64) {
        self.0.step(dt_ms);
    }

    /// Follows a viewport resize (CSS pixels).
    pub fn resize(&mut self, width: f64, height: f64) {
        self.0.resize(width, height);
    }

    /// How many shapes there are.
    #[wasm_bindgen(getter)]
    pub fn count(&self) -> usize {
        self.0.shapes().len()
    }

    /// Byte offset of the first shape row in `wasmMemory().buffer`. Stable for the
    /// object's life, but views over the buffer go stale when memory grows.
    #[wasm_bindgen(js_name = shapesPtr)]
    pub fn shapes_ptr(&self) -> usize {
        self.0.shapes().as_ptr() as usize
    }
}
