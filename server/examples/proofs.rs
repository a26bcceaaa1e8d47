//! `make bench`'s proofs of work: prints N valid `altcha` payloads, one a line, for the
//! server started with the same `LATHE_PROOF_KEY`, so that wrk can post sign-ups with
//! the verification included (bench/signup.lua). Each challenge is made as the server
//! makes them, but with its answer known, so the work is done once instead of searched
//! for; the key it derives is the core's (`lathe_core_solver`), and the server checks it
//! as it checks any.
//!
//! ```sh
//! LATHE_PROOF_KEY=... cargo run --release -p lathe-site --example proofs -- 1000
//! ```

use std::io::{BufWriter, Write};

use lathe_core_solver::{Challenge, Parameters, Solution};
use lathe_site::domain::token::Key;
use lathe_site::waitlist::proof::{COUNTERS, Proofs};

fn main() {
    let count: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("usage: proofs COUNT (with LATHE_PROOF_KEY set)");
    let key = std::env::var("LATHE_PROOF_KEY").expect("LATHE_PROOF_KEY");
    let proofs = Proofs::new(&Key::new(&key).expect("a key of 32 bytes or more"));
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let lines: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let proofs = &proofs;
                scope.spawn(move || {
                    (t..count)
                        .step_by(threads)
                        .map(|_| proof(proofs))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a worker"))
            .collect()
    });
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in lines {
        writeln!(out, "{line}").expect("stdout");
    }
}

/// One valid payload.
fn proof(proofs: &Proofs) -> String {
    let counter = *COUNTERS.start();
    let issued = proofs.challenge_answered_by(counter, lathe_site::now_ms());
    let json = serde_json::to_string(&issued).expect("a challenge as JSON");
    let parameters: Parameters =
        serde_json::from_value(serde_json::to_value(&issued.parameters).expect("JSON"))
            .expect("the core reads the server's challenges");
    let challenge = Challenge::new(json, parameters).expect("a challenge the core can solve");
    let solution = Solution {
        counter,
        derived_key: challenge.derive(counter),
    };
    challenge.payload(&solution)
}
