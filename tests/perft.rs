//! Known-answer perft files (`tests/perft/*.perft`): `# Source:` comments, then `fen <FEN>`
//! (or `variant <name>`) lines each followed by `depth N nodes` lines. One generic runner,
//! which reports `file:line` of any count that differs. Counts above `BUDGET` nodes are left
//! to the ignored deep test and the benchmarks so the test suite stays fast. The only perft
//! runner: the games' own unit tests check a few counts of their own, not these files.

use referee::games::{self, Variant};

use crate::common::repo_path;

const BUDGET: u64 = 2_000_000;

/// The deep run's ceiling: about a minute for all the files in release.
const DEEP: u64 = 50_000_000;

struct Case {
    line: usize,
    fen: Option<String>,
    depth: u32,
    nodes: u64,
}

fn parse(file: &str, text: &str) -> Vec<Case> {
    let mut fen: Option<String> = None;
    let mut cases = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        if let Some(f) = raw.strip_prefix("fen ") {
            fen = Some(f.trim().to_string());
        } else if raw == "startpos" {
            fen = None;
        } else if let Some(rest) = raw.strip_prefix("depth ") {
            let mut parts = rest.split_whitespace().map(|p| p.parse::<u64>());
            let (Some(Ok(depth)), Some(Ok(nodes))) = (parts.next(), parts.next()) else {
                panic!("{file}:{line}: expected `depth N nodes`");
            };
            let depth = u32::try_from(depth).expect("depth");
            cases.push(Case {
                line,
                fen: fen.clone(),
                depth,
                nodes,
            });
        } else {
            panic!("{file}:{line}: expected `fen ...`, `startpos` or `depth N nodes`");
        }
    }
    cases
}

fn run(variant: Variant, counts: std::ops::RangeInclusive<u64>) {
    let file = format!("tests/perft/{}.perft", variant.name());
    let text = std::fs::read_to_string(repo_path(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(
        text.lines().any(|l| l.starts_with("# Source:")),
        "{file}: no # Source: line"
    );
    let cases = parse(&file, &text);
    assert!(!cases.is_empty(), "{file}: no cases");
    let mut failures = Vec::new();
    for case in cases.iter().filter(|c| counts.contains(&c.nodes)) {
        match games::perft(variant, case.fen.as_deref(), case.depth) {
            Ok(n) if n == case.nodes => {}
            Ok(n) => failures.push(format!(
                "{file}:{}: depth {} gave {n}, expected {}",
                case.line, case.depth, case.nodes
            )),
            Err(e) => failures.push(format!("{file}:{}: {e}", case.line)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every game has its file (`tests/perft/NAME.perft`); a game without one fails here.
#[test]
fn perft_known_answers() {
    for &variant in Variant::ALL {
        run(variant, 0..=BUDGET);
    }
}

#[test]
#[ignore = "counts up to 50 million nodes: `cargo test --release --test tests perft -- --ignored`"]
fn perft_known_answers_deep() {
    for &variant in Variant::ALL {
        run(variant, BUDGET + 1..=DEEP);
    }
}
