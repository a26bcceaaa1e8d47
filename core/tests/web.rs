//! The wasm boundary as JavaScript sees it, run in headless Chromium by
//! `wasm-pack test --headless --chrome core -- --test web`.
#![cfg(target_arch = "wasm32")]
#![allow(clippy::float_cmp)] // the rows are the simulation's own numbers, bit for bit

use js_sys::{Float32Array, JSON, Reflect, RegExp};
use lathe_core::background::{BackgroundConstants, Simulation, Variant};
use lathe_core::validation::{EMAIL_PATTERN, JS_WHITESPACE};
use lathe_core::wasm::{Background, WaitlistForm, is_referral_code, is_valid_email, wasm_memory};
use tsify::Ts;
use wasm_bindgen::{JsCast, JsError, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).unwrap()
}

fn json(value: &JsValue) -> String {
    JSON::stringify(value).unwrap().as_string().unwrap()
}

/// A JS value written as JSON, passed where the boundary takes a typed object.
fn js<T: tsify::Tsify>(json: &str) -> Ts<T> {
    Ts::new_unchecked(JSON::parse(json).unwrap())
}

fn update(form: &mut WaitlistForm, values: &str) -> Result<(), JsError> {
    form.update(&js(values))
}

fn state(form: &WaitlistForm) -> JsValue {
    form.state().into()
}

fn submit(form: &mut WaitlistForm, now: f64) -> String {
    JsValue::from(form.submit(now)).as_string().unwrap()
}

fn background(variant: &str, width: f64, height: f64, seed: u32) -> Background {
    Background::new(&js(&format!("{variant:?}")), width, height, seed).unwrap()
}

/// The pattern the rule stands for, run by the browser's own engine.
fn js_email_rule() -> RegExp {
    RegExp::new(EMAIL_PATTERN, "")
}

#[wasm_bindgen_test]
fn js_white_space_is_exactly_what_the_browser_calls_white_space() {
    let white = RegExp::new(r"^\s$", "");
    for code in 0..=0xFFFF_u32 {
        let Some(c) = char::from_u32(code) else {
            continue;
        };
        assert_eq!(
            white.test(&c.to_string()),
            JS_WHITESPACE.contains(&c),
            "U+{code:04X}"
        );
    }
}

#[wasm_bindgen_test]
fn the_email_rule_agrees_with_the_browser_on_every_white_space_character() {
    let rule = js_email_rule();
    for c in JS_WHITESPACE {
        for template in ["a@b.c", "ada@example.com"] {
            for at in 0..=template.len() {
                let mut s = String::from(template);
                s.insert(at, c);
                assert_eq!(is_valid_email(&s), rule.test(&s), "{s:?}");
            }
        }
    }
}

#[wasm_bindgen_test]
fn the_email_rule_agrees_with_the_browser_on_generated_strings() {
    let rule = js_email_rule();
    let mut alphabet: Vec<char> = "ab.@@..-_+1".chars().collect();
    alphabet.extend(JS_WHITESPACE);
    alphabet.extend([
        '\u{85}',
        '\u{180E}',
        '\u{200B}',
        '\u{0}',
        '\u{1F600}',
        'é',
        '\u{202E}',
    ]);
    let mut state = 0x2545_F491_4F6C_DD1D_u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut agreed_valid = 0;
    let mut part = |max: u64| -> String {
        let len = next() % max;
        (0..len)
            .map(|_| {
                // Mostly letters, so that address-shaped strings are often valid.
                let r = next();
                if r % 3 == 0 {
                    alphabet[(r / 3 % alphabet.len() as u64) as usize]
                } else {
                    'x'
                }
            })
            .collect()
    };
    for i in 0..20_000 {
        let s = if i % 2 == 0 {
            format!("{}@{}.{}", part(6), part(6), part(4))
        } else {
            part(16)
        };
        let ours = is_valid_email(&s);
        assert_eq!(ours, rule.test(&s), "{s:?}");
        agreed_valid += usize::from(ours);
    }
    // The generator must exercise both verdicts, or the comparison proves little.
    assert!(
        agreed_valid > 100,
        "only {agreed_valid} valid strings generated"
    );
}

