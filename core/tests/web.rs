//! The wasm boundary as JavaScript sees it, run in headless Chromium by
//! `wasm-pack test --headless --chrome core -- --test web`.
#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Float32Array, JSON, Reflect, RegExp};
use lathe_core::validation::{EMAIL_PATTERN, JS_WHITESPACE};
use lathe_core::wasm::{
    Background, WaitlistForm, background_constants, form_constants, is_valid_email, wasm_memory,
};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn get(value: &JsValue, key: &str) -> JsValue {
    Reflect::get(value, &key.into()).unwrap()
}

fn json(value: &JsValue) -> String {
    JSON::stringify(value).unwrap().as_string().unwrap()
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
fn a_new_form_is_idle_empty_and_general() {
    let form = WaitlistForm::new();
    assert_eq!(
        json(&form.state()),
        r#"{"phase":"idle","values":{"name":"","email":"","company":"","role":"","message":"","interest":"general"},"errors":[],"submitLabel":"Request Early Access","wakeAt":null}"#
    );
}

#[wasm_bindgen_test]
fn an_invalid_submit_shows_the_spec_messages_beneath_their_fields() {
    let mut form = WaitlistForm::new();
    form.set("email", "nope").unwrap();
    assert_eq!(form.submit(0.0).as_string().unwrap(), "invalid");
    let state = form.state();
    assert_eq!(get(&state, "phase").as_string().unwrap(), "idle");
    assert_eq!(
        json(&get(&state, "errors")),
        r#"[{"field":"name","code":"required","message":"Full name is required"},{"field":"email","code":"invalid-email","message":"Please enter a valid email address"},{"field":"message","code":"required","message":"Message is required"}]"#
    );
    form.set("email", "").unwrap();
    let errors: Array = form.check().unchecked_into();
    assert_eq!(
        get(&errors.get(1), "message").as_string().unwrap(),
        "Email address is required"
    );
}

#[wasm_bindgen_test]
fn a_valid_submit_runs_2000_ms_then_5000_ms_then_resets() {
    let mut form = WaitlistForm::new();
    for (field, value) in [
        ("name", "Ada"),
        ("email", "ada@example.com"),
        ("message", "Hi"),
        ("interest", "press"),
    ] {
        form.set(field, value).unwrap();
    }
    assert_eq!(form.submit(100.0).as_string().unwrap(), "started");
    let state = form.state();
    assert_eq!(get(&state, "phase").as_string().unwrap(), "submitting");
    assert_eq!(
        get(&state, "submitLabel").as_string().unwrap(),
        "Submitting..."
    );
    assert_eq!(get(&state, "wakeAt").as_f64(), Some(2100.0));
    assert_eq!(form.submit(101.0).as_string().unwrap(), "ignored");
    assert!(!form.tick(2099.0));
    assert!(form.tick(2100.0));
    assert_eq!(
        get(&form.state(), "phase").as_string().unwrap(),
        "submitted"
    );
    assert_eq!(get(&form.state(), "wakeAt").as_f64(), Some(7100.0));
    assert!(!form.tick(7099.0));
    assert!(form.tick(7100.0));
    assert_eq!(json(&form.state()), json(&WaitlistForm::new().state()));
}

#[wasm_bindgen_test]
fn bad_calls_throw_errors_with_clear_text() {
    let message = |e: wasm_bindgen::JsError| {
        let value = JsValue::from(e);
        assert!(value.is_instance_of::<js_sys::Error>());
        get(&value, "message").as_string().unwrap()
    };
    let mut form = WaitlistForm::new();
    assert_eq!(
        message(form.set("phone", "1").unwrap_err()),
        "unknown field: expected one of name, email, company, role, message, interest"
    );
    assert_eq!(
        message(form.set("interest", "sales").unwrap_err()),
        "unknown interest: expected one of general, enterprise, developer, partnership, press"
    );
    assert_eq!(
        get(&get(&form.state(), "values"), "interest")
            .as_string()
            .unwrap(),
        "general"
    );
    for (field, value) in [("name", "A"), ("email", "a@b.c"), ("message", "m")] {
        form.set(field, value).unwrap();
    }
    form.submit(0.0);
    assert_eq!(
        message(form.set("name", "B").unwrap_err()),
        "the form cannot be edited while it is submitting"
    );
    assert_eq!(form.submit(f64::NAN).as_string().unwrap(), "ignored");
}

#[wasm_bindgen_test]
fn constants_are_the_spec_values() {
    assert_eq!(
        json(&form_constants()),
        r#"{"submitDelayMs":2000,"thankYouMs":5000,"messageRows":4,"interests":["general","enterprise","developer","partnership","press"],"requiredFields":["name","email","message"],"submitLabel":"Request Early Access","submittingLabel":"Submitting..."}"#
    );
    let bg = background_constants();
    assert_eq!(get(&bg, "landingShapes").as_f64(), Some(25.0));
    assert_eq!(get(&bg, "pageShapes").as_f64(), Some(18.0));
    assert_eq!(
        json(&get(&bg, "kinds")),
        r#"["block","node","triangle","hexagon","connection"]"#
    );
    let palette: Array = get(&bg, "palette").unchecked_into();
    assert_eq!(palette.length(), 8);
    assert_eq!(
        json(&get(&bg, "offsets")),
        r#"{"x":0,"y":1,"size":2,"angle":3,"kind":4,"colour":5}"#
    );
}

#[wasm_bindgen_test]
fn shapes_are_read_in_place_from_wasm_memory() {
    let stride = get(&background_constants(), "stride").as_f64().unwrap() as u32;
    let mut bg = Background::landing(800.0, 600.0, 7);
    assert_eq!(bg.count(), 25);
    assert_eq!(Background::page(800.0, 600.0, 7).count(), 18);
    let memory: js_sys::WebAssembly::Memory = wasm_memory().unchecked_into();
    let view = |bg: &Background| {
        Float32Array::new_with_byte_offset_and_length(
            &memory.buffer(),
            bg.shapes_ptr() as u32,
            bg.count() as u32 * stride,
        )
        .to_vec()
    };
    let before = view(&bg);
    assert!(before.chunks(stride as usize).all(|row| {
        (0.0..800.0).contains(&row[0])
            && (0.0..600.0).contains(&row[1])
            && row[4] < 5.0
            && row[5] < 8.0
    }));
    let ptr = bg.shapes_ptr();
    bg.step(16.0);
    assert_eq!(bg.shapes_ptr(), ptr, "stepping must not move the rows");
    assert_ne!(view(&bg), before);
    bg.resize(f64::NAN, -1.0);
    bg.step(f64::INFINITY);
    assert!(view(&bg).iter().all(|v| v.is_finite()));
}
