//! Prints the core's constants as JSON: `{ "form": FormConstants, "background":
//! BackgroundConstants, "retention": RetentionConstants }`, from the same Rust values the core runs on. `make pkg` ships it
//! as `pkg/constants.json` (the wasm holds no copy), so that a page can render its first
//! paint (and a server its HTML) before the wasm has loaded.

use lathe_core::background::BackgroundConstants;
use lathe_core::form::FormConstants;
use lathe_core::retention::RetentionConstants;
use serde::Serialize;

#[derive(Serialize)]
struct Constants {
    form: FormConstants,
    background: BackgroundConstants,
    retention: RetentionConstants,
}

fn main() {
    let constants = Constants {
        form: FormConstants::new(),
        background: BackgroundConstants::new(),
        retention: RetentionConstants::new(),
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&constants).expect("constants serialise")
    );
}