#[wasm_bindgen_test]
fn a_referral_code_is_twelve_characters_of_base64url() {
    assert!(is_referral_code("AbC-_09xyzQW"));
    for not in [
        "",
        "AbC-_09xyzQ",
        "AbC+/09xyzQW",
        "AbC-_09xyz\u{fffd}",
        "AbC-_09xyzQW ",
    ] {
        assert!(!is_referral_code(not), "{not:?}");
    }
}

#[wasm_bindgen_test]
fn a_new_form_is_idle_empty_and_general() {
    let form = WaitlistForm::new();
    assert_eq!(
        json(&state(&form)),
        r#"{"phase":"idle","values":{"name":"","email":"","company":"","role":"","message":"","interest":"general"},"errors":[],"submitLabel":"Request Early Access","wakeAt":null,"notice":null,"proofRound":null}"#
    );
}

#[wasm_bindgen_test]
fn an_invalid_submit_shows_the_spec_messages_beneath_their_fields() {
    let mut form = WaitlistForm::new();
    update(&mut form, r#"{"email":"nope"}"#).unwrap();
    assert_eq!(submit(&mut form, 0.0), "invalid");
    let state = state(&form);
    assert_eq!(get(&state, "phase").as_string().unwrap(), "idle");
    assert_eq!(
        json(&get(&state, "errors")),
        r#"[{"field":"name","code":"required","message":"Full name is required"},{"field":"email","code":"invalid-email","message":"Please enter a valid email address"},{"field":"message","code":"required","message":"Message is required"}]"#
    );
}

#[wasm_bindgen_test]
fn a_valid_submit_runs_2000_ms_then_5000_ms_then_resets() {
    let mut form = WaitlistForm::new();
    update(
        &mut form,
        r#"{"name":"Ada","email":"ada@example.com","message":"Hi","interest":"press"}"#,
    )
    .unwrap();
    assert_eq!(submit(&mut form, 100.0), "started");
    let now = state(&form);
    assert_eq!(get(&now, "phase").as_string().unwrap(), "submitting");
    assert_eq!(
        get(&now, "submitLabel").as_string().unwrap(),
        "Submitting..."
    );
    assert_eq!(get(&now, "wakeAt").as_f64(), Some(2100.0));
    assert_eq!(submit(&mut form, 101.0), "ignored");
    assert!(!form.tick(2099.0));
    assert!(form.tick(2100.0));
    assert_eq!(
        get(&state(&form), "phase").as_string().unwrap(),
        "submitted"
    );
    assert_eq!(get(&state(&form), "wakeAt").as_f64(), Some(7100.0));
    assert!(!form.tick(7099.0));
    assert!(form.tick(7100.0));
    assert_eq!(json(&state(&form)), json(&state(&WaitlistForm::new())));
}

#[wasm_bindgen_test]
fn bad_calls_throw_errors_with_clear_text_and_change_nothing() {
    let message = |e: JsError| {
        let value = JsValue::from(e);
        assert!(value.is_instance_of::<js_sys::Error>());
        get(&value, "message").as_string().unwrap()
    };
    let mut form = WaitlistForm::new();
    for (values, expected) in [
        (
            r#"{"phone":"1"}"#,
            "unknown field: expected one of name, email, company, role, interest, message",
        ),
        (
            r#"{"interest":"sales"}"#,
            "unknown interest: expected one of general, enterprise, developer, partnership, press",
        ),
        (r#"{"name":3}"#, "every form value must be a string"),
        ("[]", "expected an object of form values"),
        ("null", "expected an object of form values"),
        (r#""name""#, "expected an object of form values"),
    ] {
        assert_eq!(
            message(update(&mut form, values).unwrap_err()),
            expected,
            "{values}"
        );
    }
    // An update is all or nothing: a bad key after a good one sets neither.
    assert!(update(&mut form, r#"{"name":"Ada","phone":"1"}"#).is_err());
    assert_eq!(json(&state(&form)), json(&state(&WaitlistForm::new())));
    update(&mut form, r#"{"name":"A","email":"a@b.c","message":"m"}"#).unwrap();
    submit(&mut form, 0.0);
    assert_eq!(
        message(update(&mut form, r#"{"name":"B"}"#).unwrap_err()),
        "the form cannot be edited while it is submitting"
    );
    assert_eq!(submit(&mut form, f64::NAN), "ignored");
    let bad_variant = Background::new(&js(r#""home""#), 1.0, 1.0, 1)
        .err()
        .unwrap();
    assert_eq!(
        message(bad_variant),
        "unknown variant: expected landing or page"
    );
}

#[wasm_bindgen_test]
fn shapes_are_read_in_place_from_wasm_memory_where_the_offsets_say() {
    // The constants as the package ships them (pkg/constants.json, written natively).
    let constants = serde_json::to_value(BackgroundConstants::new()).unwrap();
    let stride = constants["stride"].as_u64().unwrap() as usize;
    let offset = |name: &str| constants["offsets"][name].as_u64().unwrap() as usize;
    let mut bg = background("landing", 800.0, 600.0, 7);
    assert_eq!(bg.count(), 25);
    assert_eq!(background("page", 800.0, 600.0, 7).count(), 18);
    let memory: js_sys::WebAssembly::Memory = wasm_memory().unchecked_into();
    let view = |bg: &Background| {
        Float32Array::new_with_byte_offset_and_length(
            &memory.buffer(),
            bg.shapes_ptr() as u32,
            (bg.count() * stride) as u32,
        )
        .to_vec()
    };
    // The same simulation, read field by field, against the rows read through the view.
    let mut twin = Simulation::new(Variant::Landing, 800.0, 600.0, 7);
    let check = |rows: &[f32], twin: &Simulation| {
        for (row, shape) in rows.chunks(stride).zip(twin.shapes()) {
            assert_eq!(row[offset("x")], shape.x);
            assert_eq!(row[offset("y")], shape.y);
            assert_eq!(row[offset("size")], shape.size);
            assert_eq!(row[offset("angle")], shape.angle);
            assert_eq!(row[offset("kind")], shape.kind);
            assert_eq!(row[offset("colour")], shape.colour);
        }
    };
    let before = view(&bg);
    check(&before, &twin);
    let ptr = bg.shapes_ptr();
    bg.step(16.0);
    twin.step(16.0);
    assert_eq!(bg.shapes_ptr(), ptr, "stepping must not move the rows");
    assert_ne!(view(&bg), before);
    check(&view(&bg), &twin);
    bg.resize(f64::NAN, -1.0, None);
    bg.step(f64::INFINITY);
    assert!(view(&bg).iter().all(|v| v.is_finite()));
}

/// A sending form, filled validly and submitted at time 0.
fn sent_at_zero() -> WaitlistForm {
    let mut form = WaitlistForm::sending();
    update(
        &mut form,
        r#"{"name":"Ada","email":"ada@example.com","message":"Hi"}"#,
    )
    .unwrap();
    assert_eq!(submit(&mut form, 0.0), "started");
    form
}

#[wasm_bindgen_test]
fn a_sending_form_waits_for_its_report_and_keeps_everything_on_failure() {
    let mut form = sent_at_zero();
    let first = form.attempt();
    assert_eq!(get(&state(&form), "wakeAt").as_f64(), Some(10_000.0));
    assert!(form.failed(first));
    let now = state(&form);
    assert_eq!(get(&now, "phase").as_string().unwrap(), "idle");
    assert_eq!(get(&now, "notice").as_string().unwrap(), "not-sent");
    assert_eq!(
        get(&get(&now, "values"), "email").as_string().unwrap(),
        "ada@example.com"
    );
    assert_eq!(submit(&mut form, 100.0), "started");
    assert!(get(&state(&form), "notice").is_null());
    assert!(!form.delivered(first, 200.0), "a stale report");
    assert!(form.delivered(form.attempt(), 200.0));
    assert_eq!(
        get(&state(&form), "phase").as_string().unwrap(),
        "submitted"
    );
    assert_eq!(get(&state(&form), "wakeAt").as_f64(), Some(5200.0));
}

#[wasm_bindgen_test]
fn a_refusal_reads_the_servers_errors_and_shows_the_cores_messages() {
    let mut form = sent_at_zero();
    let errors = JSON::parse(
        r#"[{"field":"email","code":"invalid-email"},{"field":"email","code":"from-a-newer-server"},{"nonsense":1},7]"#,
    )
    .unwrap();
    assert!(!form.refused(form.attempt() + 1, &errors).unwrap(), "stale");
    assert!(form.refused(form.attempt(), &errors).unwrap());
    let now = state(&form);
    assert_eq!(get(&now, "phase").as_string().unwrap(), "idle");
    assert!(get(&now, "notice").is_null());
    let shown = js_sys::Array::from(&get(&now, "errors"));
    assert_eq!(shown.length(), 1);
    assert_eq!(
        get(&shown.get(0), "message").as_string().unwrap(),
        "Please enter a valid email address"
    );
    assert!(
        form.refused(form.attempt(), &JsValue::from_str("email"))
            .is_err(),
        "not an array"
    );
}

#[wasm_bindgen_test]
fn a_form_with_proof_asks_for_a_round_and_sends_only_with_its_solution() {
    let mut form = WaitlistForm::sending_with_proof();
    assert!(get(&state(&form), "proofRound").is_null());
    update(
        &mut form,
        r#"{"name":"Ada","email":"ada@example.com","message":"Hi"}"#,
    )
    .unwrap();
    let round = get(&state(&form), "proofRound").as_f64().unwrap() as u32;
    assert_eq!(submit(&mut form, 0.0), "started");
    assert!(form.take_send().is_none());
    assert!(form.solved(round, "P1".into()));
    let outgoing: JsValue = form.take_send().unwrap().into();
    assert_eq!(json(&outgoing), r#"{"attempt":1,"altcha":"P1"}"#);
    assert!(form.take_send().is_none());
    assert!(form.proof_refused(1, 10.0));
    let again = get(&state(&form), "proofRound").as_f64().unwrap() as u32;
    assert!(!form.proof_not_required(round), "stale");
    assert!(form.proof_not_required(again));
    let outgoing: JsValue = form.take_send().unwrap().into();
    assert_eq!(json(&outgoing), r#"{"attempt":2,"altcha":null}"#);
    assert!(!form.unsolved(again));
}

/// A canvas in the test page's document.
fn new_canvas() -> web_sys::HtmlCanvasElement {
    js_sys::Function::new_no_args(
        "const c = document.createElement('canvas'); document.body.append(c); return c;",
    )
    .call0(&JsValue::NULL)
    .unwrap()
    .unchecked_into()
}

/// The sum of `canvas`'s alpha bytes: how much ink is on it.
fn ink(canvas: &web_sys::HtmlCanvasElement) -> f64 {
    let sum = js_sys::Function::new_with_args(
        "c",
        "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; \
         let n = 0; for (let i = 3; i < d.length; i += 4) n += d[i]; return n;",
    );
    sum.call1(&JsValue::NULL, canvas).unwrap().as_f64().unwrap()
}

#[wasm_bindgen_test]
fn the_themes_inks_and_the_text_columns_fade_set_how_strongly_shapes_show() {
    let canvas = new_canvas();
    let mut bg = background("landing", 400.0, 300.0, 7);
    bg.attach(canvas.clone(), 1.0).unwrap();
    let light = ink(&canvas);
    let dark_ink = BackgroundConstants::new().inks.dark;
    bg.set_ink(dark_ink.fill, dark_ink.stroke);
    let dark = ink(&canvas);
    assert!(
        dark > light * 1.2,
        "dark ink is stronger: {dark} vs {light}"
    );
    // A band wider than the canvas: every shape at the band's strength.
    bg.set_fade(-1000.0, 2000.0);
    let faded = ink(&canvas);
    let share = faded / dark;
    assert!((share - 0.4).abs() < 0.05, "{share} of the ink behind text");
    bg.clear_fade();
    assert!((ink(&canvas) - dark).abs() < dark * 0.01, "full ink again");
}

#[wasm_bindgen_test]
fn frame_after_frame_leaves_no_trace_a_fresh_drawing_would_not_show() {
    // Each frame clears only where shapes were and are: after many frames (shapes
    // wrapping at the edges, fading behind a column, at a fractional pixel ratio), the
    // canvas is what one drawing of the shapes on a blank canvas gives.
    let canvas = new_canvas();
    let mut bg = background("landing", 400.0, 300.0, 11);
    bg.attach(canvas.clone(), 1.5).unwrap();
    bg.set_fade(120.0, 260.0);
    for _ in 0..600 {
        bg.frame(1000.0 / 30.0);
    }
    let framed = canvas.to_data_url().unwrap();
    // Setting the same fade again redraws the whole canvas from blank.
    bg.set_fade(120.0, 260.0);
    assert_eq!(canvas.to_data_url().unwrap(), framed);
}

/// How many pixels of `canvas` are not fully transparent.
fn painted(canvas: &web_sys::HtmlCanvasElement) -> u32 {
    let count = js_sys::Function::new_with_args(
        "c",
        "const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; \
         let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i]) n++; return n;",
    );
    count
        .call1(&JsValue::NULL, canvas)
        .unwrap()
        .as_f64()
        .unwrap() as u32
}

#[wasm_bindgen_test]
fn an_attached_background_sizes_its_canvas_and_draws_the_frames_that_are_due() {
    let canvas = new_canvas();
    let mut bg = background("landing", 400.0, 300.0, 7);
    bg.attach(canvas.clone(), 2.0).unwrap();
    assert_eq!(
        (canvas.width(), canvas.height()),
        (800, 600),
        "device pixels"
    );
    let first = painted(&canvas);
    assert!(
        first > 1000,
        "the shapes are drawn at once ({first} pixels)"
    );
    let ptr = bg.shapes_ptr();
    // About 30 frames a second: at 60 Hz, every second refresh draws.
    let before = canvas.to_data_url().unwrap();
    assert!(!bg.frame(1000.0 / 60.0), "not due yet");
    assert_eq!(canvas.to_data_url().unwrap(), before, "nothing drawn");
    assert!(bg.frame(1000.0 / 60.0), "due");
    assert_ne!(canvas.to_data_url().unwrap(), before, "the shapes moved");
    assert_eq!(bg.shapes_ptr(), ptr);
    assert!(painted(&canvas) > 1000);
    // Stronger ink paints the same shapes more opaquely: the pixel count stays.
    bg.set_ink(1.0, 1.0);
    assert!(painted(&canvas) > 1000);
    bg.resize(200.0, 100.0, None);
    assert_eq!((canvas.width(), canvas.height()), (400, 200));
    bg.resize(200.0, 100.0, Some(1.5));
    assert_eq!(
        (canvas.width(), canvas.height()),
        (300, 150),
        "a new pixel ratio"
    );
    // Nothing left over from before the resize, nothing drawn off the canvas.
    bg.frame(f64::INFINITY);
    bg.frame(f64::NAN);
    assert!(painted(&canvas) > 0);
    // A canvas already taken by WebGL has no 2D context: a clear error.
    let gl = new_canvas();
    let _ = gl.get_context("webgl");
    let mut other = background("page", 100.0, 100.0, 1);
    if gl.get_context("2d").ok().flatten().is_none() {
        assert!(other.attach(gl, 1.0).is_err());
    }
}
