//! The README's shell examples marked `<!-- checked by tests/readme.rs -->` run as written:
//! each block in a fresh directory with `bash -eu -o pipefail`, the `referee` built for these
//! tests first on the PATH, and every line's `# prints X` / `# N` comment checked where it
//! states one output.

use std::path::Path;
use std::process::Command;

const MARK: &str = "<!-- checked by tests/readme.rs -->";

/// The shell blocks that follow the mark, with the README line each starts on.
fn checked_blocks(readme: &str) -> Vec<(usize, String)> {
    let lines: Vec<&str> = readme.lines().collect();
    let mut blocks = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == MARK {
            let open = i + 1;
            assert_eq!(
                lines.get(open).map(|l| l.trim()),
                Some("```sh"),
                "README line {}: the mark must be followed by a ```sh block",
                open + 1
            );
            let close = (open + 1..lines.len())
                .find(|&j| lines[j].trim() == "```")
                .unwrap_or_else(|| panic!("README line {}: block not closed", open + 1));
            blocks.push((open + 2, lines[open + 1..close].join("\n") + "\n"));
            i = close;
        }
        i += 1;
    }
    blocks
}

fn run_block(line: usize, script: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let bin = Path::new(env!("CARGO_BIN_EXE_referee"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-eu", "-o", "pipefail", "-c", script])
        .current_dir(dir.path())
        .env("PATH", path)
        .output()
        .expect("run bash");
    assert!(
        out.status.success(),
        "README block at line {line} failed ({}):\n{script}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    for expected in promised_outputs(script) {
        assert!(
            stdout.lines().any(|l| l.trim() == expected),
            "README block at line {line}: no output line {expected:?}:\n{stdout}"
        );
    }
}

/// What the block's comments promise a command prints: `# prints X` and a bare `# N`.
fn promised_outputs(script: &str) -> Vec<String> {
    script
        .lines()
        .filter_map(|l| l.split_once("  #").map(|(_, c)| c.trim()))
        .filter_map(|c| {
            c.strip_prefix("prints ")
                .map(str::to_string)
                .or_else(|| c.parse::<u64>().ok().map(|n| n.to_string()))
        })
        .collect()
}

#[test]
fn readme_examples_run_as_written() {
    let readme_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&readme_path).expect("README.md");
    let blocks = checked_blocks(&readme);
    assert!(!blocks.is_empty(), "no block of README.md is marked {MARK}");
    for (line, script) in &blocks {
        run_block(*line, script);
    }
}

#[test]
fn a_failing_example_is_caught() {
    let readme = format!("text\n{MARK}\n```sh\necho one  # prints two\n```\n");
    let blocks = checked_blocks(&readme);
    assert_eq!(blocks.len(), 1);
    let caught = std::panic::catch_unwind(|| run_block(blocks[0].0, &blocks[0].1));
    assert!(
        caught.is_err(),
        "a wrong promised output must fail the test"
    );
    let caught = std::panic::catch_unwind(|| run_block(1, "false\n"));
    assert!(caught.is_err(), "a failing command must fail the test");
}
